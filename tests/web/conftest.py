"""The web table's tests use the end-to-end tests' fake Discord, users and bots."""

from tests.e2e.conftest import (  # noqa: F401 - fixtures, found by their names
    alice,
    bob,
    clock,
    cy,
    db_path,
    fake,
    general,
    new_bot,
    run_bot,
    users,
)
