"""A verdicts file: one judged reply per line, the only source of judged numbers.

Row: {"item_id", "condition", <the track's verdict fields>, "judge": {"model",
"prompt_sha256", "temperature"}}. Chat rows carry `content_match` (0, 1 or 2)
and `used_memory` (bool); question rows carry `answer_correct` and `abstained`
(bools). Chat rows may also carry Table 7's `attributed` (bool), `locus` (the
locus the reply places its referent in, Table 19's vocabulary) and
`consistent` (bool); a quantity reading a field a row lacks counts that row as
missing. The file is unreadable (exit 2) when an item id is unknown, an
(item, condition) pair repeats, a field is missing or mistyped, or the rows do
not all name the same judge: numbers from two judges are never mixed; so is a row whose condition is empty,
or whose judge answered at a temperature other than 0 (Table 31). A row
written by `judge` also carries `reply_sha256`, the sha256 of the reply's text
as judged (UTF-8): which reply the verdict is about (`VerdictsOut`).
"""
from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import visible
from ..formats import DEFAULT, part
from ..jsonlines import objects, whole_lines
from ..release import ReadError
from ..stamp import sha256_of
from ..writing import Replacing
from .jsonl import condition as condition_of
from .jsonl import field, known_item, rows

FIELDS = {
    "chat": {"content_match": ((int,), (0, 1, 2)), "used_memory": ((bool,), None)},
    "qa": {"answer_correct": ((bool,), None), "abstained": ((bool,), None)},
}
OPTIONAL_FIELDS = {
    "chat": {"attributed": ((bool,), None), "locus": ((str,), "locus"), "consistent": ((bool,), None)},
    "qa": {},
}
JUDGE_FIELDS = {"model": (str,), "prompt_sha256": (str,), "temperature": (int, float)}
JUDGE_TEMPERATURE = part(DEFAULT, "settings").JUDGE_TEMPERATURE  # Table 31, at which every format's judge answers


@dataclass
class Verdicts:
    path: str
    sha256: str
    judge: dict
    frame: object  # pandas DataFrame: item_id, condition, the track's fields


