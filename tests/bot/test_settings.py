"""Settings from the environment and .env; a missing token explains how to get one."""

from __future__ import annotations

import dataclasses
import logging
import re
import subprocess
import sys
import traceback
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from dotenv import dotenv_values

from bot.app.lifecycle import hide
from bot.config.settings import Settings, SettingsError, Timing, load_settings

ROOT = Path(__file__).resolve().parents[2]


def test_defaults_need_only_the_token():
    settings = load_settings({"DISCORD_TOKEN": " abc "})
    assert settings.token == "abc"
    assert settings.database_path == Path("data/cardtable.db")
    assert settings.dev_guild_id is None and settings.log_level == logging.INFO


def test_every_setting_is_read():
    settings = load_settings({"DISCORD_TOKEN": "t", "DATABASE_PATH": "/tmp/x.db",
                              "DEV_GUILD_ID": "1234", "LOG_LEVEL": "debug"})
    assert (settings.database_path, settings.dev_guild_id, settings.log_level) == \
        (Path("/tmp/x.db"), 1234, logging.DEBUG)


@pytest.mark.parametrize(("env", "text"), [
    ({"DISCORD_TOKEN": "t", "DEV_GUILD_ID": "my server"}, "DEV_GUILD_ID must be"),
    ({"DISCORD_TOKEN": "t", "LOG_LEVEL": "LOUD"}, "LOG_LEVEL must be"),
])
def test_bad_values_are_explained(env, text):
    with pytest.raises(SettingsError, match=text):
        load_settings(env)


def test_a_missing_token_explains_where_to_get_one():
    with pytest.raises(SettingsError) as error:
        load_settings({"DISCORD_TOKEN": "  "})
    text = str(error.value)
    assert "DISCORD_TOKEN" in text and ".env" in text
    assert "discord.com/developers/applications" in text and "\n" not in text


def test_dotenv_is_read_but_the_environment_wins(tmp_path, monkeypatch):
    (tmp_path / ".env").write_text("DISCORD_TOKEN=from-file\nDATABASE_PATH=file.db\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISCORD_TOKEN", "")  # so that the token .env sets is undone after
    monkeypatch.delenv("DISCORD_TOKEN")
    monkeypatch.setenv("DATABASE_PATH", "env.db")
    settings = load_settings()
    assert settings.token == "from-file" and settings.database_path == Path("env.db")


