"""California Jack's own testkit data: the soak's quick games."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SOAK_SHORT_OPTIONS: Mapping[str, Any] = {"target": 3}
