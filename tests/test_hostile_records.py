"""Records that are not what they claim: a `null` line, a row with no value, nesting past the schema checker's
limit, a lone surrogate in a key. Each is named once, by the reader or by a structure rule, and every other rule
still evaluates every other row (none ends "could not be evaluated")."""
from __future__ import annotations

import itertools
import json
import math
import shutil
from pathlib import Path

import pytest
from realcompanion.validators.run import validate
from test_fuzz import check_contract, edit_line, restamp, run_quietly

from realcompanion.errors import ReadError
from realcompanion.files import loads
from realcompanion.paths import REPO_ROOT
from realcompanion.schemas import Schemas, dump_json

GROUPASSIST = REPO_ROOT / "specimens" / "groupassist"


@pytest.mark.parametrize("resource", ["qa", "chat"])
def test_a_null_line_is_not_a_record(specimen, resource):
    """Arrow reads `null` as a row of nulls; it is a line that holds no object, as `[1, 2]` is."""
    edit_line(resource, 3, lambda line: b"null\n")(specimen)
    restamp(specimen)
    code, out, err = run_quietly(["validate", str(specimen)])
    assert code == 2, out
    check_contract(code, out, err, f"{resource}.jsonl:3: a line must hold one JSON object")


def test_a_null_line_in_a_groupassist_release(tmp_path):
    root = shutil.copytree(GROUPASSIST, tmp_path / "release")
    path = root / "data" / "atoms.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([*lines[:2], b"null\n", *lines[2:]]))
    code, out, err = run_quietly(["validate", str(root)])
    assert code == 2, out
    check_contract(code, out, err, "atoms.jsonl:3: a line must hold one JSON object")


def test_a_fraction_where_an_integer_belongs_is_no_cutoff_in_a_groupassist_release(tmp_path):
    """A set-aside record's value is the one it holds, or null: Arrow truncated a cutoff of 1.5 to 1, and gate i
    and GC9 named the instance's anchors and penalties as lying after it."""
    from realcompanion.validators.groupassist.run import validate as validate_groupassist

    from realcompanion.formats.groupassist.synth import stamp

    root = shutil.copytree(GROUPASSIST, tmp_path / "release")
    edit_line("instances", 6, fields_to(1.5, "cutoff_turn"))(root)
    stamp(root)
    found = validate_groupassist(root).failure_frame()
    assert list(found["rule"]) == ["GS1"], found.to_string()


def fields_to(value, *names):
    """Line 3's record with the named fields (every field when none is named) set to `value`."""
    def change(line):
        row = json.loads(line)
        row.update({name: value for name in names or row})
        return json.dumps(row, ensure_ascii=False).encode() + b"\n"
    return change


RECORDS = [  # (resource, change of its line 3, the structure rule that names it)
    ("qa", lambda line: b"{}\n", "SCH1"),
    ("qa", fields_to(None), "SCH1"),
    ("qa", fields_to(None, "category"), "SCH2"),
    ("qa", fields_to(5, "participant_id"), "SCH1"),
    ("profile", fields_to(None), "SCH1"),
    ("chat", fields_to(None), "SCH1"),
    ("chat", fields_to(5, "participant_id", "stratum", "memory_bearing"), "SCH1"),
    ("source", fields_to(5, "participant_id"), "SCH1"),
    ("source", fields_to(None, "participant_id"), "SCH2"),
    ("qa", lambda line: line.replace(b'"question":', b'"question":' + b"[" * 500 + b"]" * 500 + b',"deep":', 1),
     "SCH1"),
    ("qa", lambda line: b'{"\\ud800":1,' + line[1:], "SCH1"),
]


@pytest.mark.parametrize("resource,change,rule", RECORDS, ids=[
    "empty-object", "every-field-null", "category-null", "participant-a-number", "profile-every-field-null",
    "chat-every-field-null", "chat-fields-numbers", "message-participant-a-number", "message-participant-null",
    "nested-500-deep", "lone-surrogate-in-a-key"])
def test_a_record_without_values_is_named_once_and_every_rule_still_runs(specimen, resource, change, rule):
    edit_line(resource, 3, change)(specimen)
    restamp(specimen)
    report = validate(specimen)
    assert not [(o.rule.id, o.skipped) for o in report.outcomes if o.crashed]
    found = report.failure_frame()
    errors = found[found["severity"] == "error"]
    assert set(errors["rule"]) == {rule}, errors.to_string()
    assert len(errors) == 1 or rule == "SCH2", errors.to_string()  # SCH2 names each null required field


