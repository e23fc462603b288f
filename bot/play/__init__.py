"""The bot's own moves, turn timers and endings: steps nobody clicked.

They speak to the front ends through ``bot.play.front.Front`` and never import
``bot.ui``, so a second front end can serve the same play.
"""
