"""The web table's HTTP refusal: one sentence for the page, never cached."""

from __future__ import annotations

from aiohttp import web


def refused(status: int, sentence: str) -> web.Response:
    return web.json_response({"error": sentence}, status=status,
                             headers={"Cache-Control": "no-store"})
