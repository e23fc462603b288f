"""A real PostgreSQL server for the tests: a throw-away cluster (``testkit.pgcluster``,
which the storage benchmarks use too; it lives in ``testkit`` so that tests and
benchmarks share it, and is re-exported here).

``PostgresServer().start()`` → the DSN of its ``postgres`` database; ``create_database()``
→ the DSN of a fresh empty one; ``stop()`` stops it and removes its directory. The
fixtures ``postgres_server`` (one per session) and ``postgres_url`` (a fresh database per
test) are in ``tests/conftest.py``, so any test directory can use them.
"""

from __future__ import annotations

from testkit.pgcluster import PostgresCluster, PostgresUnavailable, find_binaries, run_sql

PostgresServer = PostgresCluster

__all__ = ["PostgresServer", "PostgresUnavailable", "find_binaries", "run_sql"]
