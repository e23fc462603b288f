"""Settings from the environment or a ``.env`` file, and the bot's timing knobs.

Only ``DISCORD_TOKEN`` is required. Everything else has a default so a new user
can start the bot with one line in ``.env``. ``HEALTH_PORT`` switches on the health
and metrics endpoint (``bot.app.health``); it is off by default.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from urllib.parse import (
    parse_qsl,
    quote,
    unquote,
    unquote_plus,
    urlencode,
    urlsplit,
    urlunsplit,
)

from dotenv import find_dotenv, load_dotenv

from bot.config.settings_errors import SettingsError
from bot.config.web_settings import WebSettings, web_settings

MISSING_TOKEN_HELP = (
    "cardtable cannot start: DISCORD_TOKEN is not set. Create an application at "
    "https://discord.com/developers/applications, open its Bot page, press \"Reset Token\" "
    "and copy the token; then put the line DISCORD_TOKEN=<your token> into a file named .env "
    "in the folder you start the bot from (copy .env.example to begin), or export it in your "
    "shell, and run `python -m bot` again. docs/running-the-bot.md explains every step, "
    "including the invite link that adds the bot to your server."
)


DEFAULT_HEALTH_HOST = "127.0.0.1"  # the health endpoint answers this machine only




@dataclass(frozen=True)
class Timing:
    """Pauses and timers in seconds. Tests set the pauses to 0 so nothing sleeps."""

    pause: float = 1.5  # before a move the bot plays itself, so people can follow
    edit_interval: float = 1.0  # table edits closer together than this are merged
    # While a game runs its table message is only watched (turns are told by DM or a
    # mention): its edits closer than edit_interval × watch_factor are merged.
    watch_factor: float = 30.0
    # Requests/s the bot allows itself (Discord's limit: 50 per token). Several shard
    # processes of one token share it: each takes its shards' part (Shards.share).
    request_rate: float = 45.0
    turn_timer: int = 300  # default seconds a player has for a move
    lobby_idle: float = 15 * 60  # a lobby without activity for this long expires
    retire_after: float = 50 * 60  # a table message this old is replaced by a fresh one
    lock_patience: float = 2.0  # wait this long for a busy table before deferring a click
    # A /start not answered by then shows "thinking…" at once and its answer follows: in a
    # burst of openings, each one's storing and posting waits behind the others'.
    start_answer_within: float = 0.2
    series_pause: float = 8.0  # between the deals of a series (AttackJack), to read the result
    # Several processes: how often a process looks for tables of its shards that nobody
    # drives (their process stopped), and how long it waits for another process's notice
    # of a change before catching up from storage alone.
    takeover_every: float = 5.0
    notice_grace: float = 1.0


@dataclass(frozen=True)
class Shards:
    """Which of Discord's shards this process runs (``SHARD_COUNT``, ``SHARD_IDS``).

    ``count`` None: discord.py asks Discord for the recommended count and this one
    process runs them all (the default). With a count, ``ids`` None means every shard
    of it; several processes each name their own ``ids`` and share one PostgreSQL.
    """

    count: int | None = None
    ids: tuple[int, ...] | None = None

    def runs(self, shard_id: int) -> bool:
        return self.ids is None or shard_id in self.ids

    def of_guild(self, guild_id: int | None) -> int:
        """Discord's shard of a server: ``(guild_id >> 22) % count``; DMs are shard 0."""
        return shard_of(guild_id, self.count or 1)

    def owns_guild(self, guild_id: int | None) -> bool:
        """Whether this process drives the tables of that server (every one when alone)."""
        return self.count is None or self.runs(self.of_guild(guild_id))

    @property
    def receives_dms(self) -> bool:
        """Discord sends DM events (and every click on a DM hand) to shard 0 only."""
        return self.runs(0)

    @property
    def share(self) -> float:
        """This process's part of the token's request budget (``Timing.request_rate``):
        k of n shards take k/n, so the processes of one token together stay within it
        without talking to each other. Shard 0 takes no more for the DM clicks it
        receives: their answers are interaction responses, which Discord does not count,
        and the requests a click leads to (the table's edit, the next hand) are its
        table's owner's, paid from that process's part."""
        if self.count is None or self.ids is None:
            return 1.0
        return len(self.ids) / self.count


