"""`validate` checks strictly more than Frictionless: whatever Frictionless finds wrong in a release, `validate`
finds wrong too (an error rule fails, or the release is unreadable, exit 2), in both formats.

Random careless edits of one record (a value of another type, a field dropped, a row deleted or repeated,
identifiers swapped, bytes inserted) are judged by both; an edit Frictionless passes may pass or fail here.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from conftest import copy_release
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_fuzz import CORRUPTIONS, SPECIMENS, swap_ids
from tiny_release import build

from realcompanion.cli import main
from realcompanion.errors import ReadError
from realcompanion.formats.groupassist import SPECIMEN
from realcompanion.formats.groupassist import synth as groupassist
from realcompanion.schemas import RESOURCES
from realcompanion.stamp import stamp

GROUPASSIST_RESOURCES = ("messages", "members", "instances", "anchors", "criteria")


def frictionless_finds_errors(root: Path) -> bool:
    """Whether `frictionless validate` finds the release invalid: an error in its report, or an exception (a bound
    it cannot compare with a value raises TypeError: the command prints it and exits 1)."""
    from frictionless import Package, system

    with system.use_context(trusted=True):
        try:
            return not Package(str(root / "datapackage.json")).validate().valid
        except Exception:  # noqa: BLE001 - any exception is the command's exit 1
            return True


def judged_alike(root: Path, fmt: str, resource: str, corrupt, draw, restamp, capsys) -> None:
    path = root / "data" / f"{resource}.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    assume(len(lines) >= 2 or corrupt is not swap_ids)
    corrupt(lines, draw, **({"keys": SPECIMENS[fmt][1][resource]} if corrupt is swap_ids else {}))
    path.write_bytes(b"".join(lines))
    try:
        restamp(root)  # the declared counts and hashes describe the edited file: the content must be caught
    except ReadError:
        pass  # a file the stamp cannot read: validate's to name (exit 2)
    code = main(["validate", str(root)])
    capsys.readouterr()
    if frictionless_finds_errors(root):
        assert code in (1, 2), f"Frictionless finds errors in {path.name} that validate passes"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """The hand-built release (tests/tiny_release.py), built once: each case edits a copy."""
    return build(tmp_path_factory.mktemp("tiny") / "release")


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(resource=st.sampled_from(RESOURCES), corrupt=st.sampled_from(CORRUPTIONS), data=st.data())
def test_realcompanion(resource, corrupt, data, capsys, tiny):
    with tempfile.TemporaryDirectory() as tmp:
        judged_alike(copy_release(tiny, Path(tmp) / "release"), "realcompanion", resource, corrupt, data.draw, stamp,
                     capsys)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(resource=st.sampled_from(GROUPASSIST_RESOURCES), corrupt=st.sampled_from(CORRUPTIONS), data=st.data())
def test_groupassist(resource, corrupt, data, capsys):
    with tempfile.TemporaryDirectory() as tmp:
        root = copy_release(SPECIMEN, Path(tmp) / "release")
        judged_alike(root, "groupassist", resource, corrupt, data.draw, groupassist.stamp, capsys)


# Edits a fork author makes to the schemas and the descriptor rather than to one record: a new field of
# source (in every record), a new resource `notes`, or a core resource's descriptor entry.
def _field(field: dict, second, others, resource: str = "source") -> callable:
    """A new field of `resource` (GroupAssistBench: members), in every record (`second` on the second)."""
    def edit(root: Path) -> None:
        path = root / "schemas" / f"{resource}.schema.json"
        schema = json.loads(path.read_text(encoding="utf-8"))
        schema["fields"].append({"name": "extra", **field})
        path.write_text(json.dumps(schema, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        data = root / "data" / f"{resource}.jsonl"
        records = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()]
        data.write_text("".join(json.dumps({**r, "extra": second if i == 1 else others}) + "\n"
                                for i, r in enumerate(records)), encoding="utf-8")
    return edit


def _notes(schema: dict, records: list[dict]) -> callable:
    def edit(root: Path) -> None:
        (root / "schemas" / "notes.schema.json").write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
        (root / "data" / "notes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        _descriptor(lambda d: d["resources"].append({"name": "notes", "type": "table", "path": "data/notes.jsonl",
                                                     "format": "jsonl", "schema": "schemas/notes.schema.json"}))(root)
    return edit


def _descriptor(change) -> callable:
    def edit(root: Path) -> None:
        path = root / "datapackage.json"
        descriptor = json.loads(path.read_text(encoding="utf-8"))
        change(descriptor)
        path.write_text(json.dumps(descriptor, indent=2), encoding="utf-8")
    return edit


def _source(key, value) -> callable:
    return _descriptor(lambda d: next(r for r in d["resources"] if r["name"] == "source").__setitem__(key, value))


def _json_path(root: Path) -> None:
    """source's file named .json and its format left to the name: Frictionless reads one JSON document."""
    (root / "data" / "source.jsonl").rename(root / "data" / "source.json")
    _source("path", "data/source.json")(root)
    _descriptor(lambda d: next(r for r in d["resources"] if r["name"] == "source").pop("format"))(root)


