"""The catalogues: complete, consistent with the code, and read with the right plurals."""

from __future__ import annotations

import string

import pytest
from babel.messages.pofile import read_po

import locales
from bot import catalogues
from tests.locales.unmarked import scan, scan_source

TRANSLATED = [lang for lang in locales.LANGUAGES if lang != locales.ENGLISH]


def catalogue(language: str):
    with locales.catalogue_path(language).open("rb") as f:
        return read_po(f, locale=language)


def fields(text: str) -> set[str]:
    """The ``{placeholders}`` of a format string (``{{`` is a brace, not a field)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def strings(message) -> tuple[str, ...]:
    return message.string if isinstance(message.string, tuple) else (message.string,)


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_id_is_translated_and_none_is_fuzzy(language: str) -> None:
    problems = catalogues.problems(catalogue(language))
    assert problems == [], f"{language}: {len(problems)} to do, e.g. {problems[:5]}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_a_translation_has_the_placeholders_of_its_id(language: str) -> None:
    wrong = []
    for message in catalogue(language):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        expected = set().union(*(fields(i) for i in ids))
        for text in strings(message):
            try:
                got = fields(text)
            except ValueError as error:  # an unbalanced brace
                wrong.append((message.id, text, str(error)))
                continue
            # A plural form may leave {n} out ("одна взятка"), nothing else.
            if got - expected or (expected - {"n"}) - got:
                wrong.append((message.id, text))
    assert wrong == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_plural_entries_have_every_form_of_the_language(language: str) -> None:
    cat = catalogue(language)
    for message in cat:
        if message.id and isinstance(message.id, tuple):
            assert len(strings(message)) == cat.num_plurals, message.id


def test_the_catalogues_are_up_to_date_with_the_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert catalogues.main(["--check"]) == 0, capsys.readouterr()


def test_the_check_fails_for_an_id_the_catalogues_lack(monkeypatch: pytest.MonkeyPatch) -> None:
    real = catalogues.extract

    def with_a_new_string():
        template = real()
        template.add("A sentence nobody has translated yet.")
        return template

    monkeypatch.setattr(catalogues, "extract", with_a_new_string)
    assert catalogues.main(["--check"]) == 1


def test_code_that_only_moved_leaves_no_catalogue_behind(
        monkeypatch: pytest.MonkeyPatch) -> None:
    real = catalogues.extract

    def moved():
        template = real()
        for message in template:
            if message.id:
                message.locations = [("bot/elsewhere.py", 1)]
        return template

    monkeypatch.setattr(catalogues, "extract", moved)
    assert catalogues.main(["--check"]) == 0


def test_russian_numbers_take_their_three_plural_forms() -> None:
    """1 взятка, 2 взятки, 5 взяток: one, few, many; 21 is "one" again and 0 "many"."""
    with locales.speaking("ru"):
        said = {n: locales._n("{n} trick", "{n} tricks", n) for n in (0, 1, 2, 5, 11, 21, 22)}
    assert said[1].split()[1] == said[21].split()[1] != said[2].split()[1]
    assert said[2].split()[1] == said[22].split()[1] != said[5].split()[1]
    assert said[5].split()[1] == said[0].split()[1] == said[11].split()[1]
    assert said[1] == "1 взятка" and said[2] == "2 взятки" and said[5] == "5 взяток"
    assert said[0] == "0 взяток" and said[21] == "21 взятка"


def test_english_is_the_code_own_text_and_other_locales_fall_back_to_it() -> None:
    assert locales.language_of("sv-SE") == "sv" and locales.language_of("da") == "da"
    assert locales.language_of("ru") == "ru" and locales.language_of("en-GB") == "en"
    assert locales.language_of("fr") == "en" and locales.language_of(None) == "en"
    with locales.speaking("fr"):
        assert locales.current() == "en"


def test_every_string_a_person_reads_is_marked() -> None:
    assert [str(u) for u in scan()] == []


def test_the_scan_finds_an_unmarked_label_and_accepts_a_marked_one() -> None:
    source = '''
import discord
from locales import _
def view():
    """A docstring is documentation."""
    log.warning("a log line %s", 1)
    discord.ui.Button(label="Join the table")
    discord.ui.Button(label=_("Leave the table"))
    return f"Your turn, {name}"
'''
    found = [(u.line, u.text) for u in scan_source(source, "sample.py")]
    assert found == [(7, "Join the table"), (9, "Your turn, ")]
