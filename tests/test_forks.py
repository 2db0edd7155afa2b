"""Forks, end to end, as docs/forking.md walks them: edit files, `refresh`, `validate`, `publish --dry-run`.

Three scenarios (a new participant; a new optional field with its own vocabulary; a
new resource with its own Table Schema and declared rules) and cutting a new version.
Each must pass both `realcompanion validate` and `frictionless validate
datapackage.json`; each way of breaking the new resource must fail, naming the rule
and the row.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from realcompanion.validators.run import validate
from test_rules import read, write

from realcompanion.cli import main
from realcompanion.formats.groupassist import SPECIMEN, GroupAssistRelease
from realcompanion.names import DOCUMENTS
from realcompanion.paths import REPO_ROOT
from realcompanion.release import Release

REPO_ID = "org/fork"


def mistakes_table(text: str) -> list[tuple[str, str]]:
    """(rule, quoted message) of each row of the first table of mistakes in `text` (docs/forking.md, or a section of
    it): the row's first rule and the first text its last cell quotes."""
    table = text.split("| mistake | rule | the report says |\n")[1].split("\n\n")[0].splitlines()[1:]
    cells = [[c.strip() for c in line.strip()[1:-1].split(" | ")] for line in table]
    return [(re.search(r"`(\w+)`", rule).group(1), re.search(r"`(.+?)`", says).group(1)) for _, rule, says in cells]


def frictionless_valid(root: Path) -> bool:
    from frictionless import Package, system

    with system.use_context(trusted=True):
        return Package(str(root / "datapackage.json")).validate().valid


def edit_json(path: Path, change) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


@pytest.fixture
def fork(specimen, repo):
    """A copy of the release with its documents, as a fork author clones it."""
    for name in DOCUMENTS:
        shutil.copy2(repo / name, specimen / name)
    return specimen


def refresh_validate_publish(root: Path, capsys, version: str = "0.1.0") -> str:
    """The fork author's three commands; returns the publish plan."""
    assert main(["refresh", str(root)]) == 0
    capsys.readouterr()
    assert main(["validate", str(root)]) == 0, capsys.readouterr().out[-3000:]
    assert frictionless_valid(root)
    capsys.readouterr()
    assert main(["publish", str(root), "--repo-id", REPO_ID, "--version", version, "--dry-run"]) == 0, \
        capsys.readouterr().err
    return capsys.readouterr().out


# -- scenario 1: a new participant ---------------------------------------------

def add_participant(root: Path, new: str = "U05", like: str = "U01") -> None:
    """Every record of `like`, again under a new participant id (ids carry the participant as prefix)."""
    def renamed(value):
        if isinstance(value, str):
            return new if value == like else value.replace(f"{like}:", f"{new}:")
        if isinstance(value, list):
            return [renamed(v) for v in value]
        if isinstance(value, dict):
            return {k: renamed(v) for k, v in value.items()}
        return value

    for name in ("source", "profile", "persona", "chat", "qa"):
        rows = read(root, name)
        write(root, name, rows + [renamed(r) for r in rows if r["participant_id"] == like])


def test_a_new_participant(fork, capsys):
    add_participant(fork)
    assert main(["validate", str(fork)]) == 1  # the declared counts name the one command to run
    assert "realcompanion refresh" in capsys.readouterr().out
    plan = refresh_validate_publish(fork, capsys)
    assert json.loads((fork / "datapackage.json").read_text())["realcompanion"]["participants"]["U05"]["persona"] == 39
    assert "data/source.jsonl" in plan


# -- scenario 2: a new optional field with a vocabulary ------------------------

def add_mood(root: Path, written_on_first_row: bool = True) -> None:
    """source gains `mood` (vocabulary `mood`); user messages carry it, companion messages leave it null."""
    edit_json(root / "schemas" / "vocabulary.json", lambda v: v.update(mood=["calm", "tense", "upbeat"]))
    edit_json(root / "schemas" / "source.schema.json", lambda s: s["fields"].append(
        {"name": "mood", "type": "string", "description": "The user's mood, as the curator read it; null when not read.",
         "example": "calm", "vocabulary": "mood", "constraints": {}}))
    rows = read(root, "source")
    for number, row in enumerate(rows):
        row["mood"] = ("calm", "tense", "upbeat")[number % 3] if row["sender"] == "user" else None
    if not written_on_first_row:
        del rows[0]["mood"]
    write(root, "source", rows)