def test_python_m_bot_without_a_token_exits_with_the_explanation(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "DISCORD_TOKEN is not set" in result.stderr


def test_the_health_endpoint_is_off_by_default():
    settings = load_settings({"DISCORD_TOKEN": "t", "HEALTH_PORT": " "})
    assert settings.health_port is None and settings.health_host == "127.0.0.1"


@pytest.mark.parametrize(("env", "port", "host"), [
    ({"HEALTH_PORT": "8080"}, 8080, "127.0.0.1"),
    ({"HEALTH_PORT": " 1 ", "HEALTH_HOST": " 0.0.0.0 "}, 1, "0.0.0.0"),
    ({"HEALTH_PORT": "65535", "HEALTH_HOST": "::"}, 65535, "::"),
    ({"HEALTH_PORT": "9000", "HEALTH_HOST": "[::1]"}, 9000, "::1"),
    ({"HEALTH_PORT": "9000", "HEALTH_HOST": "localhost"}, 9000, "localhost"),
    ({"HEALTH_HOST": "bot.internal"}, None, "bot.internal"),
])
def test_the_health_settings_are_read(env, port, host):
    settings = load_settings({"DISCORD_TOKEN": "t", **env})
    assert (settings.health_port, settings.health_host) == (port, host)


@pytest.mark.parametrize("raw", ["0", "65536", "-1", "80.5", "http", "８０８０", "²"])
def test_a_bad_health_port_is_explained(raw):
    with pytest.raises(SettingsError, match=r"HEALTH_PORT must be a port number from 1 to "
                                            r"65535 \(or empty to switch the health"):
        load_settings({"DISCORD_TOKEN": "t", "HEALTH_PORT": raw})


@pytest.mark.parametrize("raw", ["http://0.0.0.0", "0.0.0.0:8080", "my host", "-x"])
def test_a_bad_health_host_is_explained(raw):
    with pytest.raises(SettingsError, match="HEALTH_HOST must be an address to listen on"):
        load_settings({"DISCORD_TOKEN": "t", "HEALTH_HOST": raw})


def test_settings_built_by_hand_keep_working_without_the_new_fields(tmp_path):
    settings = Settings(token="t", database_path=tmp_path / "x.db", dev_guild_id=None,
                        log_level=logging.INFO, timing=Timing(pause=0))
    assert settings.health_port is None and settings.health_host == "127.0.0.1"


def test_env_example_lists_every_setting_and_loads():
    source = (ROOT / "bot" / "config" / "settings.py").read_text()
    read = set(re.findall(r'env\.get\("([A-Z_]+)"', source))
    example = dotenv_values(ROOT / ".env.example")
    assert read <= set(example), f"missing from .env.example: {read - set(example)}"
    assert {"HEALTH_PORT", "HEALTH_HOST"} <= read
    values = {k: v or "" for k, v in example.items()}
    settings = load_settings({**values, "DISCORD_TOKEN": "t"})
    assert settings.health_port is None, "the example keeps the endpoint off"


# -- more than one process ------------------------------------------------------------


def test_one_process_on_sqlite_is_the_default():
    settings = load_settings({"DISCORD_TOKEN": "t"})
    assert settings.database_url is None and settings.ai_workers is None
    assert settings.shards.count is None and settings.shards.owns_guild(123 << 22)
    assert settings.shards.receives_dms


def test_shards_postgres_and_ai_workers_are_read():
    settings = load_settings({"DISCORD_TOKEN": "t", "SHARD_COUNT": "4",
                              "SHARD_IDS": "3, 1-2", "AI_WORKERS": "3",
                              "DATABASE_URL": " postgresql://u:p@db:5432/cardtable "})
    assert settings.database_url == "postgresql://u:p@db:5432/cardtable"
    assert settings.shards.count == 4 and settings.shards.ids == (1, 2, 3)
    assert settings.ai_workers == 3
    assert not settings.shards.receives_dms, "DM events go to shard 0 only"


def test_a_server_belongs_to_discords_shard_of_it():
    shards = load_settings({"DISCORD_TOKEN": "t", "SHARD_COUNT": "2", "SHARD_IDS": "1",
                            "DATABASE_URL": "postgresql://db/x"}).shards
    on_one, on_zero = (5 << 22) | 12345, (6 << 22) | 12345  # (id >> 22) % 2: 1 and 0
    assert shards.of_guild(on_one) == 1 and shards.owns_guild(on_one)
    assert shards.of_guild(on_zero) == 0 and not shards.owns_guild(on_zero)
    assert shards.of_guild(None) == 0, "a table without a server is shard 0's (DMs)"


@pytest.mark.parametrize(("env", "text"), [
    ({"SHARD_IDS": "0"}, "SHARD_IDS needs SHARD_COUNT"),
    ({"SHARD_COUNT": "0"}, "SHARD_COUNT must be"),
    ({"SHARD_COUNT": "two"}, "SHARD_COUNT must be"),
    ({"SHARD_COUNT": "2", "SHARD_IDS": "2", "DATABASE_URL": "postgresql://db/x"},
     "from 0 to 1"),
    ({"SHARD_COUNT": "2", "SHARD_IDS": "a"}, "SHARD_IDS must list"),
    ({"SHARD_COUNT": "2", "SHARD_IDS": "1"}, "share one PostgreSQL"),
    ({"DATABASE_URL": "mysql://db/x"}, "DATABASE_URL must be a PostgreSQL URL"),
    ({"AI_WORKERS": "0"}, "AI_WORKERS must be"),
])
def test_bad_scale_settings_are_explained(env, text):
    with pytest.raises(SettingsError, match=text):
        load_settings({"DISCORD_TOKEN": "t", **env})


def test_every_shard_in_one_process_may_stay_on_sqlite():
    settings = load_settings({"DISCORD_TOKEN": "t", "SHARD_COUNT": "2", "SHARD_IDS": "0-1"})
    assert settings.database_url is None and settings.shards.ids == (0, 1)


# -- secrets: the token and the database password -------------------------------------

TOKEN = "MTIzNDU2Nzg5MDEy.Gabcde.the-bots-own-token"
# (the password as written in DATABASE_URL, percent-encoded; the password it stands for)
PASSWORDS = [("pa%23ss%2Fword", "pa#ss/word"), ("s3cr%2F%2Fet%23%23", "s3cr//et##"),
             ("plain-secret", "plain-secret"), ("with%40at%3Fand%25", "with@at?and%")]


@dataclasses.dataclass
class Holder:
    """Settings inside another dataclass, as a traceback or a log line might show it."""

    settings: Settings
    more: list[Settings]


@pytest.mark.parametrize(("written", "password"), PASSWORDS)
@pytest.mark.parametrize("where", ["", "?sslmode=require&password={}"])
def test_the_settings_never_show_the_token_or_the_database_password(written, password, where):
    url = f"postgresql://cardtable:{written}@db.example:5432/cardtable" + where.format(written)
    settings = load_settings({"DISCORD_TOKEN": TOKEN, "DATABASE_URL": url})
    assert settings.token == TOKEN and settings.database_url == url  # kept for use
    for shown in (repr(settings), str(settings), f"{settings}", repr(Holder(settings, [settings])),
                  repr({"settings": settings})):
        assert TOKEN not in shown and written not in shown and password not in shown
        assert "db.example:5432/cardtable" in shown and "cardtable:***@" in shown
        assert "token=<hidden>" in shown and "shards=Shards(" in shown
    assert set(settings.secrets()) >= {TOKEN, written, password}


def test_settings_without_a_database_url_show_the_rest():
    shown = repr(load_settings({"DISCORD_TOKEN": TOKEN, "DATABASE_PATH": "games.db"}))
    assert TOKEN not in shown and "database_url=None" in shown and "games.db" in shown


@pytest.mark.parametrize("password", ["kq7v#zx9w", "1234#zx9wq", "kq7v/zx9w", "9876/zx9wq",
                                      "kq7v?zx9w", "kq7v@zx9w", "zx9wq#", "/zx9wq"])
def test_a_password_not_percent_encoded_is_refused_without_being_shown(password):
    url = f"postgresql://cardtable:{password}@db.example:5432/cardtable"
    with pytest.raises(SettingsError) as refused:
        load_settings({"DISCORD_TOKEN": TOKEN, "DATABASE_URL": url})
    told = "".join(traceback.format_exception(refused.value))
    assert "percent-encoded" in told and "# as %23" in told and "/ as %2F" in told
    pieces = [p for p in re.split(r"[#/?@]", password) if p] + [password]
    assert not [piece for piece in pieces if piece in told]
    assert refused.value.__context__ is None  # no parser's error (and its text) behind it


@pytest.mark.parametrize("url", ["postgresql://db.example/cardtable#x",
                                 "postgresql://cardtable:secret@db.example:port/cardtable",
                                 "postgresql://cardtable:secret@[db/cardtable"])
def test_a_database_url_that_does_not_read_is_refused(url):
    with pytest.raises(SettingsError, match="DATABASE_URL cannot be read"):
        load_settings({"DISCORD_TOKEN": "t", "DATABASE_URL": url})


@pytest.mark.parametrize("url", ["postgresql:///cardtable", "postgres://db/x",
                                 "postgresql://u@[::1]:5433/db?sslmode=require",
                                 "postgresql://u:p%40ss@db/x?options=-c%20a%3Db"])
def test_database_urls_that_read_are_kept_as_written(url):
    assert load_settings({"DISCORD_TOKEN": "t", "DATABASE_URL": url}).database_url == url


# -- the request budget of several shard processes -------------------------------------


@pytest.mark.parametrize(("count", "ids", "share"), [
    ("", "", 1.0), ("4", "", 1.0), ("4", "0-3", 1.0), ("2", "0", 0.5), ("2", "1", 0.5),
    ("4", "1,3", 0.5), ("3", "2", 1 / 3), ("16", "0-11", 0.75)])
def test_a_process_takes_its_shards_share_of_the_request_budget(count, ids, share):
    env = {"DISCORD_TOKEN": "t", "SHARD_COUNT": count, "SHARD_IDS": ids,
           "DATABASE_URL": "postgresql://db/x"}
    assert load_settings(env).shards.share == pytest.approx(share)


def test_a_password_that_is_also_the_user_name_is_hidden_only_where_it_is_the_password():
    """The log hides each secret wherever it appears; a password that is the user's (or
    database's) name as well would hide every mention of the bot's name, and is no
    secret from a reader of the log who sees the user's name."""
    url = "postgresql://cardtable:cardtable@db.example/cardtable"
    settings = load_settings({"DISCORD_TOKEN": TOKEN, "DATABASE_URL": url})
    assert settings.secrets() == (TOKEN,)
    assert "postgresql://cardtable:***@db.example/cardtable" in repr(settings)


# -- the database password from a file (a container's secret) ---------------------------

# What asyncpg reads back from the URL: urllib's split and unquote, as it does.
def url_password(url: str) -> str:
    return unquote(urlsplit(url).password or "")


HOSTILE = "p@ss/w#rd?%&=: ünï\tcode"


@pytest.mark.parametrize(("content", "password"), [
    (HOSTILE + "\n", HOSTILE), (HOSTILE, HOSTILE), ("crlf-ended\r\n", "crlf-ended"),
    ("two lines\nkept\n", "two lines\nkept"), (" spaced \n", " spaced ")])
def test_the_database_password_is_read_from_its_file_into_the_url(tmp_path, content,
                                                                  password):
    secret = tmp_path / "postgres_password"
    secret.write_bytes(content.encode())
    settings = load_settings({"DISCORD_TOKEN": TOKEN, "DATABASE_PASSWORD_FILE": str(secret),
                              "DATABASE_URL": "postgresql://cardtable@postgres:5432/cardtable"
                                              "?sslmode=prefer"})
    url = settings.database_url
    assert url is not None and url_password(url) == password
    parts = urlsplit(url)
    assert (parts.username, parts.hostname, parts.port, parts.path, parts.query) == (
        "cardtable", "postgres", 5432, "/cardtable", "sslmode=prefer")
    for shown in (repr(settings), str(settings), repr(Holder(settings, [settings]))):
        assert password not in shown and "cardtable:***@postgres:5432" in shown
    assert password in settings.secrets()
    line = hide(f"cannot connect to {url}: {password!s} refused", settings.secrets())
    assert password not in line and url not in line


@pytest.mark.parametrize(("url", "text"), [
    ("", "DATABASE_PASSWORD_FILE needs DATABASE_URL"),
    ("postgresql://cardtable:other@postgres/cardtable", "names the user and no password"),
    ("postgresql://postgres:5432/cardtable", "names the user and no password"),
    ("postgresql://cardtable@postgres/cardtable?password=x", "names the user and no password"),
])
def test_a_password_file_needs_a_url_with_the_user_and_no_password(tmp_path, url, text):
    secret = tmp_path / "postgres_password"
    secret.write_text("s3cret-from-file\n")
    with pytest.raises(SettingsError, match=text) as refused:
        load_settings({"DISCORD_TOKEN": "t", "DATABASE_URL": url,
                       "DATABASE_PASSWORD_FILE": str(secret)})
    assert "s3cret-from-file" not in str(refused.value)


@pytest.mark.parametrize(("content", "text"), [
    (None, "cannot be read: No such file or directory"), (b"", "is empty"), (b"\n", "is empty"),
    (b"\xffs3cret\xfe", "is not UTF-8 text")])
def test_an_unreadable_password_file_is_named_and_its_content_never_shown(tmp_path, content,
                                                                          text):
    secret = tmp_path / "postgres_password"
    if content is not None:
        secret.write_bytes(content)
    with pytest.raises(SettingsError, match=text) as refused:
        load_settings({"DISCORD_TOKEN": "t", "DATABASE_PASSWORD_FILE": f" {secret} ",
                       "DATABASE_URL": "postgresql://cardtable@postgres/cardtable"})
    message = str(refused.value)
    assert str(secret) in message and "s3cret" not in message and "xff" not in message


def test_without_a_password_file_the_url_is_kept_as_written():
    url = "postgresql://cardtable@postgres/cardtable"
    env = {"DISCORD_TOKEN": "t", "DATABASE_URL": url, "DATABASE_PASSWORD_FILE": "  "}
    assert load_settings(env).database_url == url


# -- the Discord Activity (bot.config.web_settings) ----------------------------------------

WEB_ON = {"DISCORD_TOKEN": "t", "WEB_PORT": "8090", "PUBLIC_URL": "https://cards.example.org",
          "WEB_SECRET": "w" * 32}
CLIENT_SECRET = "an-oauth2-client-secret-kept-0123"
ACTIVITY_ON = {**WEB_ON, "ACTIVITY": "on", "DISCORD_CLIENT_ID": "1234567890123456789",
               "DISCORD_CLIENT_SECRET": CLIENT_SECRET}


def test_the_activity_is_off_by_default_and_the_web_table_keeps_its_defaults():
    web = load_settings(WEB_ON).web
    assert web is not None and not web.activity
    assert web.client_id == "" and web.client_secret == ""
    assert web.discord_api == "https://discord.com/api/v10"
    assert load_settings({"DISCORD_TOKEN": "t", "ACTIVITY": "off"}).web is None


@pytest.mark.parametrize("on", ["on", "1", "true", "YES", " On "])
def test_the_activity_settings_are_read(on):
    web = load_settings({**ACTIVITY_ON, "ACTIVITY": on,
                         "DISCORD_API": "http://127.0.0.1:9000/api/v10/"}).web
    assert web is not None and web.activity
    assert web.client_id == "1234567890123456789" and web.client_secret == CLIENT_SECRET
    assert web.discord_api == "http://127.0.0.1:9000/api/v10"
    assert load_settings(ACTIVITY_ON).web.discord_api == "https://discord.com/api/v10"


@pytest.mark.parametrize(("env", "text"), [
    ({"DISCORD_TOKEN": "t", "ACTIVITY": "on"}, "ACTIVITY=on needs the web table"),
    ({**ACTIVITY_ON, "ACTIVITY": "maybe"}, "ACTIVITY must be on or off"),
    ({**ACTIVITY_ON, "DISCORD_CLIENT_ID": ""}, "ACTIVITY=on needs DISCORD_CLIENT_ID"),
    ({**ACTIVITY_ON, "DISCORD_CLIENT_ID": "cardtable"}, "DISCORD_CLIENT_ID must be the"),
    ({**ACTIVITY_ON, "DISCORD_CLIENT_SECRET": " "}, "ACTIVITY=on needs DISCORD_CLIENT_SECRET"),
    ({**ACTIVITY_ON, "DISCORD_API": "discord.com/api"}, "DISCORD_API must be the address"),
])
def test_bad_activity_settings_are_explained(env, text):
    with pytest.raises(SettingsError, match=re.escape(text)) as caught:
        load_settings(env)
    assert CLIENT_SECRET not in str(caught.value)


def test_the_client_secret_is_a_secret_never_shown():
    settings = load_settings(ACTIVITY_ON)
    for shown in (repr(settings), str(settings), repr(settings.web)):
        assert CLIENT_SECRET not in shown
    assert CLIENT_SECRET in settings.secrets() and "w" * 32 in settings.secrets()
    assert CLIENT_SECRET not in load_settings({**ACTIVITY_ON, "ACTIVITY": ""}).secrets()
