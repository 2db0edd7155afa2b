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

from ..errors import visible
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


def write_verdicts(out, verdicts: list[dict], failures: list[dict], key: str) -> None:
    """Write the verdict rows to `out` (JSON Lines) and list each unjudged reply (named by its `key` field and
    condition) on stderr, one line each."""
    import json
    import sys

    with open(out, "w", encoding="utf-8", newline="\n") as handle:
        handle.writelines(json.dumps(v, ensure_ascii=False) + "\n" for v in verdicts)
    for failure in failures:
        print(visible(f"unjudged: {failure[key]} {failure['condition']}: {failure['reason']}"), file=sys.stderr)


def judged_once(seen: dict, key: str, condition: str, path, line: int) -> None:
    """Refuse a second verdict on the same (item, condition); `seen` remembers the first one's line."""
    if (key, condition) in seen:
        raise ReadError(path, f"'{key}' under '{condition}' is already judged at line {seen[key, condition]}",
                        line=line, field="condition")
    seen[key, condition] = line


def one_judge(judges: dict, kind, row: dict, path, line: int) -> dict:
    """The row's judge stamp; it must equal the first stamp seen for `kind` (`judges` remembers it and its
    line): numbers from two judges, or two prompts for one kind of verdict, are never mixed."""
    this = field(row, "judge", (dict,), path, line)
    this = {name: field(this, name, kinds, path, line) for name, kinds in JUDGE_FIELDS.items()}
    first, first_line = judges.setdefault(kind, (this, line))
    if this != first:
        raise ReadError(path, f"mixes judges: {this} differs from {first} (line {first_line}); score each "
                              "judge's verdicts separately", line=line, field="judge")
    return this


def read_verdicts(path, track) -> Verdicts:
    import pandas as pd

    lines = rows(path)
    records, judges, seen = [], {}, {}
    vocabulary = track.vocabulary
    for line, row in lines:
        item_id = known_item(row, track, path, line).item_id
        condition = field(row, "condition", (str,), path, line, choices=TRACK_CONDITIONS[track.name])
        judged_once(seen, item_id, condition, path, line)
        judge = one_judge(judges, track.name, row, path, line)
        records.append({"item_id": item_id, "condition": condition, **{
            name: field(row, name, kinds, path, line, choices=choices)
            for name, (kinds, choices) in FIELDS[track.name].items()}, **{
            name: field(row, name, kinds, path, line, required=False, choices=vocabulary.get(choices))
            for name, (kinds, choices) in OPTIONAL_FIELDS[track.name].items()}})
    if not records:
        raise ReadError(path, "no verdicts")
    return Verdicts(str(path), sha256_of(path), judge, pd.DataFrame.from_records(records))