def test_a_new_optional_field_with_a_vocabulary(fork, capsys):
    add_mood(fork)
    refresh_validate_publish(fork, capsys)
    schema = json.loads((fork / "schemas" / "source.schema.json").read_text())
    assert schema["fields"][-1]["constraints"]["enum"] == ["calm", "tense", "upbeat"]
    assert "`mood`" in (fork / "README.md").read_text() and "name: mood" in (fork / "README.md").read_text()


def test_a_value_outside_the_new_vocabulary_fails_naming_the_row(fork):
    add_mood(fork)
    assert main(["refresh", str(fork)]) == 0
    rows = read(fork, "source")
    row = next(r for r in rows if r["sender"] == "user")
    row["mood"] = "furious"
    write(fork, "source", rows)
    main(["refresh", str(fork)])
    failures = validate(fork).failure_frame()
    assert set(failures.loc[failures["rule"] == "SCH2", "row"]) == {row["dayid"]}


def test_a_stale_schema_copy_names_refresh(fork):
    add_mood(fork)
    assert main(["refresh", str(fork)]) == 0
    edit_json(fork / "schemas" / "vocabulary.json", lambda v: v["mood"].append("wistful"))
    rows = read(fork, "source")
    next(r for r in rows if r["sender"] == "user")["mood"] = "wistful"
    write(fork, "source", rows)
    main(["stamp", str(fork)])
    failures = validate(fork).failure_frame()
    assert failures.loc[failures["rule"] == "SCH2", "message"].str.contains("realcompanion refresh").all()
    assert main(["refresh", str(fork)]) == 0
    assert validate(fork).errors == 0


def test_an_optional_field_the_first_record_omits_fails_as_frictionless_fails(fork):
    """Frictionless reads the first record's keys as the header: both validators must agree."""
    add_mood(fork, written_on_first_row=False)
    assert main(["refresh", str(fork)]) == 1  # refused: it would stay invalid once stamped
    assert main(["refresh", "--force", str(fork)]) == 0
    report = validate(fork)
    assert report.fired() - {"NUL1"} == {"HDR1"}
    assert not frictionless_valid(fork)


def test_an_optional_field_a_later_record_omits_reads_as_null_for_both_validators(fork, capsys):
    """Only the first record must name every field (HDR1); a later one that omits an optional field reads it as
    null in Frictionless, in `datasets` and here (SCH1's statement says so)."""
    from realcompanion.loader import load

    add_mood(fork)
    rows = read(fork, "source")
    omitting = next(r for r in rows[1:] if r["sender"] == "companion")
    del omitting["mood"]
    write(fork, "source", rows)
    refresh_validate_publish(fork, capsys)
    loaded = load(fork, "source")
    assert loaded[rows.index(omitting)]["mood"] is None


# -- scenario 3: a new resource with its own rules -----------------------------

NOTE_RULES = [
    {"id": "NOTE1", "severity": "error", "kind": "relationships", "resource": "notes", "field": "cites",
     "to": {"resource": "source", "field": "dayid"}, "same_participant": True,
     "statement": "every message a note cites is a message of the note's participant"},
    {"id": "NOTE2", "severity": "error", "kind": "cites_before", "resource": "notes", "field": "cites",
     "anchor": "anchor", "statement": "a note cites only messages before its anchor"},
    {"id": "NOTE3", "severity": "error", "kind": "unique", "resource": "notes", "fields": ["participant_id", "text"],
     "statement": "a participant's notes have distinct texts"},
    {"id": "NOTE4", "severity": "warning", "kind": "expression", "resource": "notes", "field": "text",
     "expression": "len(text) <= 80", "statement": "a note is at most 80 characters"},
    {"id": "NOTE5", "severity": "error", "kind": "count_per_participant", "resource": "notes", "count": "declared",
     "statement": "every participant has the declared number of notes"},
    {"id": "NOTE6", "severity": "error", "kind": "expression", "resource": "notes", "where": "kind == 'follow_up'",
     "field": "cites", "expression": "len(cites or []) >= 2", "statement": "a follow-up cites at least two messages"},
    {"id": "NOTE7", "severity": "error", "kind": "not_null", "resource": "notes", "fields": ["cites"],
     "where": "kind == 'follow_up'", "statement": "a follow-up cites messages"},
    {"id": "NOTE8", "severity": "error", "kind": "accepted_values", "resource": "notes", "field": "kind",
     "values": ["reminder", "follow_up"], "statement": "a note is a reminder or a follow-up"},
]


