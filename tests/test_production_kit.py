"""The production kit, checked without Docker: the Dockerfile, compose.yaml, the lockfile.

Docker itself is not run here; these are the promises the files make to each other:
the image installs exactly the locked, hashed dependencies and then the project
alone, runs as a user of its own, keeps the games on the volume compose mounts, and
asks the health endpoint bot.app.health really serves.
"""

from __future__ import annotations

import importlib
import json
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from dotenv import dotenv_values
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from bot.app import health
from bot.config.settings import load_settings
from bot.config.web_settings import web_settings

ROOT = Path(__file__).resolve().parents[1]


# -- readers ------------------------------------------------------------------------------


def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined, comments dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if line.strip().startswith("#") or not line.strip():
            continue
        pending += line.rstrip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        word, _, rest = pending.strip().partition(" ")
        out.append((word.upper(), " ".join(rest.split())))
        pending = ""
    assert not pending, "a continuation line runs off the end"
    return out


DIGEST = re.compile(r"[a-z0-9./_-]+:[A-Za-z0-9._-]+@sha256:[0-9a-f]{64}")


def images() -> list[str]:
    """The image each FROM starts from, its ARG defaults put in; a FROM of an earlier
    stage (by its name) is not an image and is left out."""
    args: dict[str, str] = {}
    stages: set[str] = set()
    found = []
    for word, rest in dockerfile():
        if word == "ARG":
            name, _, default = rest.partition("=")
            args[name] = default
        elif word == "FROM":
            image, *alias = rest.split()
            image = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: args[m[1] or m[2]], image)
            if image not in stages:
                found.append(image)
            if alias:
                assert alias[0].upper() == "AS" and len(alias) == 2, rest
                stages.add(alias[1])
    return found


def final_stage() -> list[tuple[str, str]]:
    steps = dockerfile()
    last_from = max(i for i, (word, _) in enumerate(steps) if word == "FROM")
    return steps[last_from:]


def exec_form(arguments: str) -> list[str]:
    value = json.loads(arguments)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value)
    return value


def _scalar(text: str) -> Any:
    assert not text.startswith(("&", "*", "{", "|", ">", "!")), f"not in the subset: {text!r}"
    if text.startswith("["):
        return json.loads(text)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if text in ("true", "false"):
        return text == "true"
    return int(text) if text.isdigit() else text


def _strip_comment(line: str) -> str:
    quote = None
    for i, char in enumerate(line):
        if char in "\"'" and quote in (None, char):
            quote = None if quote else char
        elif char == "#" and quote is None and (i == 0 or line[i - 1] == " "):
            return line[:i].rstrip()
    return line.rstrip()


def read_yaml(text: str) -> Any:
    """The block subset of YAML that compose.yaml is written in: mappings, lists of
    scalars, quoted or plain scalars and JSON-like flow lists. Refuses anything else."""
    lines = [(len(raw) - len(raw.lstrip(" ")), raw.strip())
             for raw in map(_strip_comment, text.splitlines()) if raw.strip()]
    assert all("\t" not in content for _, content in lines), "no tabs in YAML"

    def block(i: int, indent: int) -> tuple[Any, int]:
        if lines[i][1].startswith("- "):
            items: list[Any] = []
            while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
                items.append(_scalar(lines[i][1][2:].strip()))
                i += 1
            return items, i
        mapping: dict[str, Any] = {}
        while i < len(lines) and lines[i][0] == indent:
            content = lines[i][1]
            match = re.fullmatch(r"([A-Za-z0-9_.-]+):(?: (.*))?", content)
            assert match, f"not in the YAML subset this test reads: {content!r}"
            key, value = match.groups()
            assert key not in mapping, f"{key} twice"
            i += 1
            if value:
                mapping[key] = _scalar(value.strip())
            elif i < len(lines) and lines[i][0] > indent:
                mapping[key], i = block(i, lines[i][0])
            else:
                mapping[key] = None
        return mapping, i

    value, end = block(0, lines[0][0])
    assert end == len(lines), f"unexpected indentation at {lines[end][1]!r}"
    return value


def compose(file: str = "compose.yaml") -> dict[str, Any]:
    text = (ROOT / file).read_text()
    data = read_yaml(text)
    try:
        yaml = importlib.import_module("yaml")
    except ImportError:
        pass
    else:  # where PyYAML is installed, the real parser must agree
        assert yaml.safe_load(text) == data
    return data


def service(name: str = "bot") -> dict[str, Any]:
    """A service of compose.yaml alone: ``docker compose up``, one process on SQLite."""
    services = compose()["services"]
    assert list(services) == ["bot"]
    bot: dict[str, Any] = services[name]
    return bot


