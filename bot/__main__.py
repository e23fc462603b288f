"""``python -m bot``: start the bot with the settings from the environment or ``.env``."""

from __future__ import annotations

import logging
import sys

from bot.settings import SettingsError, load_settings


def main() -> int:
    try:
        settings = load_settings()
    except SettingsError as error:
        print(error.code, file=sys.stderr)
        return 2
    logging.basicConfig(level=settings.log_level,
                        format="%(asctime)s %(levelname)-8s %(name)s: %(message)s")
    from bot.client import CardTableBot  # after the settings: a missing token needs no discord

    bot = CardTableBot(settings)
    bot.run(settings.token, log_handler=None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