def add_notes(root: Path) -> None:
    """A `notes` resource: a curator's note at one message, citing earlier messages of the same participant."""
    streams: dict[str, list[dict]] = {}
    for message in read(root, "source"):
        streams.setdefault(message["participant_id"], []).append(message)
    notes = []
    for pid, stream in streams.items():
        for n in range(3):
            notes.append({"note_id": f"{pid}:N{n + 1:04d}", "participant_id": pid,
                          "anchor": stream[20 + 5 * n]["dayid"],
                          "cites": [stream[2 + n]["dayid"], stream[10 + n]["dayid"]],
                          "kind": ("reminder", "follow_up", "reminder")[n], "text": f"Note {n + 1} about {pid}."})
    write(root, "notes", notes)
    (root / "schemas" / "notes.schema.json").write_text(json.dumps({
        "fields": [
            {"name": "note_id", "type": "string", "description": "Note identifier {participant_id}:N{n:04d}.",
             "constraints": {"required": True, "unique": True, "pattern": "^U[0-9]{2,4}:N[0-9]{4}$"}},
            {"name": "participant_id", "type": "string", "identifier": "participant_id",
             "description": "Participant the note is about.", "constraints": {"required": True}},
            {"name": "anchor", "type": "string", "identifier": "dayid", "description": "The message the note was written at.",
             "constraints": {"required": True}},
            {"name": "cites", "type": "array", "description": "Earlier messages the note cites.",
             "nestedSchema": "nested/dayid_list.schema.json", "constraints": {}},
            {"name": "kind", "type": "string", "vocabulary": "note_kind", "description": "What the note is.",
             "constraints": {"required": True}},
            {"name": "text", "type": "string", "description": "The note.", "constraints": {"required": True}},
        ],
        "missingValues": [], "primaryKey": ["note_id"],
        "foreignKeys": [{"fields": ["anchor"], "reference": {"resource": "source", "fields": ["dayid"]}},
                        {"fields": ["participant_id"], "reference": {"resource": "source", "fields": ["participant_id"]}}],
    }, indent=2), encoding="utf-8")
    edit_json(root / "schemas" / "vocabulary.json", lambda v: v.update(note_kind=["reminder", "follow_up"]))
    edit_json(root / "datapackage.json", lambda d: d["resources"].append(
        {"name": "notes", "type": "table", "path": "data/notes.jsonl", "format": "jsonl",
         "mediatype": "application/jsonl", "encoding": "utf-8",
         "description": "A curator's note written at one message, citing earlier ones.",
         "schema": "schemas/notes.schema.json"}))
    edit_json(root / "schemas" / "rules.json", lambda r: r["rules"].extend(NOTE_RULES))


def test_a_new_resource_with_its_own_rules(fork, capsys):
    add_notes(fork)
    plan = refresh_validate_publish(fork, capsys)
    assert "data/notes.jsonl" in plan and "schemas/notes.schema.json" in plan
    main(["rules", str(fork)])
    listed = capsys.readouterr().out
    assert all(rule["id"] in listed for rule in NOTE_RULES)
    sheet = (fork / "DATASHEET.md").read_text(encoding="utf-8")
    assert all(f"`{rule['id']}`" in sheet for rule in NOTE_RULES)
    assert "config_name: notes" in (fork / "README.md").read_text(encoding="utf-8")


def _note(root, n=0):
    rows = read(root, "notes")
    return rows, rows[n]


def duplicate_key(root):
    rows, row = _note(root)
    rows.append(dict(row, text="Another note."))
    write(root, "notes", rows)
    return "SCH2", row["note_id"]


def foreign_participant(root):
    rows, row = _note(root)
    row["participant_id"] = "U99"
    write(root, "notes", rows)
    return "KEY1", row["note_id"]


def dangling_dayid(root):
    rows, row = _note(root)
    row["cites"] = [row["cites"][0], row["participant_id"] + ":d999:999"]
    write(root, "notes", rows)
    return "NOTE1", row["note_id"]


def other_participants_message(root):
    rows, row = _note(root)
    other = next(r for r in rows if r["participant_id"] != row["participant_id"])
    row["cites"] = [other["cites"][0]]
    write(root, "notes", rows)
    return "NOTE1", row["note_id"]


def cites_after_anchor(root):
    rows, row = _note(root)
    row["cites"] = [row["anchor"]]
    write(root, "notes", rows)
    return "NOTE2", row["note_id"]


