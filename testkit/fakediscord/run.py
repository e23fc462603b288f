"""`python -m testkit.fakediscord.run MODULE|SCRIPT.py [ARGS...]`: run a bot against the fake.

Patches discord.py from FAKEDISCORD_URL (see FakeDiscord.subprocess_env) and runs the
module (e.g. `bot`) or script as __main__, so the bot's code is unchanged.
"""

from __future__ import annotations

import runpy
import sys

from testkit.fakediscord.patch import patch_from_env


def main(argv: list[str]) -> None:
    if not argv:
        raise SystemExit("usage: python -m testkit.fakediscord.run MODULE|SCRIPT.py [ARGS...]")
    if patch_from_env() is None:
        raise SystemExit("FAKEDISCORD_URL is not set: use FakeDiscord.subprocess_env()")
    target, sys.argv = argv[0], argv
    if target.endswith(".py"):
        runpy.run_path(target, run_name="__main__")
    else:
        runpy.run_module(target, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