def test_a_key_a_set_aside_record_shares_with_a_good_one_is_a_duplicate(specimen):
    """Line 3's record is set aside (SCH1) and holds line 4's key: the key is still written twice (SCH2), on line 4,
    the record that was read; SCH2's case on line 3 is SCH1's record's."""
    key = json.loads((specimen / "data" / "profile.jsonl").read_text(encoding="utf-8").splitlines()[3])["claim_id"]
    edit_line("profile", 3, lambda line: fields_to(key, "claim_id")(fields_to("x", "evidence_count")(line)))(specimen)
    restamp(specimen)
    found = validate(specimen).failure_frame()
    errors = found[found["severity"] == "error"]
    assert sorted(zip(errors["rule"], errors["row"], errors["field"])) == [
        ("SCH1", key, "evidence_count"), ("SCH2", key, "claim_id")], errors.to_string()
    assert "line 3" in errors.loc[errors["rule"] == "SCH1", "message"].iloc[0]


def test_a_hostile_key_in_the_readers_one_line_is_escaped(specimen):
    """The reader's message quotes the release (a key here): it is escaped as the report is, and stays one line."""
    edit_line("qa", 2, lambda line: b'{"\\u001b[2J\\u2028k":1,"\\u001b[2J\\u2028k":2,' + line[1:])(specimen)
    code, out, err = run_quietly(["validate", str(specimen)])
    assert code == 2 and "\x1b" not in err and "\u2028" not in err, repr(err)
    check_contract(code, out, err, r"qa.jsonl:2 field '\x1b[2J\u2028k': duplicate key '\x1b[2J\u2028k'")


def test_a_number_no_float_holds_is_named_by_its_field(tmp_path):
    """Python's reader takes 1e400 as infinity, and stops on an integer of more than 4300 digits (so does
    Frictionless): either is one line naming file, line and field."""
    with pytest.raises(ReadError, match=r"x\.jsonl:3 field 'b': 1e400 overflows a 64-bit float"):
        loads('{"a": 1, "b": [1e400]}', tmp_path / "x.jsonl", line=3)
    with pytest.raises(ReadError, match=r"x\.jsonl:3 field 'b': an integer too long for Python's JSON reader"):
        loads('{"a": 1, "b": {"c": ' + "9" * 5000 + "}}", tmp_path / "x.jsonl", line=3)


@pytest.mark.parametrize("edit, said", [
    ({"source": "web"}, "holds 'note.source', which its nested schema does not declare"),
    ({"weight": [1.5, 2 ** 53 + 1]}, "'note.weight' holds an integer beyond ±2^53"),
    ({"count": 1.5}, "Arrow reads it as struct<"),
], ids=["undeclared key", "nested integer beyond 2^53", "a fraction its schema allows, an integer to Arrow"])
def test_what_arrow_would_read_otherwise_in_a_nested_field_is_named(specimen, edit, said):
    """Arrow reads a nested value otherwise than the file holds, silently: it drops a key the nested schema does not
    declare (a fork's schema may allow more properties; `datasets.load_dataset` failed on it) and reads an integer
    beyond 2^53 as the nearest float (2^53 + 1 as 2^53; Frictionless keeps it whole), and a fraction where the first
    of a property's types, which Arrow takes, is integer as that integer (1.5 as 1). The release was VALID."""
    (specimen / "schemas" / "nested" / "note.schema.json").write_text(json.dumps({
        "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "nested/note.schema.json", "type": "object",
        "required": ["kind"], "properties": {"kind": {"type": "string"}, "count": {"type": ["integer", "number", "null"]},
                                            "weight": {"type": "array", "items": {"type": "number"}}}}),
        encoding="utf-8")
    schema = json.loads((specimen / "schemas" / "qa.schema.json").read_text(encoding="utf-8"))
    schema["fields"].append({"name": "note", "type": "object", "nestedSchema": "nested/note.schema.json",
                             "constraints": {}})
    (specimen / "schemas" / "qa.schema.json").write_text(dump_json(schema), encoding="utf-8")
    Schemas(specimen).render()  # the vocabulary's copies, as `refresh` writes them
    path = specimen / "data" / "qa.jsonl"
    rows = [json.loads(line) | {"note": {"kind": "plain", "weight": [0.5]}}
            for line in path.read_text(encoding="utf-8").splitlines()]
    rows[2]["note"].update(edit)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    restamp(specimen)
    found = validate(specimen).failure_frame()
    errors = found[found["severity"] == "error"]
    assert list(errors["rule"]) == ["SCH1"] and list(errors["row"]) == [rows[2]["item_id"]], errors.to_string()
    assert said in errors["message"].iloc[0]


def _parted(line: bytes) -> bytes:
    """A record written over two lines, parted after its first member."""
    row = json.loads(line)
    first = next(iter(row))
    rest = {key: value for key, value in row.items() if key != first}
    return json.dumps({first: row[first]}).encode()[:-1] + b",\n" + json.dumps(rest).encode()[1:] + b"\n"


