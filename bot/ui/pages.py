"""Pages of a long list (leaderboards, chip balances) as Discord messages.

A page is drawn from the database on every click, so nothing about it lives in
memory: a navigation button's custom_id names the page it leads to, and the
click is served the same way before and after a restart. The list may have
changed since the message was drawn; ``Page.of`` clamps a stale page number to
the list as it is now instead of failing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import discord

from locales import _, _c

PAGE_SIZE = 10
MAX_PAGE = 999_999  # custom_ids carry at most six digits of page number

# Navigation actions (labels: ``nav_label``); "me" jumps to the page of the person the
# message is for.
NAV_PATTERN = "(?P<action>first|prev|next|last|me):(?P<page>\\d{1,6})"


@dataclass(frozen=True)
class Page:
    """One page of a list of ``total`` entries (there is always a page 0, even if empty)."""

    index: int
    total: int
    size: int = PAGE_SIZE

    @classmethod
    def of(cls, index: int, total: int, size: int = PAGE_SIZE) -> Page:
        """Page ``index`` clamped into the list as it is now."""
        return cls(min(max(0, index), _pages(total, size) - 1, MAX_PAGE), total, size)

    @classmethod
    def of_rank(cls, rank: int, total: int, size: int = PAGE_SIZE) -> Page:
        """The page on which the entry ranked ``rank`` (from 1) stands."""
        return cls.of((rank - 1) // size, total, size)

    @property
    def count(self) -> int:
        return _pages(self.total, self.size)

    @property
    def offset(self) -> int:
        return self.index * self.size

    @property
    def first(self) -> bool:
        return self.index == 0

    @property
    def last(self) -> bool:
        return self.index >= self.count - 1

    def shows(self, rank: int) -> bool:
        """Whether the entry ranked ``rank`` (from 1) is on this page."""
        return self.offset < rank <= self.offset + self.size

    def target(self, action: str) -> int:
        """The page a navigation button leads to."""
        wanted = {"first": 0, "prev": self.index - 1, "next": self.index + 1,
                  "last": self.count - 1}[action]
        return min(max(0, wanted), self.count - 1)  # never a page that does not exist

    def disabled(self, action: str) -> bool:
        """A button that would lead nowhere is shown disabled, so the row keeps its shape."""
        return self.first if action in ("first", "prev") else self.last

    def label(self) -> str:
        """"Page 2 of 5", in the current language."""
        return _("Page {page} of {pages}", page=self.index + 1, pages=self.count)


def _pages(total: int, size: int) -> int:
    return max(1, -(-total // size))  # ceiling division; an empty list still has a page


ItemFactory = Callable[[str, int, bool], discord.ui.Item[Any]]  # action, target page, disabled


def nav_view(page: Page, make_item: ItemFactory, me: int | None = None) -> discord.ui.View | None:
    """A row of navigation buttons, or None when one page holds the whole list.

    ``me`` is the page of the person the message is drawn for (None: not on the list);
    it adds a "My rank" button, disabled while that page is shown.
    """
    if page.count == 1:
        return None
    view = discord.ui.View(timeout=None)
    for action in ("first", "prev", "next", "last"):
        view.add_item(make_item(action, page.target(action), page.disabled(action)))
    if me is not None:
        view.add_item(make_item("me", me, me == page.index))
    return view


def nav_label(action: str) -> str:
    """A navigation button's label, in the current language."""
    if action == "first":
        # Translators: a button that turns a list to its first page
        return "⏮ " + _c("page", "First")
    if action == "prev":
        # Translators: a button that turns a list back one page (short for "Previous")
        return "◀ " + _c("page", "Prev")
    if action == "next":
        # Translators: a button that turns a list on to its next page
        return _c("page", "Next") + " ▶"
    if action == "last":
        # Translators: a button that turns a list to its last page
        return _c("page", "Last") + " ⏭"
    # Translators: a button that turns a leaderboard to the page where the reader stands
    return _("My rank")


def nav_button(action: str, custom_id: str, disabled: bool) -> discord.ui.Button[Any]:
    style = discord.ButtonStyle.primary if action == "me" else discord.ButtonStyle.secondary
    return discord.ui.Button(style=style, label=nav_label(action), custom_id=custom_id,
                             disabled=disabled)
