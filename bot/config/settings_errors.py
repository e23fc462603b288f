"""The error of a setting that stops the bot (or the web table) from starting."""


class SettingsError(SystemExit):
    """A setting that stops the bot from starting; the text explains how to fix it."""