def same_text_twice(root):
    rows, row = _note(root)
    rows[1]["text"] = row["text"]
    write(root, "notes", rows)
    return "NOTE3", row["note_id"]


def long_text(root):
    rows, row = _note(root)
    row["text"] = "x" * 81
    write(root, "notes", rows)
    return "NOTE4", row["note_id"]


def follow_up_citing_one(root):
    rows, row = _note(root, 1)
    row["cites"] = row["cites"][:1]
    write(root, "notes", rows)
    return "NOTE6", row["note_id"]


def follow_up_citing_none(root):
    rows, row = _note(root, 1)
    row["cites"] = None
    write(root, "notes", rows)
    return "NOTE7", row["note_id"]


def identifier_of_another_participant(root):
    rows, row = _note(root)
    other = next(r for r in rows if r["participant_id"] != row["participant_id"])
    row["note_id"] = other["participant_id"] + ":N0099"
    write(root, "notes", rows)
    return "ID1", row["note_id"]


def unknown_field(root):
    rows, row = _note(root, 1)
    row["mood"] = "calm"
    write(root, "notes", rows)
    return "SCH1", row["note_id"]


def personal_data_in_a_note(root):
    rows, row = _note(root)
    row["text"] += " Write to a.b@example.org."
    write(root, "notes", rows)
    return "PII1", row["note_id"]


def undeclared_count(root):
    edit_json(root / "datapackage.json", lambda d: d["realcompanion"]["participants"]["U02"].update(notes=4))
    return "NOTE5", "U02"


@pytest.mark.parametrize("brk", [duplicate_key, foreign_participant, dangling_dayid, other_participants_message,
                                 cites_after_anchor, same_text_twice, long_text, follow_up_citing_one,
                                 follow_up_citing_none, identifier_of_another_participant, unknown_field,
                                 personal_data_in_a_note, undeclared_count])
def test_every_way_of_breaking_the_new_resource_is_named(fork, brk):
    add_notes(fork)
    main(["refresh", str(fork)])
    rule, row = brk(fork)
    if brk is not undeclared_count:
        main(["stamp", str(fork)])
    report = validate(fork)
    failures = report.failure_frame()
    fired = report.fired() - {"NUL1"}
    if rule == "NOTE6":
        fired -= {"NOTE4"}
    assert rule in fired, failures.to_string()
    named = failures[failures["rule"] == rule]
    assert row in set(named["row"].astype(str)), named.to_string()


