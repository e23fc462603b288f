"""A throw-away PostgreSQL cluster for the storage benchmarks and the tests.

``PostgresCluster().start()`` runs ``initdb`` and ``pg_ctl`` in a fresh temporary
directory (fsync off: nothing here must survive), listening on 127.0.0.1 on a free
port with trust authentication, and returns the DSN of its ``postgres`` database;
``create_database()`` gives a fresh, empty database (copied from an empty template,
which is fast) and ``stop()`` stops the server and removes the directory. ``halt()`` and
``resume()`` stop and start the server under its clients (same port, same data), for the
kill soak; with ``crash_safe`` its commits survive an immediate stop.

PostgreSQL refuses to run as root: as root the binaries run as the ``postgres`` OS
user (which owns the directory); otherwise as the current user. The binaries are
looked up in ``/usr/lib/postgresql/<highest version>/bin`` (Debian, Ubuntu), then on
``PATH``; ``PostgresUnavailable`` says clearly when there are none. A watchdog process
stops the server and removes the directory if this process dies without ``stop()``
(killed by a timeout, say), so no server outlives its run.

It lives in ``testkit`` so that the tests (through ``tests/pgserver.py``, which re-exports
it) and the benchmarks share it without the benchmarks importing tests.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, ClassVar, Final

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

DEBIAN_ROOT: Final = Path("/usr/lib/postgresql")
SERVER_BINARIES: Final = ("initdb", "pg_ctl", "postgres")
TEMPLATE: Final = "cardtable_empty"
_SAFE_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")

# Waits until the cluster's owner closes the pipe (it stopped the cluster, or died),
# then stops the server if it still runs and removes the directory.
_WATCHDOG = """
import os, shutil, signal, subprocess, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
sys.stdin.buffer.read()
pg_ctl, base, uid, gid = sys.argv[1:5]
data = os.path.join(base, "data")
if os.path.exists(os.path.join(data, "postmaster.pid")):
    who = {} if uid == "-" else {"user": int(uid), "group": int(gid), "extra_groups": []}
    subprocess.run([pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"], cwd="/",
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **who)
shutil.rmtree(base, ignore_errors=True)
"""


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server binaries, or the cluster would not start."""


def find_binaries() -> Path:
    """The folder holding ``initdb``, ``pg_ctl`` and ``postgres``."""
    versions = []
    if DEBIAN_ROOT.is_dir():
        for entry in DEBIAN_ROOT.iterdir():
            with contextlib.suppress(ValueError):
                versions.append((int(entry.name), entry / "bin"))
    for _, folder in sorted(versions, reverse=True):
        if all((folder / name).is_file() for name in SERVER_BINARIES):
            return folder
    on_path = [shutil.which(name) for name in SERVER_BINARIES]
    if all(on_path):
        return Path(str(on_path[0])).parent
    raise PostgresUnavailable(
        "No PostgreSQL server binaries (initdb, pg_ctl, postgres) were found in "
        f"{DEBIAN_ROOT}/<version>/bin nor on PATH: install PostgreSQL (Debian/Ubuntu: "
        "apt-get install postgresql) to run the PostgreSQL tests and benchmarks.")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run_sql(dsn: str, *statements: str) -> None:
    """Run statements on a database, each on its own (CREATE DATABASE cannot be in a
    transaction), from any thread and inside a running event loop or not."""
    _Admin.of(dsn).run(statements)


class _Admin:
    """One connection per DSN, on an event loop of its own in a daemon thread: creating a
    database is then one round trip, not a new loop and a new connection each time."""

    _open: ClassVar[dict[str, _Admin]] = {}
    _guard: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, dsn: str) -> None:
        self._dsn = dsn
        self._loop = asyncio.new_event_loop()
        self._conn: asyncpg.Connection | None = None
        threading.Thread(target=self._loop.run_forever, name="pgcluster-admin",
                         daemon=True).start()

    @classmethod
    def of(cls, dsn: str) -> _Admin:
        with cls._guard:
            if dsn not in cls._open:
                cls._open[dsn] = cls(dsn)
            return cls._open[dsn]

    @classmethod
    def forget(cls, prefix: str) -> None:
        """Close the connections to every DSN starting with ``prefix`` (a cluster's)."""
        with cls._guard:
            gone = [cls._open.pop(dsn) for dsn in list(cls._open) if dsn.startswith(prefix)]
        for admin in gone:
            admin.close()

    def run(self, statements: tuple[str, ...]) -> None:
        asyncio.run_coroutine_threadsafe(self._run(statements), self._loop).result(120)

    async def _run(self, statements: tuple[str, ...]) -> None:
        if self._conn is None or self._conn.is_closed():
            self._conn = await asyncpg.connect(self._dsn, timeout=30)
        for statement in statements:
            await self._conn.execute(statement, timeout=60)

    def close(self) -> None:
        async def close() -> None:
            if self._conn is not None and not self._conn.is_closed():
                self._conn.terminate()

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(close(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)


class PostgresCluster:
    """One throw-away cluster: ``start()`` → DSN, ``create_database()``, ``stop()``."""

    def __init__(self, binaries: Path | None = None, *, max_connections: int = 300,
                 crash_safe: bool = False) -> None:
        self._binaries = binaries
        self._max_connections = max_connections
        # A commit is on disk when it returns (synchronous_commit), so an immediate stop
        # (``halt``) loses none; fsync stays off: only the machine's crash could lose it.
        self._crash_safe = crash_safe
        self._base: Path | None = None
        self._port = 0
        self._numbers = itertools.count(1)
        self._run_as: tuple[int, int] | None = None  # (uid, gid) when we are root
        self._watchdog: subprocess.Popen[bytes] | None = None

    @property
    def port(self) -> int:
        return self._port

    @property
    def crash_safe(self) -> bool:
        return self._crash_safe

    def dsn(self, database: str = "postgres") -> str:
        if not self._port:
            raise RuntimeError("the cluster is not started")
        return f"postgresql://postgres@127.0.0.1:{self._port}/{database}"

    def start(self) -> str:
        """Create and start the cluster; the DSN of its ``postgres`` database."""
        if self._base is not None:
            return self.dsn()
        binaries = self._binaries = self._binaries or find_binaries()
        if os.geteuid() == 0:
            try:
                user = pwd.getpwnam("postgres")
            except KeyError:
                raise PostgresUnavailable(
                    "Running as root, PostgreSQL needs an unprivileged OS user to run as, "
                    "and there is no 'postgres' user.") from None
            self._run_as = (user.pw_uid, user.pw_gid)
        base = Path(tempfile.mkdtemp(prefix="cardtable-pg-"))
        self._base = base
        atexit.register(self.stop)
        uid, gid = (str(n) for n in self._run_as) if self._run_as else ("-", "-")
        self._watchdog = subprocess.Popen(
            [sys.executable, "-c", _WATCHDOG, str(binaries / "pg_ctl"), str(base), uid, gid],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            cwd="/", start_new_session=True)
        try:
            (base / "sock").mkdir()
            if self._run_as is not None:
                for path in (base, base / "sock"):
                    os.chown(path, *self._run_as)
            self._run(binaries / "initdb", "-D", str(base / "data"), "--auth=trust",
                      "--username=postgres", "--encoding=UTF8", "--locale=C", "--no-sync")
            self._configure(base / "data" / "postgresql.conf", base / "sock")
            self._start_server(binaries, base)
            run_sql(self.dsn(), f'CREATE DATABASE "{TEMPLATE}" TEMPLATE template0')
        except BaseException:
            self.stop()
            raise
        return self.dsn()

    def _configure(self, conf: Path, sockets: Path) -> None:
        settings = {
            "listen_addresses": "'127.0.0.1'", "unix_socket_directories": f"'{sockets}'",
            "max_connections": str(self._max_connections), "fsync": "off",
            "synchronous_commit": "on" if self._crash_safe else "off",
            "full_page_writes": "off", "log_min_messages": "fatal",
            "logging_collector": "off",
        }
        with conf.open("a", encoding="utf-8") as file:  # keeps the owner of the file
            file.write("\n# cardtable's throw-away cluster\n")
            file.writelines(f"{key} = {value}\n" for key, value in settings.items())

    def _start_server(self, binaries: Path, base: Path) -> None:
        last: Exception | None = None
        for _ in range(5):  # another process may take the free port first
            self._port = free_port()
            try:
                self._run(binaries / "pg_ctl", "-D", str(base / "data"), "-l",
                          str(base / "server.log"), "-w", "-t", "60",
                          "-o", f"-p {self._port}", "start")
                return
            except PostgresUnavailable as error:
                last = error
        raise PostgresUnavailable(f"The PostgreSQL server would not start: {last}")

    def _run(self, *command: str | Path) -> None:
        assert self._base is not None
        options: dict[str, Any] = {}
        if self._run_as is not None:
            options = {"user": self._run_as[0], "group": self._run_as[1], "extra_groups": []}
        try:
            subprocess.run([str(part) for part in command], check=True, capture_output=True,
                           text=True, cwd=self._base, timeout=120, **options)
        except subprocess.CalledProcessError as error:
            log = self._base / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise PostgresUnavailable(
                f"{Path(command[0]).name} failed ({error.returncode}): "
                f"{error.stderr.strip() or error.stdout.strip()} {tail}".strip()) from None

    def halt(self, mode: str = "fast") -> None:
        """Stop the server as an operator or a crash would (``fast``: sessions ended, a
        clean shutdown; ``immediate``: no shutdown at all, recovery at the next start),
        keeping its data directory and port for ``resume``. Clients' connections die."""
        if mode not in ("fast", "immediate"):
            raise ValueError(f"not a pg_ctl stop mode here: {mode!r}")
        if self._base is None or not self._port:
            raise RuntimeError("the cluster is not started")
        _Admin.forget(self.dsn(""))  # their connections die with the server
        self._run((self._binaries or find_binaries()) / "pg_ctl", "-D",
                  str(self._base / "data"), "-m", mode, "-w", "-t", "60", "stop")

    def resume(self) -> None:
        """Start a ``halt``-ed server again on the same port and data directory, so that
        clients reconnect with the DSNs they had."""
        if self._base is None or not self._port:
            raise RuntimeError("the cluster is not started")
        self._run((self._binaries or find_binaries()) / "pg_ctl", "-D",
                  str(self._base / "data"), "-l", str(self._base / "server.log"), "-w",
                  "-t", "60", "-o", f"-p {self._port}", "start")

    def create_database(self, name: str | None = None) -> str:
        """A fresh empty database; its DSN."""
        name = name or f"db_{os.getpid()}_{next(self._numbers)}"
        if not _SAFE_NAME.fullmatch(name):
            raise ValueError(f"not a plain database name: {name!r}")
        run_sql(self.dsn(), f'CREATE DATABASE "{name}" TEMPLATE "{TEMPLATE}"')
        return self.dsn(name)

    def drop_database(self, dsn_or_name: str) -> None:
        """Drop a database made by ``create_database``, closing what is still connected."""
        name = dsn_or_name.rsplit("/", 1)[-1]
        if not _SAFE_NAME.fullmatch(name):
            raise ValueError(f"not a plain database name: {name!r}")
        run_sql(self.dsn(), f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        """Stop the server (at once: nothing is kept) and remove the cluster's directory."""
        base, self._base = self._base, None
        if base is None:
            return
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)
        if self._port:
            _Admin.forget(self.dsn(""))
        if (base / "data" / "postmaster.pid").exists():
            self._base = base
            try:
                self._run((self._binaries or find_binaries()) / "pg_ctl", "-D",
                          str(base / "data"), "-m", "immediate", "-w", "stop")
            except (PostgresUnavailable, OSError, subprocess.SubprocessError):
                pass
            finally:
                self._base = None
        self._port = 0
        shutil.rmtree(base, ignore_errors=True)
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is not None and watchdog.stdin is not None:
            watchdog.stdin.close()  # its work is done: it finds nothing left
            with contextlib.suppress(subprocess.TimeoutExpired):
                watchdog.wait(30)

    def __enter__(self) -> PostgresCluster:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