def reply_sha256(text: str) -> str:
    """The sha256 of a reply's text (UTF-8), which each verdict `judge` writes carries."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class VerdictsOut:
    """The file a `judge` run (verdicts) or a `respond` run (replies) writes, each answer a line written and flushed
    as it comes: a run that stops early (an endpoint that went away, Ctrl-C, a crash) keeps every answer given before.

    Each row names what it answers by `key` and condition, the sha256 of what was asked (`digest`: the reply
    judged, or the request sent) and who answered (`stamp_field`: the judge, or the system). With `read`
    (`--resume`), the file's rows are first read as their reader reads them (`read(path, data)`; a file it cannot
    read is exit 2), after setting aside a last line that a crash cut short or left as zero bytes
    (`jsonlines.whole_lines`, one warning line), and a row is kept for each thing asked again unchanged: same key,
    condition and digest. A kept row must name this run's answerer, `stamp_of(asked)` (a file names one). The other
    rows (a thing that changed or is no longer asked, a row without a digest) are dropped, and the run asks only
    for what has no kept row (`pending`)."""

    def __init__(self, out, key: str, asked: list[dict], stamp_of, read=None, stamp_field: str = "judge",
                 digest: str = "reply_sha256", noun: str = "verdicts"):
        self.path, self.key, self.kept, self.dropped, self.written = Path(out), key, [], 0, 0
        self.stamp_field, self.digest, self.noun = stamp_field, digest, noun
        found = []
        if read is not None and self.path.is_file():
            data, torn = whole_lines(self.path)
            if torn:
                print(f"warning: {self.path}:{torn}: the last line is torn (cut short or zero bytes: a run "
                      "that stopped while writing it); set aside, and asked again", file=sys.stderr)
            found = objects(self.path, blank_lines_allowed=True, data=data)
            if found:
                read(self.path, data)
        wanted = {(item[key], item["condition"]): item for item in asked}
        for line, row in found:
            item = wanted.get((row[key], row["condition"]))
            if item is None or row.get(digest) != item[digest]:
                self.dropped += 1
            elif row[stamp_field] != stamp_of(item):
                raise ReadError(self.path, f"holds {noun} by {json.dumps(row[stamp_field])}, not by this run's "
                                           f"{json.dumps(stamp_of(item))}: write into another --out, or leave out "
                                           f"--resume to ask for every one again", line=line, field=stamp_field)
            else:
                self.kept.append(row)
                del wanted[row[key], row["condition"]]
        self.pending = list(wanted.values())

    def __enter__(self):
        # the kept rows go to a new file (`writing.Replacing`: a folder that cannot be written is one line now), which
        # replaces --out when the first answer comes or the run ends; then each answer is appended as one line,
        # flushed as it comes, so a stop loses none. A run that fails before any answer (a prompt that cannot be
        # filled, Ctrl-C) leaves an earlier --out as it was: it had emptied an earlier run's file.
        self.handle, self._placing = None, Replacing(self.path)
        self._placing.__enter__().write("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in self.kept))
        return self

    def _opened(self):
        if self.handle is None:
            self._placing.__exit__(None, None, None)
            self.handle = open(self.path, "a", encoding="utf-8", newline="\n")
        return self.handle

    def __exit__(self, kind, *exc) -> bool:
        if self.handle is None and kind is not None:
            return self._placing.__exit__(kind, *exc)
        self._opened().close()
        return False

    def write(self, row: dict) -> None:
        self._opened().write(json.dumps(row, ensure_ascii=False) + "\n")
        self.handle.flush()
        self.written += 1

    def list_unjudged(self, failures: list[dict], word: str = "unjudged") -> None:
        """Each thing left without an answer (named by its key and condition), on stderr, one line each."""
        for failure in failures:
            print(visible(f"{word}: {failure[self.key]} {failure['condition']}: {failure['reason']}"),
                  file=sys.stderr)

    def summary(self) -> str:
        """How many rows the file holds, and when resumed, how many it kept and dropped."""
        now = "judged" if self.noun == "verdicts" else "asked"
        kept = f" ({len(self.kept)} kept, {self.dropped} dropped, {self.written} {now} now)" if self.kept or \
            self.dropped else ""
        return f"{len(self.kept) + self.written} {self.noun}{kept}"


def ask_each(out: VerdictsOut, answer_of, concurrency: int = 1, progress=None) -> list[dict]:
    """Ask for each of `out.pending` (`await answer_of(item)`: the row's fields and stamp, or `Unanswered`),
    `concurrency` at a time, and write each row as it comes; returns the items left unanswered, with the reason. An
    endpoint that stops answering ends the run (exit 2), saying how many rows the file keeps for `--resume`."""
    from .concurrency import run_all

    def named(item: dict) -> dict:
        return {out.key: item[out.key], "condition": item["condition"]}

    def write(item: dict, answer: dict) -> None:
        out.write({**named(item), **answer, out.digest: item[out.digest]})

    try:
        failures = run_all(out.pending, answer_of, write, concurrency, progress)
    except ReadError as exc:
        if out.kept or out.written:
            raise ReadError(out.path, f"holds {len(out.kept) + out.written} {out.noun}, the rest unasked "
                                      f"(--resume asks only for them): {exc}") from None
        raise
    return [{**named(item), "reason": reason} for item, reason in failures]


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
    if this["temperature"] != JUDGE_TEMPERATURE:  # Table 31: every judge at 0; a sampled verdict is not the judge's
        raise ReadError(path, f"judge temperature {this['temperature']}: verdicts are read at temperature "
                              f"{JUDGE_TEMPERATURE} only (Table 31); judge again at {JUDGE_TEMPERATURE}", line=line,
                        field="judge.temperature")
    first, first_line = judges.setdefault(kind, (this, line))
    if this != first:
        raise ReadError(path, f"mixes judges: {this} differs from {first} (line {first_line}); score each "
                              "judge's verdicts separately", line=line, field="judge")
    return this


def read_verdicts(path, track, data: bytes | None = None) -> Verdicts:
    import pandas as pd

    lines = rows(path, data)
    records, judges, seen = [], {}, {}
    vocabulary = track.vocabulary
    for line, row in lines:
        item_id = known_item(row, track, path, line).item_id
        condition = condition_of(row, path, line, track.conditions)
        judged_once(seen, item_id, condition, path, line)
        judge = one_judge(judges, track.name, row, path, line)
        records.append({"item_id": item_id, "condition": condition, **{
            name: field(row, name, kinds, path, line, choices=choices)
            for name, (kinds, choices) in FIELDS[track.name].items()}, **{
            name: field(row, name, kinds, path, line, required=False, choices=vocabulary.get(choices))
            for name, (kinds, choices) in OPTIONAL_FIELDS[track.name].items()}})
    if not records:
        raise ReadError(path, "no verdicts")
    # object columns: pandas would read a text column (`locus`) as strings, turning a verdict's absent field (None)
    # into NaN, which no `is None` test sees: a v1 verdict then counted as a wrong locus, not a missing one
    return Verdicts(str(path), sha256_of(path), judge, pd.DataFrame(records, dtype=object))