def _merge(base: Any, over: Any) -> Any:
    """Compose's merge of a file laid over another: mappings key by key, sequences
    (ports, secrets, volumes) joined without repeats, any other value replaced."""
    if isinstance(base, dict) and isinstance(over, dict):
        return {**base, **{k: _merge(base[k], v) if k in base else v for k, v in over.items()}}
    if isinstance(base, list) and isinstance(over, list):
        return base + [item for item in over if item not in base]
    return over


def scaled() -> dict[str, Any]:
    """compose.yaml with compose.scale.yaml laid over it (``-f compose.yaml -f
    compose.scale.yaml``): two shard processes over PostgreSQL, and the web table's."""
    merged: dict[str, Any] = _merge(compose(), compose("compose.scale.yaml"))
    assert list(merged["services"]) == ["bot", "postgres", "bot-shard-1", "web"]
    return merged


def bot_services(project: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The services that run the bot (built from this folder)."""
    return {name: s for name, s in project["services"].items() if "build" in s}


def seconds(duration: str) -> float:
    """A compose duration such as 30s, 1m30s or 90s."""
    parts = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?", duration)
    assert parts and duration, f"not a duration: {duration!r}"
    h, m, s = (float(p) if p else 0.0 for p in parts.groups())
    return h * 3600 + m * 60 + s


def lockfile() -> dict[str, tuple[str, str, list[str]]]:
    """canonical name → (version, marker, hashes) of requirements.lock."""
    text = (ROOT / "requirements.lock").read_text()
    entries: dict[str, tuple[str, str, list[str]]] = {}
    logical = re.sub(r"\\\n\s*", " ", text)
    for line in logical.splitlines():
        line = _strip_comment(line).strip()
        if not line:
            continue
        assert not line.startswith(("-e", "--index-url", "--extra-index-url", "-i",
                                    "--find-links", "-f", "file:")), \
            f"the lockfile must not point anywhere but PyPI: {line!r}"
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)\s*(?:;\s*(.+?))?"
                             r"((?:\s+--hash=sha256:[0-9a-f]{64})+)", line)
        assert match, f"not a pinned line with hashes: {line!r}"
        name, version, marker, hashes = match.groups()
        assert canonicalize_name(name) not in entries, f"{name} twice"
        entries[canonicalize_name(name)] = (version, marker or "",
                                            re.findall(r"sha256:([0-9a-f]{64})", hashes))
    return entries


def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


# -- the lockfile -----------------------------------------------------------------------------


def test_every_runtime_dependency_is_pinned_with_hashes_in_the_lockfile():
    locked = lockfile()
    for spec in pyproject()["project"]["dependencies"]:
        requirement = Requirement(spec)
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{requirement.name} is not in requirements.lock: recompile it"
        version, _, hashes = locked[name]
        assert requirement.specifier.contains(version, prereleases=True), \
            f"requirements.lock pins {name}=={version}, outside {requirement.specifier}"
        assert hashes


def test_the_lockfile_says_how_it_was_made_and_holds_no_test_tools():
    header = (ROOT / "requirements.lock").read_text().splitlines()[:3]
    assert any("--generate-hashes" in line for line in header)
    locked = lockfile()
    for tool in ("pytest", "ruff", "mypy", "hypothesis", "cardtable"):
        assert tool not in locked


# -- the Dockerfile ---------------------------------------------------------------------------


def test_the_image_is_small_and_installs_the_lockfile_with_hashes_then_the_project_alone():
    froms = images()
    assert froms and all("slim" in image or "alpine" in image for image in froms)
    steps = final_stage()
    runs = [args for word, args in steps if word == "RUN"]
    locked = [i for i, run in enumerate(runs) if "pip install" in run and "--require-hashes" in
              run and "requirements.lock" in run]
    project = [i for i, run in enumerate(runs) if "pip install" in run and "--no-deps" in run]
    assert locked and project and locked[0] < project[0], \
        "pip install --require-hashes -r requirements.lock, then the project with --no-deps"
    copies = [args for word, args in steps if word == "COPY"]
    assert any("requirements.lock" in args for args in copies)
    other = [run for i, run in enumerate(runs) if "pip install" in run
             and i not in locked and i not in project]
    assert not other, f"no other pip install in the image: {other}"


def test_the_image_runs_as_a_user_of_its_own():
    steps = final_stage()
    users = [(i, args) for i, (word, args) in enumerate(steps) if word == "USER"]
    assert users, "the image sets a USER"
    index, user = users[-1]
    assert user.split(":")[0] not in ("root", "0")
    cmd = max(i for i, (word, _) in enumerate(steps) if word == "CMD")
    assert index < cmd


def test_the_image_starts_the_console_script():
    (cmd,) = [args for word, args in final_stage() if word == "CMD"]
    assert exec_form(cmd) == ["cardtable"]
    scripts = pyproject()["project"].get("scripts")
    if scripts is None:
        pytest.skip("pyproject.toml has no [project.scripts] cardtable yet")
    assert scripts.get("cardtable") == "bot.__main__:main"


def _env(steps: list[tuple[str, str]]) -> dict[str, str]:
    env: dict[str, str] = {}
    for word, args in steps:
        if word == "ENV":
            for item in shlex.split(args):
                key, _, value = item.partition("=")
                env[key] = value
    return env


def test_the_games_live_on_the_volume_compose_mounts():
    steps = final_stage()
    env = _env(steps)
    volumes = [v for word, args in steps if word == "VOLUME" for v in exec_form(args)]
    database = Path(env["DATABASE_PATH"])
    assert str(database.parent) in volumes
    settings = load_settings({"DISCORD_TOKEN": "t", **env})
    assert settings.database_path == database
    mounts = [entry.split(":") for entry in service()["volumes"]]
    assert any(target == str(database.parent) for _, target, *_ in mounts)
    named = {source for source, *_ in mounts if not source.startswith((".", "/"))}
    assert named <= set(compose().get("volumes") or {}), "named volumes are declared"


def _health_path(command: list[str]) -> str:
    assert command[:3] == ["python", "-m", "bot.app.health"], command
    (path,) = command[3:] or [health.HEALTH_PATH]
    return path


def test_the_healthcheck_asks_the_path_bot_health_serves():
    steps = final_stage()
    (check,) = [args for word, args in steps if word == "HEALTHCHECK"]
    options, _, command = check.partition(" CMD ")
    assert "--start-period=" in options and "--interval=" in options
    assert _health_path(exec_form(command)) == health.HEALTH_PATH
    assert f'"{health.HEALTH_PATH}"' in (ROOT / "bot" / "app" / "health.py").read_text()
    env = _env(steps)
    settings = load_settings({"DISCORD_TOKEN": "t", **env})
    assert settings.health_port is not None and settings.health_host == "0.0.0.0"
    exposed = [args for word, args in steps if word == "EXPOSE"]
    assert str(settings.health_port) in " ".join(exposed)


def test_the_token_stays_out_of_the_image():
    ignored = (ROOT / ".dockerignore").read_text().split()
    for entry in (".env", ".git/", ".venv/", "data/"):
        assert entry in ignored, f".dockerignore leaves out {entry}"
    env = _env(dockerfile())
    assert "DISCORD_TOKEN" not in env


# -- compose.yaml ------------------------------------------------------------------------------


def test_compose_restarts_the_bot_and_checks_its_health():
    bot = service()
    assert bot["restart"] == "unless-stopped"
    assert bot["build"] == "."
    check = bot["healthcheck"]
    assert check["test"][0] == "CMD"
    assert _health_path(check["test"][1:]) == health.HEALTH_PATH
    assert seconds(check["start_period"]) >= 30


def test_compose_takes_the_token_from_an_env_file_and_stops_gracefully():
    bot = service()
    assert ".env" in bot["env_file"]
    environment = bot.get("environment") or {}
    assert "DISCORD_TOKEN" not in environment, "the token comes from .env, not compose.yaml"
    settings = load_settings({"DISCORD_TOKEN": "t", **environment})
    assert settings.health_port is not None and settings.health_host == "0.0.0.0"
    assert str(settings.database_path).startswith("/data/")
    assert bot.get("stop_signal", "SIGTERM") == "SIGTERM"
    assert seconds(bot["stop_grace_period"]) >= 20, "longer than Docker's 10 s default"
    published = [p for p in bot.get("ports", []) if p.endswith(f":{settings.health_port}")]
    assert published and all(p.startswith("127.0.0.1:") for p in published), \
        "the health port is published on this machine only"


def test_compose_scales_to_postgres_and_a_second_shard_process_only_when_asked(tmp_path):
    assert "profiles" not in service(), "docker compose up keeps starting the bot alone"
    project = scaled()
    bot, postgres, shard = (project["services"][n] for n in ("bot", "postgres", "bot-shard-1"))
    assert "postgres" in bot["depends_on"] and "postgres" in shard["depends_on"]
    assert shard["build"] == bot["build"] and shard["env_file"] == bot["env_file"]
    # Each process: the example .env as it is, then compose's environment (which wins),
    # with the password's file wherever the container would find it.
    example = {k: v or "" for k, v in dotenv_values(ROOT / ".env.example").items()}
    password = tmp_path / "postgres_password"
    password.write_text("from-the-secret\n")

    def settings(environment: dict[str, str]) -> Any:
        mounted = {**environment, "DATABASE_PASSWORD_FILE": str(password)}
        return load_settings({**example, "DISCORD_TOKEN": "t", **mounted})

    first, second = settings(bot["environment"]), settings(shard["environment"])
    assert first.database_url and first.database_url == second.database_url
    assert urlsplit(first.database_url).netloc == "cardtable:from-the-secret@postgres:5432"
    assert first.shards.count == second.shards.count == 2
    assert first.shards.ids == (0,) and second.shards.ids == (1,)
    assert first.shards.receives_dms and not second.shards.receives_dms
    ports = [p.split(":")[1] for p in bot["ports"] + shard["ports"]]
    assert len(set(ports)) == len(ports), "each process publishes its own health port"
    environment = postgres["environment"]
    assert (environment["POSTGRES_USER"], environment["POSTGRES_DB"]) == ("cardtable",) * 2
    # The web table's process: the same database, its own port, python -m web.
    web = project["services"]["web"]
    assert web["command"] == ["python", "-m", "web"] and "postgres" in web["depends_on"]
    assert web["environment"]["DATABASE_URL"] == bot["environment"]["DATABASE_URL"]
    assert web_settings({**example, "PUBLIC_URL": "https://cards.example.org",
                         "WEB_SECRET": "s" * 32, **web["environment"]},
                        standalone=True) is not None


def test_every_image_is_pinned_by_digest():
    froms = images()
    assert froms and all(DIGEST.fullmatch(image) for image in froms), froms
    assert len(set(froms)) == 1, "both stages start from the one pinned image"
    for project in (compose(), scaled()):
        for name, entry in project["services"].items():
            if "build" in entry:  # built here, from the pinned base
                assert entry["image"] == "cardtable:latest", name
            else:
                assert DIGEST.fullmatch(entry["image"]), f"{name}: {entry['image']}"


def test_no_bot_container_gets_the_database_password_in_its_environment():
    for project in (compose(), scaled()):
        for name, bot in bot_services(project).items():
            environment = bot.get("environment") or {}
            assert not {"POSTGRES_PASSWORD", "PGPASSWORD"} & set(environment), name
            url = environment.get("DATABASE_URL")
            assert url is None or urlsplit(url).password is None, name
            assert bot["env_file"] == [".env"], name
    # .env is every bot container's environment: nothing tells anyone to put it there.
    assert "POSTGRES_PASSWORD" not in dotenv_values(ROOT / ".env.example")
    for doc in ("compose.yaml", "compose.scale.yaml", "docs/production.md", ".env.example"):
        assert not re.search(r"POSTGRES_PASSWORD=|PGPASSWORD=", (ROOT / doc).read_text()), doc


def test_the_password_secret_is_wired_consistently():
    assert "secrets" not in compose(), "plain docker compose up needs no secret file"
    project = scaled()
    postgres = project["services"]["postgres"]
    assert "POSTGRES_PASSWORD" not in postgres["environment"]
    mounted = postgres["environment"]["POSTGRES_PASSWORD_FILE"]
    assert mounted.startswith("/run/secrets/")
    secret = mounted.removeprefix("/run/secrets/")
    assert postgres["secrets"] == [secret]
    source = project["secrets"][secret]["file"]
    assert source.startswith("./secrets/"), "in the folder git and the image leave out"
    for ignore in (".gitignore", ".dockerignore"):
        assert "secrets/" in (ROOT / ignore).read_text().split(), ignore
    for name, bot in bot_services(project).items():
        assert bot["environment"]["DATABASE_PASSWORD_FILE"] == mounted, name
        assert secret in bot["secrets"], name
    others = [n for n, s in project["services"].items() if secret in s.get("secrets", [])]
    assert sorted(others) == sorted([*bot_services(project), "postgres"])


def test_the_yaml_reader_refuses_what_it_does_not_understand():
    assert read_yaml("a:\n  b: 'x # y'  # comment\n  c:\n    - \"1\"\n    - [2]\n") == \
        {"a": {"b": "x # y", "c": ["1", [2]]}}
    with pytest.raises(AssertionError):
        read_yaml("a: 1\n  b: 2\n")
    with pytest.raises(AssertionError):
        read_yaml("a: &anchor {b: 1}\n")
    with pytest.raises(AssertionError):
        read_yaml("a: 1\nb c\n")
