"""What the tests and the benchmarks share, so that neither imports the other's modules.

- ``testkit.fakediscord``: a fake Discord that runs the real discord.py objects;
- ``testkit.harness``: a fast bot on it (``make_bot``) and players that use only what
  they see;
- ``testkit.games``: what they know of each game (``testkit.games.jazz``: the DMs a player
  gets in a whole Jazz game);
- ``testkit.processes``: the bot as a real process (``BotProcess``) and ``Players``;
- ``testkit.clock``: clocks the tests move by hand;
- ``testkit.pgcluster``: a throw-away PostgreSQL cluster.
"""