def _cites_missing_value(root: Path) -> None:
    """A resource keeping "" a value (no missing values) cites notes' "", which notes reads as null (default)."""
    _notes({"fields": [{"name": "id", "type": "string"}, NOTE[1]]}, [{"id": "", "b": 1}, {"id": "x", "b": 2}])(root)
    (root / "schemas" / "cite.schema.json").write_text(json.dumps({
        "fields": [{"name": "to", "type": "string"}], "missingValues": [],
        "foreignKeys": [{"fields": "to", "reference": {"resource": "notes", "fields": "id"}}]}, indent=2) + "\n")
    (root / "data" / "cite.jsonl").write_text('{"to": ""}\n{"to": "x"}\n')
    _descriptor(lambda d: d["resources"].append({"name": "cite", "type": "table", "path": "data/cite.jsonl",
                                                 "format": "jsonl", "schema": "schemas/cite.schema.json"}))(root)


def _written(schema: dict, text: str) -> callable:
    """A new resource `notes` whose file is `text`, written by hand (a number `json.dumps` would not write)."""
    def edit(root: Path) -> None:
        _notes(schema, [])(root)
        (root / "data" / "notes.jsonl").write_text(text, encoding="utf-8")
    return edit


NEW_YEAR = "2025-01-01T00:00:00Z"
UUID = "2bc1c94f-0deb-43e9-92a1-4775189ec9f8"
NOTE = [{"name": "a", "type": "string"}, {"name": "b", "type": "integer"}]
FRICTIONLESS_REJECTS = {  # edit -> validate's exit code: 1 names the rows, 2 refuses what it does not read
    "uuid format": (_field({"type": "string", "format": "uuid"}, "not-a-uuid", UUID), 1),
    "email format": (_field({"type": "string", "format": "email"}, "not an email", "a@example.org"), 2),
    "uri format": (_field({"type": "string", "format": "uri"}, "not a uri", "https://example.org"), 2),
    "date pattern format": (_field({"type": "date", "format": "%d/%m/%Y"}, "2025-01-02", "2025-01-01"), 2),
    "utf-16 encoding": (_source("encoding", "utf-16"), 2),
    "csv format": (_source("format", "csv"), 2),
    "json path": (_json_path, 2),
    "headerless dialect": (_source("dialect", {"header": False}), 2),
    "https scheme": (_source("scheme", "https"), 2),
    "extra paths": (_source("extrapaths", ["data/source.jsonl"]), 2),
    "required missing value": (_notes({"fields": [{"name": "a", "type": "string", "constraints": {"required": True}}],
                                       "missingValues": ["", "NA"]}, [{"a": "x"}, {"a": "NA"}]), 1),
    "blank record": (_notes({"fields": NOTE}, [{"a": "x", "b": 1}, {"a": "", "b": None}]), 1),
    "datetime minimum across offsets": (_field({"type": "datetime", "constraints": {"minimum": NEW_YEAR}},
                                               "2025-01-01T00:30:00+01:00", NEW_YEAR), 1),
    "exclusive minimum": (_field({"type": "integer", "constraints": {"exclusiveMinimum": 0}}, 0, 1), 1),
    "exclusive maximum of a date": (_field({"type": "date", "constraints": {"exclusiveMaximum": "2025-01-02"}},
                                           "2025-01-02", "2025-01-01"), 1),
    "a field's own missing value": (_field({"type": "string", "missingValues": ["NA"], "constraints": {
        "required": True}}, "NA", "x"), 1),
    "a labelled missing value": (_field({"type": "string", "missingValues": [{"value": "NA", "label": "not asked"}],
                                         "constraints": {"required": True}}, "NA", "x"), 1),
    "a missing value a number prints as": (_notes({"fields": [{"name": "a", "type": "integer", "constraints": {
        "required": True}}], "missingValues": ["", "-1"]}, [{"a": 1}, {"a": -1}]), 2),
    "array items": (_field({"type": "array", "arrayItem": {"type": "integer"}}, ["a"], ["1"]), 2),
    "fractional bound of an integer": (_field({"type": "integer", "constraints": {"minimum": 0.5}}, 1, 1), 2),
    "datetime bound without offset": (_field({"type": "datetime", "constraints": {"minimum": "2025-01-01T00:00:00"}},
                                             NEW_YEAR, NEW_YEAR), 2),
    "unique datetime, one instant twice": (_notes({"fields": [{"name": "t", "type": "datetime", "constraints": {
        "unique": True}}]}, [{"t": NEW_YEAR}, {"t": "2025-01-01T01:00:00+01:00"}]), 1),
    "datetime key, one instant twice": (_notes({"fields": [{"name": "t", "type": "datetime"}], "primaryKey": "t"},
                                               [{"t": NEW_YEAR}, {"t": "2025-01-01T00:00:00.000+00:00"}]), 1),
    "number key, 0 and -0": (_notes({"fields": [{"name": "a", "type": "number"}], "primaryKey": "a"},
                                    [{"a": 0}, {"a": -0.0}]), 1),
    "composite key with a null part": (_notes({"fields": [{"name": "p", "type": "string"}, {"name": "d", "type": "string"}],
                                               "foreignKeys": [{"fields": ["p", "d"], "reference": {
                                                   "resource": "source", "fields": ["participant_id", "dayid"]}}]},
                                              [{"p": "U01", "d": None}]), 1),
    "key of another type": (_notes({"fields": [{"name": "t", "type": "string"}], "foreignKeys": [
        {"fields": "t", "reference": {"resource": "source", "fields": "turn"}}]}, [{"t": "1"}]), 1),
    "key citing a missing value": (_cites_missing_value, 1),
    "Table Schema Frictionless rejects": (_field({"type": "integer", "constraints": {"minLength": 2}}, 1, 10), 2),
    "pattern that does not compile anchored": (_field({"type": "string", "constraints": {"pattern": "(?i)x"}}, "x", "x"),
                                               2),
    "unique array": (_notes({"fields": [{"name": "a", "type": "array", "constraints": {"unique": True}}, NOTE[1]]},
                            [{"a": ["x"], "b": 1}]), 2),
    "integer too long to read": (_written({"fields": [{"name": "a", "type": "integer"}]}, f'{{"a": {"9" * 5000}}}\n'),
                                 2),
}