def shard_of(guild_id: int | None, count: int) -> int:
    return 0 if not guild_id else (guild_id >> 22) % count


DAY = 86400.0


@dataclass(frozen=True)
class Limits:
    """What the bot allows and how long it keeps tables (``TABLES_PER_HOST``,
    ``TABLES_PER_SERVER``, ``IDLE_TABLE_DAYS``, ``KEEP_CLOSED_TABLES_DAYS``).

    The caps count open tables (lobbies included) of one server, and of one host in it;
    a server's managers may lower the server's cap and set its hosts' anywhere up to it
    (``/settings tables``), never above ``tables_per_server``: the operator's ceiling."""

    tables_per_host: int = 3  # a host's open tables in one server (the default)
    tables_per_server: int = 50  # a server's open tables (the default and the ceiling)
    idle_after: float = 30 * DAY  # a running game with no step for this long is stopped
    keep_closed: float = 30 * DAY  # a closed table's row is deleted this long after
    prune_every: float = DAY / 4  # how often closed tables' rows are looked for

    def __post_init__(self) -> None:
        if not 1 <= self.tables_per_host <= self.tables_per_server:
            raise ValueError("tables_per_host must be from 1 to tables_per_server")


HIDDEN = "<hidden>"


@dataclass(frozen=True, repr=False)
class Settings:
    token: str
    database_path: Path
    dev_guild_id: int | None
    log_level: int
    timing: Timing = Timing()
    health_port: int | None = None  # None: no health endpoint
    health_host: str = DEFAULT_HEALTH_HOST
    # postgresql://user:password@host:port/database: PostgreSQL instead of SQLite at
    # database_path (several shard processes need it: they share one database).
    database_url: str | None = None
    shards: Shards = Shards()
    ai_workers: int | None = None  # processes that search for AI moves; None: cores - 1
    picture_workers: int | None = None  # workers drawing the pictures; None: the default
    limits: Limits = Limits()  # open tables per host and server, idle and closed tables
    web: WebSettings | None = None  # the web table (bot.config.web_settings); None: off

    def __repr__(self) -> str:
        """Every setting but the secrets: no token, no database password (a traceback or
        a log line that shows the settings shows them so)."""
        shown = []
        for field in fields(self):
            value = getattr(self, field.name)
            if field.name == "token":
                text = HIDDEN
            elif field.name == "database_url" and value is not None:
                text = repr(without_password(value))
            else:
                text = repr(value)
            shown.append(f"{field.name}={text}")
        return f"{type(self).__name__}({', '.join(shown)})"

    def secrets(self) -> tuple[str, ...]:
        """What no log line or error may show: the token, the database password as
        written in ``DATABASE_URL`` and decoded (one read from ``DATABASE_PASSWORD_FILE``
        is in that URL too), the web table's secret and the Activity's client secret."""
        found = [self.token, *(url_passwords(self.database_url) if self.database_url else ()),
                 *((self.web.secret.decode(), self.web.client_secret)
                   if self.web is not None else ())]
        return tuple(dict.fromkeys(s for s in found if s))


