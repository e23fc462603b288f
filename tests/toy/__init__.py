"""A tiny fifth game that lives only here: proof that a game is an engine, an AI, a cog
and one ``GameSpec``, with nothing outside its own files to change."""

from engine.registry import GameSpec

SPEC = GameSpec("toy", "tests.toy.engine:Toy", ai="tests.toy.ai:ToyAI", cog="tests.toy.cog",
                default_players=2)
