"""Settings from the environment and .env; a missing token explains how to get one."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from bot.settings import SettingsError, load_settings

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