def load_settings(env: Mapping[str, str] | None = None, dotenv: bool = True) -> Settings:
    """Read the settings; a missing token raises ``SettingsError`` with the explanation."""
    if env is None:
        if dotenv:
            # The .env of the folder the bot is started from; the environment wins.
            load_dotenv(find_dotenv(usecwd=True), override=False)
        env = os.environ
    token = env.get("DISCORD_TOKEN", "").strip()
    if not token:
        raise SettingsError(MISSING_TOKEN_HELP)
    url, shard_set = database_url(env.get("DATABASE_URL", "")), shards(
        env.get("SHARD_COUNT", ""), env.get("SHARD_IDS", ""))
    url = with_password_file(url, env.get("DATABASE_PASSWORD_FILE", ""))
    if shard_set.ids is not None and len(shard_set.ids) < (shard_set.count or 0) \
            and url is None:
        raise SettingsError("SHARD_IDS names only some shards, so other processes run the "
                            "rest: they must share one PostgreSQL database. Set DATABASE_URL "
                            "(postgresql://…) in every process, or leave SHARD_IDS empty.")
    return Settings(
        token=token,
        database_path=Path(env.get("DATABASE_PATH", "").strip() or "data/cardtable.db"),
        dev_guild_id=_guild_id(env.get("DEV_GUILD_ID", "")),
        log_level=_log_level(env.get("LOG_LEVEL", "")),
        health_port=health_port(env.get("HEALTH_PORT", "")),
        health_host=health_host(env.get("HEALTH_HOST", "")),
        database_url=url,
        shards=shard_set,
        ai_workers=ai_workers(env.get("AI_WORKERS", "")),
        picture_workers=picture_workers(env.get("PICTURE_WORKERS", "")),
        limits=limits(env),
        web=web_settings(env),
    )


def limits(env: Mapping[str, str]) -> Limits:
    """``TABLES_PER_HOST``, ``TABLES_PER_SERVER`` (whole numbers), ``IDLE_TABLE_DAYS`` and
    ``KEEP_CLOSED_TABLES_DAYS`` (days, 0 for never); each empty for its default."""
    default = Limits()
    server = _count(env, "TABLES_PER_SERVER", default.tables_per_server, 100_000)
    host = _count(env, "TABLES_PER_HOST", min(default.tables_per_host, server), server)
    return Limits(tables_per_host=host, tables_per_server=server,
                  idle_after=_days(env, "IDLE_TABLE_DAYS", default.idle_after),
                  keep_closed=_days(env, "KEEP_CLOSED_TABLES_DAYS", default.keep_closed))


def _count(env: Mapping[str, str], name: str, default: int, most: int) -> int:
    raw = env.get(name, "")
    text = raw.strip()
    if not text:
        return default
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= most:
        raise SettingsError(f"{name} must be a whole number from 1 to {most} (or empty for "
                            f"{default}), not {raw!r}.")
    return int(text)


def _days(env: Mapping[str, str], name: str, default: float) -> float:
    """Seconds for a number of days (0: never); empty for the default."""
    raw = env.get(name, "")
    text = raw.strip()
    if not text:
        return default
    if not (text.isascii() and text.isdigit()) or int(text) > 3650:
        raise SettingsError(f"{name} must be a number of days from 0 (never) to 3650 (or "
                            f"empty for {default / DAY:.0f}), not {raw!r}.")
    return int(text) * DAY


URL_SCHEMES = ("postgresql://", "postgres://")
UNREADABLE_URL = (
    "DATABASE_URL cannot be read as postgresql://user:password@host:port/database (it is "
    "not repeated here: it may hold a password). A password with @, /, ?, # or % in it "
    "must have them percent-encoded: @ as %40, / as %2F, ? as %3F, # as %23 and % as %25.")


def database_url(raw: str) -> str | None:
    """``DATABASE_URL``: empty for SQLite (``DATABASE_PATH``), else a PostgreSQL URL.

    A URL that cannot be read as one is refused here, without repeating it: a password
    holding ``#``, ``/``, ``?`` or ``@`` unencoded would otherwise be read as part of the
    host, port, path or query, and shown (in part) by the errors of whatever reads it."""
    url = raw.strip()
    if not url:
        return None
    if not url.startswith(URL_SCHEMES):
        raise SettingsError("DATABASE_URL must be a PostgreSQL URL such as "
                            "postgresql://cardtable:secret@localhost:5432/cardtable (or empty "
                            "for the SQLite file at DATABASE_PATH).")
    if not _readable(url):
        raise SettingsError(UNREADABLE_URL)
    return url