def _number_to_nan(field):
    """The first record from line index `at` on whose `field` holds a number, with NaN there (Python's json writes
    it)."""
    def change(lines, at):
        at = next(i for i in range(at, len(lines)) if isinstance(json.loads(lines[i])[field], (int, float)))
        return [*lines[:at], json.dumps(json.loads(lines[at]) | {field: math.nan}).encode() + b"\n", *lines[at + 1:]]
    return change


# Lines Arrow reads otherwise than one record a line (it parses values, not lines), each changed from line index `at`
# on, and the line-by-line read's one line about the first: two records on a line make up a row count that a blank
# line, or a record over two lines, takes away; NaN is a number to Arrow; Arrow stopped Python (SIGSEGV) on a file
# or a slice whose first value is null
UNLIKE_LINES = {
    "two on a line, a blank line": (
        "lines", lambda lines, at: [*lines[:at], lines[at][:-1] + b" " + lines[at + 1], b"\n", *lines[at + 2:]],
        1, "malformed JSON"),
    "one over two lines, two on a line": (
        "lines", lambda lines, at: [*lines[:at], _parted(lines[at]), lines[at + 1][:-1] + lines[at + 2], *lines[at + 3:]],
        1, "malformed JSON"),
    "null first": ("lines", lambda lines, at: [*lines[:at], b"null\n", *lines[at:]], 1,
                   "a line must hold one JSON object"),
    "NaN": ("number", None, None, "NaN is not a JSON number"),
}
FORMAT_FILES = {  # release folder -> (a file, a file with a number field, that field)
    REPO_ROOT: ("qa", "profile", "confidence"), GROUPASSIST: ("atoms", "criteria", "weight")}
SLICE = 4000  # bytes of a slice in the test: the files hold several


def validated_in_a_fork(root: Path, slice_bytes: int) -> tuple[int, str, str]:
    """`realcompanion validate root`, the reader's slices `slice_bytes` long, in a forked child of this process: the
    modules are imported already, and a crash of the reader takes down the child alone. (exit code, or -N for
    signal N; stdout; stderr), as `subprocess.run` gives them."""
    import os
    import signal
    import sys
    import tempfile
    import time

    import realcompanion.release as release
    from realcompanion.cli import main

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:  # the child never returns into the tests
            code = 1
            try:
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                sys.stdout, sys.stderr = (open(fd, "w", encoding="utf-8", closefd=False) for fd in (1, 2))
                release._SLICE_BYTES = slice_bytes
                code = main(["validate", str(root)])
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:  # noqa: B036 - what ends the child is printed, as Python prints it in a process
                import traceback

                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        deadline = time.monotonic() + 300
        while not (done := os.waitpid(pid, os.WNOHANG))[0]:
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                done = os.waitpid(pid, 0)
                break
            time.sleep(0.02)
        out.seek(0)
        err.seek(0)
        return os.waitstatus_to_exitcode(done[1]), out.read().decode(), err.read().decode()


@pytest.mark.parametrize("sliced", [False, True], ids=["whole file", "a slice at a time"])
@pytest.mark.parametrize("folder", FORMAT_FILES, ids=["realcompanion", "groupassist"])
@pytest.mark.parametrize("unlike", UNLIKE_LINES)
def test_lines_arrow_reads_otherwise_are_named_as_a_line_by_line_read_names_them(tmp_path, unlike, folder, sliced):
    """Whether the file is read whole (from its first line) or, after a record that does not fit its types, a slice
    at a time (from the first line of its second slice, the record in its last), the reader names the line as a
    read line by line does. Arrow's count of rows equalled the lines' and the release was VALID (or the record's
    SCH1 alone was reported); a leading null crashed the process. Run in a process of its own, which a crash cannot
    take down with the tests (a fork of this one)."""
    from conftest import copy_release

    where, change, line, said = UNLIKE_LINES[unlike]
    plain, numbered, field = FORMAT_FILES[folder]
    name = plain if where == "lines" else numbered
    root = copy_release(folder, tmp_path / "release")
    path = root / "data" / f"{name}.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    ends = list(itertools.accumulate(map(len, lines)))
    at = next(i + 1 for i, end in enumerate(ends) if end > SLICE) if sliced else 0  # the second slice's first line
    lines = (change or _number_to_nan(field))(lines, at)
    if sliced:  # a record whose own key is not text, in the last slice: the whole file's typed read fails
        last = json.loads(lines[-1])
        lines[-1] = json.dumps(last | {next(iter(last)): 5}).encode() + b"\n"
    path.write_bytes(b"".join(lines))
    code, out, err = validated_in_a_fork(root, SLICE if sliced else 1 << 20)
    assert code == 2, (code, out[-2000:], err[-2000:])
    where = f"{name}.jsonl:{at + line}:" if line else f"{name}.jsonl:"
    check_contract(code, out, err, where)
    assert said in err, err
