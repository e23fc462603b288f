"""A stand-in catalogue for tests: it marks each id with its language, so a test sees
which texts went through the catalogue (``[sv] It is not your turn.``)."""

from __future__ import annotations

import gettext


class Marking(gettext.NullTranslations):
    """Each id, marked with the language."""

    def __init__(self, language: str) -> None:
        super().__init__()
        self.language = language

    def gettext(self, message: str) -> str:
        return f"[{self.language}] {message}"

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return f"[{self.language}] {msgid1 if n == 1 else msgid2}"

    def pgettext(self, context: str, message: str) -> str:
        return f"[{self.language}] {message}"

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        return f"[{self.language}] {msgid1 if n == 1 else msgid2}"
