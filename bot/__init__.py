"""The bot process: settings, client, table sessions, storage, views and timers."""