def with_password_file(url: str | None, path_raw: str) -> str | None:
    """``DATABASE_PASSWORD_FILE``: the database password read from a file (a container's
    secret, so that no environment holds it) into ``DATABASE_URL``, which then names the
    user and no password. The file's last line break is not part of it. No error here
    repeats the file's content."""
    path = path_raw.strip()
    if not path:
        return url
    if url is None:
        raise SettingsError("DATABASE_PASSWORD_FILE needs DATABASE_URL, with the user and no "
                            "password: postgresql://cardtable@postgres:5432/cardtable.")
    parts = urlsplit(url)
    userinfo, _, host = parts.netloc.rpartition("@")
    in_query = any(key == "password" for key, _ in parse_qsl(parts.query,
                                                             keep_blank_values=True))
    if not userinfo or ":" in userinfo or in_query:
        raise SettingsError("With DATABASE_PASSWORD_FILE, DATABASE_URL names the user and no "
                            "password: postgresql://cardtable@postgres:5432/cardtable.")
    try:
        text = Path(path).read_bytes().decode("utf-8")  # bytes: no newline translation
    except UnicodeDecodeError:
        raise SettingsError(f"DATABASE_PASSWORD_FILE {path} is not UTF-8 text.") from None
    except OSError as error:
        raise SettingsError(f"DATABASE_PASSWORD_FILE {path} cannot be read: "
                            f"{error.strerror or type(error).__name__}.") from None
    password = text.removesuffix("\n").removesuffix("\r")  # as echo or an editor ends it
    if not password:
        raise SettingsError(f"DATABASE_PASSWORD_FILE {path} is empty.")
    netloc = f"{userinfo}:{quote(password, safe='')}@{host}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _readable(url: str) -> bool:
    """Whether a PostgreSQL URL reads unambiguously: one ``@`` at most, ending the user
    and password; a numeric port; no fragment (nothing in such a URL follows a ``#``)."""
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises ValueError for a port that is not a number
    except ValueError:
        return False
    userinfo = parts.netloc.rpartition("@")[0]
    after_host = url.partition("://")[2][len(parts.netloc):]
    return "@" not in userinfo and "@" not in after_host and "#" not in after_host


def url_passwords(url: str) -> list[str]:
    """A URL's password (and any ``password=`` of its query), as written and decoded (but
    not one that is also its user, host or database name: those are shown anyway); of a
    URL that does not read as one, the likeliest password (up to the last ``@``) and its
    pieces between ``#``, ``/``, ``?`` and ``@``, as an error may show a piece."""
    if not _readable(url):
        likeliest = url.partition("://")[2].rpartition("@")[0].partition(":")[2]
        return [likeliest, *re.split(r"[#/?@]", likeliest)]
    parts = urlsplit(url)
    written = [parts.netloc.rpartition("@")[0].partition(":")[2]]
    written += [value for key, _, value in (pair.partition("=")
                                            for pair in parts.query.split("&"))
                if unquote_plus(key) == "password"]
    shown = {parts.username, parts.hostname, unquote(parts.path.removeprefix("/"))}
    return [form for w in written for form in (w, unquote_plus(w), unquote(w))
            if form not in shown]


def without_password(url: str) -> str:
    """The URL with its password (and any ``password=`` in its query) as ``***``; a URL
    that does not read as one shows only its scheme."""
    scheme = url.partition("://")[0] or "postgresql"
    if not _readable(url):
        return f"{scheme}://{HIDDEN}"
    parts = urlsplit(url)
    userinfo, _, host = parts.netloc.rpartition("@")
    user, colon, _password = userinfo.partition(":")
    netloc = f"{user}:***@{host}" if colon else parts.netloc
    query = urlencode([(k, "***" if k == "password" else v)
                       for k, v in parse_qsl(parts.query, keep_blank_values=True)],
                      safe="*")
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")


