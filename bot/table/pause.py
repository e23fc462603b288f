"""Pausing a running table by vote, and the quiet hours its slow timers keep.

``PauseState`` is a ``Table`` field group (saved with the snapshot).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(kw_only=True)
class PauseState:
    pass
