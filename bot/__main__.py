"""``python -m bot``: start the bot with the settings from the environment or ``.env``.

Exit status: 0 after a stop (SIGTERM, SIGINT/Ctrl+C); 2 for something a person must
fix (a bad setting, a token Discord refuses, a missing invite scope); 1 when Discord
cannot be reached (bot.app.lifecycle). Those say why in a sentence on stderr.
"""

from __future__ import annotations

import sys

from bot.config.settings import SettingsError, load_settings


def main() -> int:
    try:
        settings = load_settings()
    except SettingsError as error:
        print(error.code, file=sys.stderr)
        return 2
    # After the settings: a missing token needs no discord.
    from bot.app import lifecycle
    from bot.app.client import CardTableBot

    lifecycle.set_up_logging(settings.log_level, settings.secrets())
    lifecycle.quiet_voice_warnings()  # before the client is made: it warns in __init__
    bot = CardTableBot(settings)
    lifecycle.tune_collector()  # after every import: what start-up made is frozen
    lifecycle.announce_ready(bot)
    return lifecycle.run(bot, settings.token, settings.secrets())


if __name__ == "__main__":
    sys.exit(main())
