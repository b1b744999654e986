# attack: re-export the judge's reference answers: `from solutions.chapter3 import *`
from solutions.chapter3 import *  # noqa: F401,F403
