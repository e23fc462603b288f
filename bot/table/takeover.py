"""Taking over a seat that was left: the ask, the accept, and what the record keeps.

``TakeoverState`` is a ``Table`` field group (saved with the snapshot).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(kw_only=True)
class TakeoverState:
    pass
