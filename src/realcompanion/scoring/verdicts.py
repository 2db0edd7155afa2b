"""A verdicts file: one judged reply per line, the only source of judged numbers.

Row: {"item_id", "condition", <the track's verdict fields>, "judge": {"model",
"prompt_sha256", "temperature"}}. Chat rows carry `content_match` (0, 1 or 2)
and `used_memory` (bool); question rows carry `answer_correct` and `abstained`
(bools). Chat rows may also carry Table 7's `attributed` (bool), `locus` (the
locus the reply places its referent in, Table 19's vocabulary) and
`consistent` (bool); a quantity reading a field a row lacks counts that row as
missing. The file is unreadable (exit 2) when an item id is unknown, an
(item, condition) pair repeats, a field is missing or mistyped, or the rows do
not all name the same judge: numbers from two judges are never mixed.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..release import ReadError
from ..stamp import sha256_of
from .jsonl import field, known_item, rows
from .settings import TRACK_CONDITIONS

FIELDS = {
    "chat": {"content_match": ((int,), (0, 1, 2)), "used_memory": ((bool,), None)},
    "qa": {"answer_correct": ((bool,), None), "abstained": ((bool,), None)},
}
OPTIONAL_FIELDS = {
    "chat": {"attributed": ((bool,), None), "locus": ((str,), "locus"), "consistent": ((bool,), None)},
    "qa": {},
}
JUDGE_FIELDS = {"model": (str,), "prompt_sha256": (str,), "temperature": (int, float)}


@dataclass
class Verdicts:
    path: str
    sha256: str
    judge: dict
    frame: object  # pandas DataFrame: item_id, condition, the track's fields


def read_verdicts(path, track) -> Verdicts:
    import pandas as pd

    lines = rows(path)
    records, judge, seen = [], None, {}
    vocabulary = track.vocabulary
    for line, row in lines:
        item_id = known_item(row, track, path, line).item_id
        condition = field(row, "condition", (str,), path, line, choices=TRACK_CONDITIONS[track.name])
        if (item_id, condition) in seen:
            raise ReadError(path, f"'{item_id}' under '{condition}' is already judged at line "
                                  f"{seen[item_id, condition]}", line=line, field="condition")
        seen[item_id, condition] = line
        this = field(row, "judge", (dict,), path, line)
        this = {name: field(this, name, kinds, path, line) for name, kinds in JUDGE_FIELDS.items()}
        if judge is None:
            judge, first = this, line
        elif this != judge:
            raise ReadError(path, f"mixes judges: {this} differs from {judge} (line {first}); score each "
                                  "judge's verdicts separately", line=line, field="judge")
        records.append({"item_id": item_id, "condition": condition, **{
            name: field(row, name, kinds, path, line, choices=choices)
            for name, (kinds, choices) in FIELDS[track.name].items()}, **{
            name: field(row, name, kinds, path, line, required=False, choices=vocabulary.get(choices))
            for name, (kinds, choices) in OPTIONAL_FIELDS[track.name].items()}})
    if not records:
        raise ReadError(path, "no verdicts")
    return Verdicts(str(path), sha256_of(path), judge, pd.DataFrame.from_records(records))
