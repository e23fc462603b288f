"""The terminal table: a front end beside ``bot/``, on the engine, for one person
against AI players. ``python -m terminal GAME [--players N] [--seed S] [--level L]
[--option NAME=VALUE] [--lang LANG]``, in the language asked for (``locales``).

``terminal.table`` runs the table (deals, turns, questions, the final scores);
``terminal.render`` draws it for any game, and ``terminal/<game id>.py`` (when
present, found by the game id) draws what is particular to one game. What
happened at each step is said from the engine's events (``engine.events``).
"""
