"""Golden transcripts: a few fixed records per built-in ruleset with every state they pass through
(v1 JSON) and its position string, in tests/support/golden/<ruleset>.json.

The test replays each stored record, regenerates the transcript and diffs it with the file; the
stored states are also checked against the reference model on every run. To regenerate after an
intended change: `QTTT_REGEN_GOLDEN=1 python -m pytest tests/core/test_golden.py` (new files get four
random games per ruleset, seeds 1-4; existing files keep their records), then review the diff.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from refbridge import ref_replay

from qttt import Record, builtin_names, load_ruleset, record_from_json, record_to_json, state_to_json
from qttt.quantum.engine import playout, quantum_state
from qttt.quantum.notation import from_notation, position, to_notation

GOLDEN = Path(__file__).resolve().parents[1] / "support" / "golden"
REGENERATE = os.environ.get("QTTT_REGEN_GOLDEN") == "1"
SEEDS = (1, 2, 3, 4)
# Worked examples of tests/core/test_engine_examples.py, in human notation (squares from 1).
LINES = "X1:1-7 O2:6-9 X3:1-4 O4:3-9 X5:5-8 O6:7-9 X7:5-7 O8:3-5 O8@5"
DOUBLE = "X1:2-5 O2:2-5 O2@5 X3:3-6 O4:3-6 O4@6 X5:4-8 O6:4-8 O6@8 X7:7-9 O8:7-9 O8@9"
HAND = {
    "wikipedia": [LINES, DOUBLE + " X9:1"],
    "kumar": [LINES + " X9:2", DOUBLE + " X9:1"],
    "russian": [LINES, DOUBLE],
    "ishizeki-complete": [LINES],
    "bonus4x4": ["X1:2-3 O2:2-3 O2@3 X3:5-8 O4:5-8 O4@8 X5:12-9 O6:12-9 O6@9 X7:15-14 O8:15-14 O8@14 "
                 "X9:1-4 O10:1-4 O10@4 X11:6-7 O12:6-7 O12@7 X13:11-10 O14:11-10 O14@10 "
                 "X15:16-13 O16:16-13 O16@13"],
}


def transcript(record: Record) -> dict[str, Any]:
    """A record with its notation, every state as v1 JSON and every position string."""
    states = [quantum_state(s) for s in record.states()]
    return {
        "record": record_to_json(record),
        "notation": to_notation(record),
        "states": [state_to_json(s, record.variant) for s in states],
        "positions": [position(s) for s in states],
    }


def render(name: str, records: list[Record]) -> str:
    """The golden file: JSON with one state or position per line, for readable diffs."""
    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    parts = []
    for t in (transcript(r) for r in records):
        states = ",\n    ".join(one(s) for s in t["states"])
        positions = ",\n    ".join(one(p) for p in t["positions"])
        parts.append(f'  {{"record": {one(t["record"])},\n   "notation": {one(t["notation"])},\n'
                     f'   "states": [\n    {states}],\n   "positions": [\n    {positions}]}}')
    return f'{{"ruleset": {one(name)}, "transcripts": [\n' + ",\n".join(parts) + "]}\n"


def stored_records(name: str) -> list[Record]:
    path = GOLDEN / f"{name}.json"
    if not path.is_file():
        rs = load_ruleset(name)
        hand = [from_notation(f"[{name}] {text}") for text in HAND.get(name, ())]
        return hand + [Record(name, tuple(playout(rs, random.Random(seed))[0])) for seed in SEEDS]
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [record_from_json(t["record"]) for t in doc["transcripts"]]


@pytest.mark.parametrize("name", builtin_names())
def test_golden_transcripts(name: str) -> None:
    path = GOLDEN / f"{name}.json"
    records = stored_records(name)
    text = render(name, records)
    doc = json.loads(text)
    rs = load_ruleset(name)
    for t in doc["transcripts"]:  # the reference model must agree with every stored state
        assert t["states"] == ref_replay(rs, t["record"]["actions"], name)
    if REGENERATE:
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"{path} missing: regenerate with QTTT_REGEN_GOLDEN=1"
    assert path.read_text(encoding="utf-8") == text, \
        f"{path} differs from the engine's transcript; if intended, regenerate (see module docstring)"
    # the file is checked against the reference itself, not only the regenerated text
    stored = json.loads(path.read_text(encoding="utf-8"))
    for t in stored["transcripts"]:
        assert t["states"] == ref_replay(rs, t["record"]["actions"], name)
        assert t["states"][-1]["phase"] == "over"