def test_a_broken_new_file_is_unreadable_naming_file_and_line(fork, capsys):
    add_notes(fork)
    (fork / "data" / "notes.jsonl").write_text("{broken\n", encoding="utf-8")
    assert main(["validate", str(fork)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "notes.jsonl:1" in err


def test_an_expression_is_never_run_as_python(fork):
    add_notes(fork)
    marker = fork / "ran"
    edit_json(fork / "schemas" / "rules.json", lambda r: r["rules"].append(
        {"id": "EVIL", "severity": "error", "kind": "expression", "resource": "notes",
         "expression": f"__import__('os').system('touch {marker}') == 0", "statement": "never runs"}))
    main(["refresh", str(fork)])
    failures = validate(fork).failure_frame()
    assert not marker.exists()
    assert failures.loc[failures["rule"] == "EVIL", "message"].str.startswith("cannot be evaluated").all()


@pytest.mark.parametrize("declaration, field", [
    ({"kind": "unique", "fields": ["nope"]}, "rules[4]"),
    ({"kind": "accepted_values", "field": "sender"}, "rules[4]"),
    ({"kind": "expression", "expression": "sender ==", "field": "sender"}, "rules[4].expression"),
    ({"kind": "frobnicate"}, "rules[4]"),
    ({"kind": "unique", "fields": ["sender"], "statement": "a statement of one line\n"}, "rules[4].statement"),
    # within a oneOf's branch: the pattern's own error, not the whole rule as the oneOf's
    ({"kind": "unique", "fields": ["sender\n"]}, "field 'rules[4].fields[0]': \"sender\\n\" does not match"),
])
def test_a_bad_declaration_is_one_line_naming_file_and_place(fork, capsys, declaration, field):
    edit_json(fork / "schemas" / "rules.json", lambda r: r["rules"].append(
        {"id": "BAD1", "severity": "error", "statement": "bad", "resource": "source", **declaration}))
    assert main(["validate", str(fork)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "rules.json" in err and field in err, err


def test_refresh_of_a_fork_whose_chat_drops_trace_is_one_line_and_validate_names_it(fork, capsys):
    """`stamp` counts relabels and referent exceptions in `trace`: a fork whose chat schema has none is counted 0 of
    each, not stopped by a KeyError before any rule can say what it lacks, and INT7 names the core field dropped."""
    edit_json(fork / "schemas" / "chat.schema.json",
              lambda s: s.update(fields=[f for f in s["fields"] if f["name"] != "trace"]))
    write(fork, "chat", [{k: v for k, v in r.items() if k != "trace"} for r in read(fork, "chat")])
    assert main(["refresh", str(fork), "--force"]) == 0, capsys.readouterr().err
    assert "Traceback" not in capsys.readouterr().err
    failures = validate(fork).failure_frame()
    assert ("INT7", "fields.trace") in set(zip(failures["rule"], failures["field"]))


# -- cutting a new version -----------------------------------------------------

def test_cutting_a_new_version(fork, capsys):
    add_notes(fork)
    edit_json(fork / "datapackage.json", lambda d: d.update(version="0.2.0", created="2026-12-01T00:00:00Z"))
    changelog = fork / "CHANGELOG.md"
    changelog.write_text(changelog.read_text(encoding="utf-8").replace(
        "## [Unreleased]\n", "## [Unreleased]\n\n## [0.2.0] - 2026-12-01\n\n### Added\n\n- the `notes` resource.\n", 1),
        encoding="utf-8")
    plan = refresh_validate_publish(fork, capsys, version="0.2.0")
    assert "tag v0.2.0" in plan
    assert 'version: "0.2.0"' in (fork / "CITATION.cff").read_text(encoding="utf-8") or \
        "version: 0.2.0" in (fork / "CITATION.cff").read_text(encoding="utf-8")


def test_the_specimen_passes_frictionless_as_it_passes_realcompanion(repo):
    assert validate(repo).errors == 0
    assert frictionless_valid(repo)


def test_the_command_line_states_its_version(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"realcompanion {version('realcompanion')}"


def test_resources_carry_data_package_v2_hash_and_bytes_that_frictionless_checks(fork):
    from realcompanion.stamp import sha256_of

    descriptor = json.loads((fork / "datapackage.json").read_text(encoding="utf-8"))
    assert descriptor["$schema"].endswith("/2.0/datapackage.json")
    for resource in descriptor["resources"]:
        path = fork / resource["path"]
        assert resource["hash"] == f"sha256:{sha256_of(path)}" and resource["bytes"] == path.stat().st_size
    add_participant(fork)
    assert not frictionless_valid(fork)  # the stale hash is caught by Frictionless too
    assert main(["refresh", str(fork)]) == 0
    assert frictionless_valid(fork)


def test_refresh_keeps_the_rows_and_fields_a_resource_declares_true(fork, capsys):
    """Data Package `rows` and `fields` are a fork's to declare or not; once declared, they are counts of the
    files, which `refresh` writes as it writes the hashes (Frictionless and INT2 compare them)."""
    edit_json(fork / "datapackage.json", lambda d: d["resources"][4].update(rows=1, fields=2))
    add_participant(fork)
    assert main(["refresh", str(fork)]) == 0
    assert "refreshed: datapackage.json: resources hash, bytes, rows and fields\n" in capsys.readouterr().out
    qa = json.loads((fork / "datapackage.json").read_text(encoding="utf-8"))["resources"][4]
    assert (qa["name"], qa["rows"], qa["fields"]) == ("qa", len(read(fork, "qa")),
                                                      len(json.loads((fork / qa["schema"]).read_text())["fields"]))
    assert "rows" not in json.loads((fork / "datapackage.json").read_text(encoding="utf-8"))["resources"][0]
    assert validate(fork).errors == 0 and frictionless_valid(fork)


def test_an_older_release_keeping_its_digests_in_the_block_is_valid_and_refresh_moves_them(fork, capsys):
    """The format's older letter kept each file's sha256 in the block: with no resource `hash` such a release is VALID
    (the copy is its declared digest), and `refresh` leaves one digest per file, the resource's `hash`."""
    legacy_digests(fork, {})
    edit_json(fork / "datapackage.json", lambda d: [r.pop("hash") for r in d["resources"]])
    assert validate(fork).errors == 0 and frictionless_valid(fork)
    assert main(["refresh", str(fork)]) == 0
    assert "refreshed: datapackage.json: realcompanion.sha256" in capsys.readouterr().out.splitlines()
    descriptor = json.loads((fork / "datapackage.json").read_text(encoding="utf-8"))
    assert "sha256" not in descriptor["realcompanion"] and all(r["hash"].startswith("sha256:")
                                                               for r in descriptor["resources"])
    assert validate(fork).errors == 0


@pytest.mark.parametrize("unread, written", [
    ("data/qa.jsonl", ["refreshed: schema copy: schemas/source.schema.json"]),
    ("README.md", ["refreshed: datapackage.json: realcompanion.rows",
                   "refreshed: datapackage.json: resources hash and bytes"]),
], ids=["data-file", "card"])
def test_refresh_stopped_by_a_file_it_cannot_read_says_what_it_wrote(fork, capsys, unread, written):
    """`refresh` writes step by step: a file it could not read at a later step was one line, exit 2, and nothing said
    that the schema copies or the descriptor had been rewritten."""
    if unread == "README.md":
        write(fork, "qa", read(fork, "qa")[:-1])
    else:
        edit_json(fork / "schemas" / "source.schema.json", lambda s: s["fields"][4]["constraints"]["enum"].pop())
    (fork / unread).unlink()
    assert main(["refresh", str(fork)]) == 2
    out, err = capsys.readouterr()
    assert all(line in out.splitlines() for line in written), out
    assert err == f"error: {fork / unread}: no such file\n"


# -- every failure a stale generated part causes names the one command ----------

def undeclared_participant(root):
    edit_json(root / "datapackage.json", lambda d: d["realcompanion"]["participants"].pop("U02"))  # "no count declared"
    return "ARI3"


def legacy_digests(root, changed: dict[str, str]) -> None:
    """The block's `sha256` copy an older release keeps: each file's digest by path, `changed` ones changed."""
    def add(descriptor):
        digests = {r["path"]: r["hash"].removeprefix("sha256:") for r in descriptor["resources"]}
        descriptor["realcompanion"]["sha256"] = digests | changed
    edit_json(root / "datapackage.json", add)


def stale_sha256(root):
    legacy_digests(root, {"data/qa.jsonl": "0" * 64})
    return "INT1"


def undeclared_hash(root):
    edit_json(root / "datapackage.json", lambda d: d["resources"][0].pop("hash"))
    return "INT1"


def stale_hash(root):
    edit_json(root / "datapackage.json", lambda d: d["resources"][0].update(hash="sha256:" + "0" * 64))
    return "INT1"


def stale_rows(root):
    edit_json(root / "datapackage.json", lambda d: d["realcompanion"]["rows"].update(qa=1))
    return "INT2"


def sha256_of_a_dropped_file(root):
    """A resource dropped from the descriptor, its digest left in the block: `refresh` drops it, validate passed it."""
    legacy_digests(root, {"data/old.jsonl": "0" * 64})
    return "INT1"


def rows_of_a_dropped_resource(root):
    edit_json(root / "datapackage.json", lambda d: d["realcompanion"]["rows"].update(old=5))
    return "INT2"


def participant_count_of_a_dropped_resource(root):
    edit_json(root / "datapackage.json", lambda d: d["realcompanion"]["participants"]["U01"].update(old=5))
    return "ARI3"


def a_zero_participant_count(root):
    """A participant's rows of one resource removed, its count set to 0 by hand: `stamp` writes no 0 (`refresh`
    drops it), and validate passed it."""
    write(root, "qa", [row for row in read(root, "qa") if row["participant_id"] != "U01"])
    main(["stamp", "--force", str(root)])
    edit_json(root / "datapackage.json", lambda d: d["realcompanion"]["participants"]["U01"].update(qa=0))
    return "ARI3"


def stale_relabeled(root):
    edit_json(root / "datapackage.json", lambda d: d["realcompanion"].update(relabeled=d["realcompanion"]["relabeled"] + 1))
    return "CAT3"


def stale_resource_counts(root):
    """A fork that declares a resource's Data Package `rows` and `fields` (Frictionless compares them), then edits."""
    edit_json(root / "datapackage.json", lambda d: d["resources"][4].update(rows=1, fields=2))
    return "INT2"


def stale_schema_copy(root):
    edit_json(root / "schemas" / "vocabulary.json", lambda v: v["sender"].append("narrator"))
    return "INT5"


def stale_enum_copy(root):
    edit_json(root / "schemas" / "vocabulary.json", lambda v: v["sender"].append("narrator"))
    rows = read(root, "source")
    rows[0]["sender"] = "narrator"
    write(root, "source", rows)
    main(["stamp", "--force", str(root)])
    return "SCH2"


@pytest.mark.parametrize("stale", [undeclared_participant, stale_sha256, undeclared_hash, stale_hash, stale_rows, stale_relabeled,
                                   stale_resource_counts, stale_schema_copy, stale_enum_copy, sha256_of_a_dropped_file,
                                   rows_of_a_dropped_resource, participant_count_of_a_dropped_resource,
                                   a_zero_participant_count])
def test_every_stale_part_names_refresh_in_every_message(fork, stale):
    rule = stale(fork)
    failures = validate(fork).failure_frame()
    messages = failures.loc[failures["rule"] == rule, "message"]
    assert len(messages) and messages.str.contains("realcompanion refresh", regex=False).all(), messages.to_string()


@pytest.mark.parametrize("command, document", [("card", "README.md"), ("datasheet", "DATASHEET.md")])
def test_a_stale_document_check_names_refresh(fork, command, document, capsys):
    path = fork / document
    path.write_text(path.read_text(encoding="utf-8").replace("0.1.0", "0.0.9"), encoding="utf-8")
    edit_json(fork / "datapackage.json", lambda d: d["realcompanion"]["rows"].update(qa=1))
    assert main([command, str(fork)]) == 1
    assert "run `realcompanion refresh`" in capsys.readouterr().out


@pytest.mark.parametrize("command, document", [("card", "README.md"), ("datasheet", "DATASHEET.md"),
                                               ("refresh", "README.md"), ("refresh", "DATASHEET.md")])
def test_a_block_whose_markers_are_missing_is_never_said_rewritten(fork, command, document, capsys):
    """A block whose closing marker was deleted cannot be rewritten: `card --write` and `datasheet --write` said
    `rewrote:` it, and `refresh` said `refreshed:` it and exited 0, leaving the document stale for `publish`."""
    path = fork / document
    path.write_text(path.read_text(encoding="utf-8").replace("<!-- /generated:status -->", "", 1), encoding="utf-8")
    assert main([command, str(fork), *(["--write"] if command != "refresh" else [])]) == 1
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if line.startswith("stale: ") and line.endswith("status (markers missing)")]
    assert not [line for line in out.splitlines() if line.startswith(("rewrote:", "refreshed:")) and "status" in line]


@pytest.mark.parametrize("command, document", [("card", "README.md"), ("datasheet", "DATASHEET.md")])
def test_a_document_saved_with_crlf_line_ends_keeps_them(fork, command, document, capsys):
    """An editor that saves CRLF: every generated block was "markers missing", which no `--write` mends. The blocks
    are found, a current document is current, and a stale one is rewritten with its own line ends."""
    path = fork / document
    crlf = path.read_bytes().replace(b"\n", b"\r\n")
    path.write_bytes(crlf)
    assert main([command, str(fork)]) == 0
    marker = b"<!-- generated:status -->\r\n"
    path.write_bytes(crlf.replace(marker, marker + b"stale\r\n"))
    assert main([command, str(fork), "--write"]) == 0
    assert path.read_bytes() == crlf
    assert "markers missing" not in capsys.readouterr().out


@pytest.mark.parametrize("cls,source", [(Release, REPO_ROOT), (GroupAssistRelease, SPECIMEN)],
                         ids=["realcompanion", "groupassist"])
def test_a_fork_that_drops_a_required_resource_of_its_format_is_one_line(tmp_path, capsys, cls, source):
    """A fork may add resources and leave out an optional one (tests/test_optional_tracks.py), never drop a required
    one: `validate` judges it INVALID in one line naming the missing resource and those present (its format's
    TRK1/GT1, the only rule run: every other reads it), not a crash in each rule that reads it; any other command
    refuses to open it in one line (exit 2)."""
    rule = {"realcompanion": "TRK1", "groupassist": "GT1"}[cls.BLOCK]
    carries = (f"a {cls.BLOCK} release carries {', '.join(cls.TRACKS.required)} (and may carry "
               f"{', '.join(cls.TRACKS.optional)})")
    for dropped in cls.TRACKS.required:
        root = tmp_path / cls.BLOCK / dropped
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".*", "src", "tests", "docs", "benchmarks",
                                                                    "specimens", "*.egg-info"))
        edit_json(root / "datapackage.json",
                  lambda d, dropped=dropped: d.update(resources=[r for r in d["resources"] if r["name"] != dropped]))
        capsys.readouterr()
        assert main(["validate", str(root), "--json", "-"]) == 1, dropped
        report = json.loads(capsys.readouterr().out)
        present = [name for name in cls.RESOURCES if name != dropped]
        assert [r["id"] for r in report["rules"]] == [rule] and report["failures"] == [
            {"rule": rule, "severity": "error", "resource": dropped, "row": "", "field": "resources",
             "value": ", ".join(present), "message": f"the release carries no '{dropped}' resource: {carries}"}]
        assert main(["card", str(root)]) == 2, dropped
        err = capsys.readouterr().err.strip()
        assert err == (f"error: {root / 'datapackage.json'} field 'resources': no resource '{dropped}': "
                       f"{carries}"), err


@pytest.mark.parametrize("cls,source", [(Release, REPO_ROOT), (GroupAssistRelease, SPECIMEN)],
                         ids=["realcompanion", "groupassist"])
def test_a_release_carrying_every_required_resource_passes_the_rule_that_names_one_missing(cls, source, capsys):
    """The near miss: the specimen carries every required resource (and leaves none out), so the rule passes."""
    rule = {"realcompanion": "TRK1", "groupassist": "GT1"}[cls.BLOCK]
    assert main(["validate", str(source), "--rules", rule, "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["failures"] == []


def cites_by(nested: dict):
    """The notes' `cites` typed by a nested schema of their own, `nested` (`$schema` added)."""
    def change(root):
        add_notes(root)
        path = root / "schemas" / "nested" / "note_cites.schema.json"
        path.write_text(json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema", **nested}), encoding="utf-8")
        edit_json(root / "schemas" / "notes.schema.json", lambda s: next(
            f for f in s["fields"] if f["name"] == "cites").update(nestedSchema="nested/note_cites.schema.json"))
    return change


@pytest.mark.parametrize("change", [
    cites_by({"$ref": "#/$defs/cited", "$defs": {"cited": {"$ref": "dayid_list.schema.json"}}}),
    cites_by({"$ref": "./dayid_list.schema.json"}),
    cites_by({"$ref": "https://realcompanion.dataset/schemas/nested/dayid_list.schema.json"}),
], ids=["place-in-the-document", "dot-slash", "by-id"])
def test_a_ref_is_followed_as_json_schema_resolves_it(fork, capsys, change):
    """A `$ref` to a place in its own document, `./` or a nested schema's `$id` is valid JSON Schema, and the
    registry resolves it: it was read as a file name, and the fork was unreadable (`schemas/nested/#: no such
    file`)."""
    change(fork)
    assert main(["refresh", str(fork)]) == 0, capsys.readouterr()
    assert main(["validate", str(fork)]) == 0, capsys.readouterr().out[-2000:]


@pytest.mark.parametrize("nested, needle", [
    ({"$ref": "#"}, "note_cites.schema.json field '$ref': refers back to a nested schema it lies in"),
    ({"type": "array", "items": {"$ref": "note_cites.schema.json"}}, "refers back to a nested schema it lies in"),
    ({"$ref": "#/$defs/any", "$defs": {"any": True}},
     "note_cites.schema.json field '/$defs/any': holds no schema object at '#/$defs/any'"),
    ({"$ref": "other.schema.json"}, "note_cites.schema.json field '$ref': a `$ref` names "
                                    "https://realcompanion.dataset/schemas/nested/other.schema.json, which no nested"),
    ({"type": "array", "items": {"type": "string"}, "anyOf": [{"$ref": "#/$defs/none"}]},
     "note_cites.schema.json field '$ref': a `$ref` names nothing: Pointer '/$defs/none' does not exist"),
    ({"type": "array", "items": {"type": "string"}, "anyOf": [{"$ref": "https://example.invalid/x.json"}]},
     "note_cites.schema.json field '$ref': a `$ref` names https://example.invalid/x.json, which no nested schema"),
], ids=["itself", "loop-through-items", "no-schema-object", "no-such-schema", "untyped-no-such-place",
        "untyped-remote"])
def test_a_ref_arrow_cannot_follow_is_one_line_naming_the_schema(fork, capsys, nested, needle):
    """A `$ref` back into a schema it lies in recursed until Python stopped ("input nested too deeply to read",
    naming no file); one to nothing named a file that is none, or, where Arrow does not follow it, made the
    nested-field rule "could not be evaluated" in several lines (exit 1)."""
    cites_by(nested)(fork)
    for command in ("validate", "card"):
        assert main([command, str(fork)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and needle in err and err.count("\n") == 1, err
