"""A table without any front end: its state, the step kernel, the live tables, timers, the AI.

Nothing here imports Discord (or any other front end): a move is checked, applied and
saved here, and every saved step is published on the table bus for whoever draws it.
"""
