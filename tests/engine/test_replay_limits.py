"""``python -m engine replay`` on input past the JSON parser's limits: a record nested deeper
than the interpreter's recursion limit, or holding an integer longer than Python's
int-string conversion limit, is refused like any broken record (one JSON line, exit
status 2), never with a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.__main__ import main
from engine.records import ReplayError, replay

DEEP = "[" * 100_000 + "]" * 100_000
LONG_INT = ('{"format": "cardtable-record/1", "game": "jazz", "players": '
            + "9" * 5000 + ', "options": {}, "first_dealer": 0, "deals": []}')


@pytest.mark.parametrize(("text", "words"), [
    (DEEP, "maximum recursion depth exceeded"),
    (LONG_INT, "Exceeds the limit (4300 digits) for integer string conversion"),
], ids=["deeply-nested", "5000-digit-integer"])
def test_input_past_the_parsers_limits_is_a_refused_record(
        text: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ReplayError) as refused:
        replay(text)
    assert (refused.value.deal, refused.value.step) == (None, None)
    reason = refused.value.reason
    assert reason.startswith("The file is not valid JSON: ") and words in reason
    assert "set_int_max_str_digits" not in reason  # Python's advice is not for this reader

    path = tmp_path / "record.json"
    path.write_text(text, encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    out, err = capsys.readouterr()
    assert err == "" and out.count("\n") == 1
    assert json.loads(out) == {"error": refused.value.to_dict()}


def test_the_command_refuses_a_deep_record_from_standard_input_without_a_traceback() -> None:
    done = subprocess.run([sys.executable, "-m", "engine", "replay", "-", "--summary"],
                          input=DEEP, capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 2 and done.stderr == ""
    error = json.loads(done.stdout)["error"]
    assert error["deal"] is None and "maximum recursion depth" in error["reason"]


def test_a_record_just_inside_the_limits_is_read_and_judged_as_a_record() -> None:
    # Nested a little less deep, the parser reads it: the refusal is the record's own.
    nested = "[" * 500 + "]" * 500
    with pytest.raises(ReplayError, match="A record must be a JSON object"):
        replay(nested)
    with pytest.raises(ReplayError, match="Unknown game"):
        replay(LONG_INT.replace('"jazz"', nested).replace("9" * 5000, "4"))
    # A long integer within the conversion limit is a number like any other.
    with pytest.raises(ReplayError, match="is for 3 to 7 players"):
        replay(LONG_INT.replace("9" * 5000, "9" * 4000))
