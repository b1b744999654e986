"""Turning a submission (a .py module, a notebook, what a kernel ran) into the cells the sandbox runs.

Only reads text: nothing here executes submission code.
"""
