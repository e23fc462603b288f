"""A picture travelling with a message: attached as a file, shown in the embed.

A message's parts (``Board.message``, ``Hands.parts``) carry ``picture=`` — a
``Picture`` or None — and the call that sends them turns it into what discord.py
wants there: a new message takes ``file=``, an edit ``attachments=[...]`` (which
replaces the old picture, so an edit with None removes it). The picture rides
in the same API call as the text: no extra request per move.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import discord


@dataclass(frozen=True)
class Picture:
    name: str  # the file name, e.g. "table.png"; the embed points at attachment://name
    data: bytes

    @property
    def url(self) -> str:
        return f"attachment://{self.name}"

    def file(self) -> discord.File:
        # A File is read once when sent: a new one for every call.
        return discord.File(io.BytesIO(self.data), filename=self.name)


def show(embed: discord.Embed, picture: Picture | None) -> discord.Embed:
    """The embed showing the picture (as its large image), if there is one."""
    if picture is not None:
        embed.set_image(url=picture.url)
    return embed


def for_send(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``picture=`` as a new message's ``file=``."""
    if "picture" not in kwargs:
        return kwargs
    out = dict(kwargs)
    picture = out.pop("picture")
    if picture is not None:
        out["file"] = picture.file()
    return out


def for_edit(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``picture=`` as an edit's ``attachments=`` (None: the message keeps no picture)."""
    if "picture" not in kwargs:
        return kwargs
    out = dict(kwargs)
    picture = out.pop("picture")
    out["attachments"] = [picture.file()] if picture is not None else []
    return out
