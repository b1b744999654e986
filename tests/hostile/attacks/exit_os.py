# attack: os._exit(0) -- end the interpreter at once, skipping every handler, hoping for a clean "exit 0"
import os

os._exit(0)