# Random fork edits, composed: a new field of source (every record) or a new resource, of any Table Schema type and
# format, with any constraints, missing values and keys, holding values that meet or break them, and a resource
# property of the descriptor written after the stamp.
VALUES = [None, "", "NA", "x", "ab", UUID, "not-a-uuid", "a@example.org", "2025-01-01", "2025-13-01", NEW_YEAR,
          "2025-01-01T01:00:00+01:00", "2025-01-01T00:00:00", "1", 0, 1, -1, 2, 1.5, True, False, [], ["a"], ["a", "b"],
          [1], {"a": 1}, 2 ** 53 + 1, 2 ** 60, 1.152921504606847e18]
BOUNDS = [0, 1, 1.5, "1", "2025-01-01", NEW_YEAR, "2025-01-01T00:00:00", 2 ** 53, 2 ** 53 + 1, 2 ** 64]
CONSTRAINTS = {"required": st.booleans(), "unique": st.booleans(), "minLength": st.sampled_from([0, 1, 2]),
               "maxLength": st.sampled_from([0, 1, 2]),
               "pattern": st.sampled_from(["x+", "a.*", r"\d", "[^b]*", "(?i)x"]),
               "enum": st.lists(st.sampled_from(VALUES), min_size=1, max_size=3),
               **{k: st.sampled_from(BOUNDS) for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")}}
PROPERTIES = {"format": st.sampled_from(["default", "uuid", "email", "uri", "binary", "%Y-%m-%d", "any"]),
              "missingValues": st.lists(st.sampled_from(["", "NA", "-1", "True", "[]", "x"]), max_size=2),
              "trueValues": st.just(["yes"]), "bareNumber": st.just(False), "groupChar": st.just(","),
              "arrayItem": st.just({"type": "integer"}), "example": st.sampled_from(VALUES)}
RESOURCE_PROPERTIES = {"rows": st.integers(0, 50), "fields": st.integers(1, 12), "scheme": st.sampled_from(["file", "https"]),
                       "mediatype": st.just("text/csv"), "encoding": st.sampled_from(["UTF-8", "latin-1"]),
                       "format": st.sampled_from(["ndjson", "json"]), "title": st.just("notes"),
                       "profile": st.just("tabular-data-resource"), "extrapaths": st.just(["data/source.jsonl"])}


def some(draw, options: dict, most: int) -> dict:
    """Up to `most` of the options, each with a value drawn from its strategy."""
    return {k: draw(options[k]) for k in draw(st.lists(st.sampled_from(sorted(options)), max_size=most, unique=True))}


@st.composite
def new_field(draw) -> dict:
    field = {"name": "extra", "type": draw(st.sampled_from(
        ["string", "integer", "number", "boolean", "date", "datetime", "array", "object", "year", "any"]))}
    return field | some(draw, PROPERTIES, 1) | {"constraints": some(draw, CONSTRAINTS, 3)}


KEYS = {"realcompanion": ("source", ["dayid", "turn"]), "groupassist": ("messages", ["message_id", "turn"])}


@st.composite
def fork_edit(draw, release: str) -> tuple[callable, callable]:
    """(edit, later): a new field of the format's first resource or a new resource, and a resource property."""
    field, values = draw(new_field()), draw(st.lists(st.sampled_from(VALUES), min_size=1, max_size=4))
    if draw(st.booleans()):
        edit = _field({k: v for k, v in field.items() if k != "name"}, values[0], values[-1],
                      "source" if release == "realcompanion" else "members")
    else:
        cited, keys = KEYS[release]
        schema = {"fields": [field, NOTE[1]]} | some(draw, {
            "missingValues": PROPERTIES["missingValues"], "primaryKey": st.sampled_from(["extra", ["extra", "b"]]),
            "foreignKeys": st.sampled_from([[{"fields": "extra", "reference": {"resource": cited, "fields": f}}]
                                            for f in keys] + [[{"fields": "b", "reference": {
                                                "resource": "", "fields": "extra"}}]])}, 2)
        edit = _notes(schema, [{"extra": v, "b": i} for i, v in enumerate(values)])
    later = some(draw, RESOURCE_PROPERTIES, 1)
    return edit, _descriptor(lambda d: d["resources"][-1].update(later))


@pytest.mark.parametrize("release, examples", [("realcompanion", 15), ("groupassist", 4)])
def test_random_fork_edits(release, examples, capsys, tiny):
    """Whatever Frictionless finds wrong in a release after random fork edits, validate finds wrong too (exit 1 or 2);
    it never ends otherwise (a traceback would fail the test)."""
    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(edits=fork_edit(release))
    def judge(edits):
        code, found = judged(edits[0], capsys, tiny if release == "realcompanion" else SPECIMEN, edits[1])
        assert code in (0, 1, 2)
        if found:
            assert code in (1, 2), "Frictionless finds errors that validate passes"

    judge()


def judged(edit, capsys, base: Path, later=None) -> tuple[int, bool]:
    """validate's exit code and whether Frictionless finds errors, on a copy of `base` (the tiny release or the
    GroupAssistBench specimen) after `edit` (and `later`, after the stamp)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = copy_release(base, Path(tmp) / "release")
        restamp = groupassist.stamp if base == SPECIMEN else stamp
        edit(root)
        try:
            restamp(root)
        except ReadError:
            pass
        if later:
            later(root)
        code = main(["validate", str(root)])
        capsys.readouterr()
        return code, frictionless_finds_errors(root)


@pytest.mark.parametrize("case", FRICTIONLESS_REJECTS)
def test_fork_edits_frictionless_rejects(case, capsys, tiny):
    edit, expected = FRICTIONLESS_REJECTS[case]
    code, found = judged(edit, capsys, tiny)
    assert found, f"Frictionless passes the {case} edit"
    assert code == expected


@pytest.mark.parametrize("case", {
    "uuid format": _field({"type": "string", "format": "uuid"}, UUID, None),
    "missing value as a foreign key": _notes(
        {"fields": [{"name": "dayid", "type": "string"}, NOTE[1]],
         "foreignKeys": [{"fields": "dayid", "reference": {"resource": "source", "fields": "dayid"}}]},
        [{"dayid": "", "b": 1}]),
    "datetime maximum across offsets": _field({"type": "datetime", "constraints": {"maximum": NEW_YEAR}},
                                              "2025-01-01T00:30:00+01:00", NEW_YEAR),
    "number key citing an integer": _notes({"fields": [{"name": "t", "type": "number"}], "foreignKeys": [
        {"fields": "t", "reference": {"resource": "source", "fields": "turn"}}]}, [{"t": 1.0}]),
    "a labelled missing value": _field({"type": "string", "missingValues": [{"value": "NA", "label": "not asked"}]},
                                       "NA", "x"),
    "exclusive bounds met": _field({"type": "number", "constraints": {"exclusiveMinimum": 0, "exclusiveMaximum": 1}},
                                   0.5, 0.25),
    "missing values that repeat or break a pattern": _notes(
        {"fields": [{"name": "a", "type": "string", "constraints": {"unique": True, "pattern": "x+"}}, NOTE[1]]},
        [{"a": "", "b": 1}, {"a": "", "b": 2}, {"a": "x", "b": 3}]),
    "numbers beyond 2^53 and datetimes across offsets": _notes({"fields": [
        {"name": "x", "type": "number", "constraints": {"exclusiveMaximum": 2 ** 53 + 1}},
        {"name": "y", "type": "integer", "constraints": {"maximum": 10 ** 400, "exclusiveMaximum": 2 ** 63}},
        {"name": "t", "type": "number"}, {"name": "k", "type": "integer"},
        {"name": "d", "type": "datetime", "constraints": {"unique": True, "enum": [NEW_YEAR, "2025-01-02T00:00:00Z"]}}],
        "foreignKeys": [{"fields": "k", "reference": {"resource": "", "fields": "t"}}]},
        [{"x": 2 ** 53, "y": 2 ** 63 - 1, "t": 1.5, "k": 0, "d": "2025-01-01T00:00:00+00:00"},
         {"x": -2 ** 53, "y": -1, "t": 0, "k": 0, "d": "2025-01-02T01:00:00+01:00"}]),
}.items(), ids=lambda case: case[0])
def test_fork_edits_both_pass(case, capsys, tiny):
    """What Frictionless reads as null (Table Schema's default missing value "") is null to validate too (SCH2,
    KEY1), and a
    datetime's range is compared as instants, not as text."""
    assert judged(case[1], capsys, tiny) == (0, False)


def test_numbers_beyond_2_53_and_datetimes_across_offsets(tiny):
    """Where 64-bit floats (and int64) compare otherwise than Frictionless, each row is named by its field: a number
    field's integer beyond ±2^53 (Arrow reads 2^53 + 1 as 2^53) and an integer field's beyond ±2^63 are set aside
    (SCH1: Arrow, pandas and datasets would load another value, or none); a float beyond 2^53 is compared as the
    decimal Frictionless reads (1.152921504606847e18 is not 2^60), in a bound and in a foreign key; a datetime's enum
    and unique compare instants."""
    from realcompanion.validators.run import validate

    notes = _notes({"fields": [
        {"name": "n", "type": "number", "constraints": {"enum": [2 ** 53, 0]}},
        {"name": "f", "type": "number", "constraints": {"maximum": 2 ** 60}},
        {"name": "b", "type": "integer"}, {"name": "k", "type": "number"},
        {"name": "t", "type": "datetime", "constraints": {"enum": [NEW_YEAR], "unique": True}}],
        "foreignKeys": [{"fields": "k", "reference": {"resource": "", "fields": "b"}}]},
        [{"n": 0, "f": 1.0, "b": 2 ** 60, "k": None, "t": None} | change for change in (
            {"t": NEW_YEAR}, {"n": 2 ** 53 + 1}, {"f": 1.152921504606847e18, "t": "2025-01-01T00:00:00+00:00"},
            {"k": 1.152921504606847e18})])  # a row that fails is not judged again by the other rules
    with tempfile.TemporaryDirectory() as tmp:
        root = copy_release(tiny, Path(tmp) / "release")
        notes(root)
        _field({"type": "integer"}, 2 ** 64, 1)(root)  # in another file: Arrow still reads notes in one pass
        stamp(root)
        assert frictionless_finds_errors(root)
        found = validate(root).failure_frame()
    said = {(r.rule, r.row, r.field): r.message for r in found.itertuples()}
    assert set(said) == {("SCH1", "line 2", "n"), ("SCH1", "U01:d001:002", "extra"), ("SCH2", "line 3", "f"),
                         ("KEY1", "line 4", "k"), ("INT8", "line 4", "k"), ("SCH2", "line 1", "t"),
                         ("SCH2", "line 3", "t")}, said  # INT8: datasets would load k as 1.152921505e18
    assert "an integer beyond ±2^53" in said["SCH1", "line 2", "n"]
    assert "an integer beyond ±2^63" in said["SCH1", "U01:d001:002", "extra"]
    assert said["SCH2", "line 3", "f"].startswith("violates less_than_or_equal_to")
    assert said["SCH2", "line 1", "t"] == "value not unique: also on line 3"  # the same instant as written otherwise
    assert said["SCH2", "line 3", "t"] == "value not unique: also on line 1"


def test_repeated_nulls_under_stale_schema_copies(capsys, tiny):
    """A unique field may repeat null (pandera raises with no failure case): SCH2 still evaluates when the
    schemas' enum and pattern copies are stale (INT5's finding, which SCH2's messages mention)."""
    edit = _notes({"fields": [{"name": "a", "type": "string", "constraints": {"unique": True}}, NOTE[1]]},
                  [{"a": None, "b": 1}, {"a": None, "b": 2}])
    with tempfile.TemporaryDirectory() as tmp:
        root = copy_release(tiny, Path(tmp) / "release")
        edit(root)
        stamp(root)
        path = root / "schemas" / "vocabulary.json"  # a value the rendered enum copies do not hold yet
        vocabulary = json.loads(path.read_text(encoding="utf-8"))
        vocabulary["sender"].append("narrator")
        path.write_text(json.dumps(vocabulary), encoding="utf-8")
        main(["validate", str(root)])
        out = capsys.readouterr().out
        assert "FAIL INT5" in out and "could not be evaluated" not in out


GROUPASSIST_REJECTS = {  # the same kinds of edit on a GroupAssistBench release -> validate's exit code
    "uuid format": (_field({"type": "string", "format": "uuid"}, "not-a-uuid", UUID, "members"), 1),
    "email format": (_field({"type": "string", "format": "email"}, "not-a-uuid", UUID, "members"), 2),
    "headerless dialect": (_descriptor(lambda d: d["resources"][0].__setitem__("dialect", {"header": False})), 2),
    "new resource's maximum": (_notes({"fields": [{"name": "a", "type": "integer", "constraints": {"maximum": 3}}]},
                                      [{"a": 1}, {"a": 5}]), 1),
}


@pytest.mark.parametrize("case", GROUPASSIST_REJECTS)
def test_groupassist_fork_edits(case, capsys):
    """The same edits on a GroupAssistBench release: a new field of members, messages' descriptor entry, or a new
    resource (whose constraints GS2 checks as SCH2 checks a RealCompanion fork's)."""
    edit, expected = GROUPASSIST_REJECTS[case]
    assert judged(edit, capsys, SPECIMEN) == (expected, True)


@pytest.mark.parametrize("key, value, rule", [("hash", "md5:" + "0" * 32, "INT1"), ("hash", "0" * 32, "INT1"),
                                             ("hash", lambda declared: declared[:7] + declared[7:].upper(), "INT1"),
                                             ("bytes", 5, "INT1"), ("rows", 5, "INT2"), ("fields", 3, "INT2")])
def test_resource_hash_bytes_and_counts(key, value, rule, capsys, tiny):
    """A resource's Data Package `hash` (a bare digest is MD5's; an upper-case digest is wrong to Frictionless) and
    `bytes` are INT1's, in any algorithm Frictionless checks; its `rows` and `fields` (Frictionless's row-count and
    field-count) are INT2's."""
    with tempfile.TemporaryDirectory() as tmp:
        root = copy_release(tiny, Path(tmp) / "release")
        _descriptor(lambda d: d["resources"][0].__setitem__(key, value(d["resources"][0][key]) if callable(value)
                                                            else value))(root)
        code = main(["validate", str(root)])
        out = capsys.readouterr().out
        assert frictionless_finds_errors(root)
        assert code == 1 and f"FAIL {rule}" in out