def shards(count_raw: str, ids_raw: str) -> Shards:
    """``SHARD_COUNT`` (empty: Discord's recommendation, all in this process) and
    ``SHARD_IDS`` (empty: every shard of the count; else ``0,1`` or a range ``0-3``)."""
    count_text, ids_text = count_raw.strip(), ids_raw.strip()
    if not count_text:
        if ids_text:
            raise SettingsError("SHARD_IDS needs SHARD_COUNT: set both (for example "
                                "SHARD_COUNT=2 and SHARD_IDS=0), or neither.")
        return Shards()
    if not (count_text.isascii() and count_text.isdigit()) or int(count_text) < 1:
        raise SettingsError(f"SHARD_COUNT must be a whole number of 1 or more, "
                            f"not {count_raw!r}.")
    count = int(count_text)
    if not ids_text:
        return Shards(count)
    ids: list[int] = []
    for part in ids_text.replace(" ", "").split(","):
        first, dash, last = part.partition("-")
        if not (first.isdigit() and (not dash or last.isdigit())):
            raise SettingsError(f"SHARD_IDS must list shard numbers such as 0,1 or a range "
                                f"such as 0-3, not {ids_raw!r}.")
        ids.extend(range(int(first), int(last if dash else first) + 1))
    if not ids or any(i >= count for i in ids):
        raise SettingsError(f"SHARD_IDS must name shards from 0 to {count - 1} "
                            f"(SHARD_COUNT={count}), not {ids_raw!r}.")
    return Shards(count, tuple(sorted(set(ids))))


def ai_workers(raw: str) -> int | None:
    """``AI_WORKERS``: processes searching AI moves (empty: the cores less one, at least 1)."""
    return _worker_count(raw, "AI_WORKERS", "processes", "the cores less one")


def picture_workers(raw: str) -> int | None:
    """``PICTURE_WORKERS``: workers drawing the pictures (empty: the default, see
    ``bot.images.painter``)."""
    return _worker_count(raw, "PICTURE_WORKERS", "workers", "the default")


def _worker_count(raw: str, name: str, unit: str, empty: str) -> int | None:
    """A count of workers from 1 to 64, or None when ``raw`` is empty."""
    text = raw.strip()
    if not text:
        return None
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 64:
        raise SettingsError(f"{name} must be a number of {unit} from 1 to 64 (or "
                            f"empty for {empty}), not {raw!r}.")
    return int(text)


def _guild_id(raw: str) -> int | None:
    raw = raw.strip()
    if not raw:
        return None
    if not raw.isdigit():
        raise SettingsError(f"DEV_GUILD_ID must be a server id (digits only), not {raw!r}.")
    return int(raw)


def _log_level(raw: str) -> int:
    name = raw.strip().upper() or "INFO"
    level = logging.getLevelName(name)
    if not isinstance(level, int):
        raise SettingsError(f"LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, not {raw!r}.")
    return level


def health_port(raw: str) -> int | None:
    """``HEALTH_PORT``: empty for no health endpoint, else a TCP port from 1 to 65535."""
    raw = raw.strip()
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= 65535:
        raise SettingsError(f"HEALTH_PORT must be a port number from 1 to 65535 (or empty to "
                            f"switch the health endpoint off), not {raw!r}.")
    return int(raw)


_HOST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?")


def health_host(raw: str) -> str:
    """``HEALTH_HOST``: the address the health endpoint listens on (default 127.0.0.1;
    0.0.0.0 for every interface, as in a container)."""
    host = raw.strip()
    if not host:
        return DEFAULT_HEALTH_HOST
    try:
        return str(ipaddress.ip_address(host.removeprefix("[").removesuffix("]")))
    except ValueError:
        pass
    if _HOST_NAME.fullmatch(host) is None:
        raise SettingsError(f"HEALTH_HOST must be an address to listen on, such as 127.0.0.1, "
                            f"0.0.0.0 or localhost, not {raw!r}.")
    return host
