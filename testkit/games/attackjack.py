"""AttackJack's own testkit data: the soak plays it with its choices and a stake, so
that chips move (its quick games too)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SOAK_OPTIONS: Mapping[str, Any] = {"choice": True, "stake": 10}
SOAK_SHORT_OPTIONS = SOAK_OPTIONS
