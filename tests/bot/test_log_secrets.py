"""What the log and a failed start never show: the token, the database password, an
interaction's token; and LOG_LEVEL=DEBUG keeps discord.py's request and gateway dumps
(and aiosqlite's statements) at INFO while every other logger logs its DEBUG lines."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.app import lifecycle
from bot.config.settings import Settings
from bot.storage import StorageError

TOKEN = "MTIzNDU2Nzg5MDEy.Gabcde.the-bots-own-token-do-not-show"
PASSWORD = "s3cr#t/pa?ss"  # written percent-encoded in the URL
URL = "postgresql://cardtable:s3cr%23t%2Fpa%3Fss@db.example:5432/cardtable"
INTERACTION_TOKEN = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5OmFiY2RlZmdoaWprbG1ub3A"


def settings() -> Settings:
    return Settings(token=TOKEN, database_path=Path("x.db"), dev_guild_id=None,
                    log_level=logging.DEBUG, database_url=URL)


def shows_a_secret(text: str) -> list[str]:
    secrets = [TOKEN, PASSWORD, "s3cr%23t%2Fpa%3Fss", "s3cr", "pa?ss", INTERACTION_TOKEN]
    return [secret for secret in secrets if secret in text]


@pytest.fixture
def restored() -> Iterator[None]:
    """The root logger's level and handlers, and the levels of the loggers that
    ``set_up_logging`` sets, put back after the test (other tests rely on them)."""
    root = logging.getLogger()
    names = (*lifecycle.QUIET_AT_DEBUG, "bot.test")
    level, handlers = root.level, list(root.handlers)
    levels = {name: logging.getLogger(name).level for name in names}
    try:
        yield
    finally:
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
        for name, was in levels.items():
            logging.getLogger(name).setLevel(was)


@pytest.fixture
def log(restored: None) -> io.StringIO:
    """``set_up_logging`` at DEBUG into a string."""
    stream = io.StringIO()
    lifecycle.set_up_logging(logging.DEBUG, settings().secrets(), logging.StreamHandler(stream))
    return stream


def test_debug_keeps_the_bots_lines_and_quiets_discords_dumps(log):
    logging.getLogger("bot.test").debug("the bot's own debug line")
    logging.getLogger("discord.client").debug("Dispatching event %s", "ready")
    body = {"content": "Your hand: 10♥ J♥ Q♠", "components": []}
    logging.getLogger("discord.http").debug("%s %s with %s has returned %s", "POST",
                                            "https://discord.com/api/v10/channels/1/messages",
                                            body, 200)
    logging.getLogger("discord.gateway").debug("For Shard ID %s: WebSocket Event: %s", 0,
                                               {"t": "INTERACTION_CREATE",
                                                "d": {"token": INTERACTION_TOKEN}})
    logging.getLogger("aiosqlite").debug("executing %s", ("UPDATE live_tables", '["TH"]'))
    text = log.getvalue()
    assert "the bot's own debug line" in text and "Dispatching event ready" in text
    assert "Your hand" not in text and "INTERACTION_CREATE" not in text
    assert "live_tables" not in text
    assert logging.getLogger("discord.http").getEffectiveLevel() == logging.INFO


def test_a_line_never_shows_the_token_the_password_or_an_interaction_token(log):
    url = f"https://discord.com/api/v10/interactions/123456789/{INTERACTION_TOKEN}/callback"
    logging.getLogger("discord.http").warning(
        "We are being rate limited. %s %s responded with 429.", "POST", url)
    logging.getLogger("discord.webhook.async_").info(
        "Webhook ID %s with %s %s", 1, "PATCH",
        f"https://discord.com/api/v10/webhooks/42/{INTERACTION_TOKEN}/messages/@original")
    try:
        raise RuntimeError(f"cannot log in with {TOKEN} to postgresql://cardtable:"
                           f"{PASSWORD}@db and s3cr%23t%2Fpa%3Fss")
    except RuntimeError:
        logging.getLogger("bot.test").exception("a fault")
    text = log.getvalue()
    assert "responded with 429" in text and "Traceback" in text
    assert "/interactions/123456789/***/callback" in text
    assert shows_a_secret(text) == []


def test_at_info_the_loggers_are_left_as_they_are(restored):
    lifecycle.set_up_logging(logging.INFO, handler=logging.NullHandler())
    assert all(logging.getLogger(name).level == logging.NOTSET
               for name in lifecycle.QUIET_AT_DEBUG)


class Failing:
    """A bot whose log-in fails with a message holding the secrets (as a library might)."""

    def __init__(self, error: Exception):
        self.error = error
        self.application_id = None

    async def login(self, token: str) -> None:
        raise self.error

    def is_closed(self) -> bool:
        return True


@pytest.mark.parametrize("error", [
    RuntimeError(f"a fault near {TOKEN} and {PASSWORD}"),  # a bug: a traceback
    StorageError(f"Cannot connect to PostgreSQL at postgresql://cardtable:"
                           f"{PASSWORD}@db: gone"),  # a sentence
])
def test_a_failed_start_shows_neither_the_token_nor_the_password(capsys, error):
    status = lifecycle.run(Failing(error), TOKEN, settings().secrets())
    err = capsys.readouterr().err
    assert status == lifecycle.EXIT_RETRY
    assert ("Traceback" in err) == isinstance(error, RuntimeError)
    assert "***" in err and shows_a_secret(err) == []
