"""``python -m engine replay --lang``: the reason of a refused record in a language.

The catalogues may not have the engine's sentences translated yet, so a stand-in
catalogue marks every sentence it is asked for: what reaches the output is then
visibly the translated one, nested sentences (a card's name in a reason) included.
"""

from __future__ import annotations

import json
import random

import pytest

import locales
from engine.__main__ import main
from engine.core import action_code
from engine.jazz import Jazz
from engine.records import ReplayError, replay
from tests.locales.marking import Marking


@pytest.fixture
def marked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(locales, "translations", Marking)


def illegal_record() -> dict:
    """A Jazz record whose first action plays a card its seat does not hold."""
    game = Jazz(4)
    rng = random.Random(5)
    game.start_deal(game.random_deal(rng))
    seat = game.to_act
    assert seat is not None
    game.apply(seat, game.legal_actions()[0])
    record = game.to_record()
    other = next(c for c in game.random_deal(rng).hands[0]
                 if action_code(c) not in record["deals"][0]["hands"][seat])
    record["deals"][0]["actions"][0][1] = action_code(other)
    return record


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    status = main(args)
    return status, json.loads(capsys.readouterr().out)


def test_the_reason_is_english_by_default_and_with_lang_en(tmp_path, capsys, marked):
    path = tmp_path / "record.json"
    record = illegal_record()
    path.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(ReplayError) as refused:
        replay(record)
    english = refused.value.to_dict()
    assert english["reason"].endswith("is not in your hand.")
    assert run(["replay", str(path)], capsys) == (2, {"error": english})
    assert run(["replay", str(path), "--lang", "en"], capsys) == (2, {"error": english})


def test_lang_says_the_reason_and_the_sentences_inside_it(tmp_path, capsys, marked):
    path = tmp_path / "record.json"
    record = illegal_record()
    path.write_text(json.dumps(record), encoding="utf-8")
    code = record["deals"][0]["actions"][0][1]
    status, out = run(["replay", str(path), "--lang", "sv"], capsys)
    assert status == 2
    assert out["error"]["deal"] == 0 and out["error"]["step"] == 0
    # The reason, the rules' reason inside it and the card's rank inside that, each said.
    reason = out["error"]["reason"]
    assert reason.startswith(f"[sv] {code} is not legal here: [sv] [sv] ")
    assert reason.endswith(" is not in your hand.")
    # Only the reason is said: the record's other words are codes and numbers.
    with pytest.raises(ReplayError) as refused:
        replay(record)
    assert {**out["error"], "reason": refused.value.reason} == refused.value.to_dict()


def test_lang_says_an_error_before_any_deal(capsys, marked, monkeypatch):
    monkeypatch.setattr("sys.stdin", _Stdin(json.dumps({"format": "nonsense"})))
    status, out = run(["replay", "-", "--lang", "ru"], capsys)
    assert status == 2
    assert out == {"error": {"deal": None, "step": None,
                             "reason": "[ru] The format must be 'cardtable-record/1'."}}


def test_to_dict_stays_english_whatever_is_spoken(marked):
    with pytest.raises(ReplayError) as refused:
        replay({"format": "nonsense"})
    with locales.speaking("da"):
        assert json.dumps(refused.value.to_dict()) == json.dumps(
            {"deal": None, "step": None, "reason": "The format must be 'cardtable-record/1'."})
        assert locales.say(refused.value.reason) == \
            "[da] The format must be 'cardtable-record/1'."


def test_lang_accepts_only_the_bot_s_languages(capsys):
    with pytest.raises(SystemExit):
        main(["replay", "-", "--lang", "de"])
    assert "invalid choice" in capsys.readouterr().err


class _Stdin:
    def __init__(self, text: str) -> None:
        self.text = text

    def read(self) -> str:
        return self.text
