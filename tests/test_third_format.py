"""A third format is a folder of its own and one registry entry (docs/design.md): a toy format with one resource
and one rule is validated, loaded and listed by `rules`, with no line of the engine changed."""
from __future__ import annotations

import json
import sys
import types

import pytest
from realcompanion.validators.catalogue import Catalogue, failures
from realcompanion.validators.context import Context
from realcompanion.validators.run import Runner

from realcompanion import formats, frames
from realcompanion.cli import main
from realcompanion.release import Release
from realcompanion.tracks import Tracks


class NotesRelease(Release):
    """formats/notes/__init__.py: a release whose descriptor carries a `notes` block and one resource."""

    BLOCK = "notes"
    TITLE = "Notes"
    TRACKS = Tracks(required=("note",), optional=())
    RESOURCES = TRACKS.resources
    OWNER = ("author", "authors")

    def check_block(self, block: dict, path) -> None:
        """The block names nothing the rule reads but the vocabulary file, which the engine checks."""


# validators/notes/catalogue.py: the format's one rule
CATALOGUE = Catalogue(("content",), ())


@CATALOGUE.release_rule("NOTE1", "error", "content", ("note",), "every note says something",
                        "the toy format's contract")
def notes_say_something(ctx):
    notes = ctx.frame("note")
    empty = (notes["text"].str.strip() == "").fillna(True).to_numpy()
    return failures("note", ctx.row_ids("note")[empty], "text", notes["text"][empty], "a note that says nothing")


# validators/notes/run.py: what the one pass needs (no structure rules of its own: Frictionless and the reader's)
RUNNER = Runner(CATALOGUE.select, (), "", "", "", lambda path: NotesRelease(path, check=False), Context,
                lambda release: {})


@pytest.fixture
def notes_format(monkeypatch, tmp_path):
    """The registry entry (formats.PARTS) and a module holding the format's parts."""
    shipped = tmp_path / "format_rules.json"
    shipped.write_text('{"rules": []}', encoding="utf-8")
    module = types.ModuleType("notes_format")
    module.__dict__.update(NotesRelease=NotesRelease, CATALOGUE=CATALOGUE, RUNNER=RUNNER, FORMAT_RULES=shipped)
    monkeypatch.setitem(sys.modules, "notes_format", module)
    monkeypatch.setattr(formats, "FORMATS", (*formats.FORMATS, "notes"))
    monkeypatch.setitem(formats.PARTS, "notes", {"release": "notes_format:NotesRelease", "runner": "notes_format:RUNNER",
                                                 "catalogue": "notes_format:CATALOGUE",
                                                 "format_rules": "notes_format:FORMAT_RULES"})


def notes_release(root, texts: list[str]):
    (root / "data").mkdir(parents=True)
    (root / "schemas").mkdir()
    (root / "schemas" / "vocabulary.json").write_text("{}", encoding="utf-8")
    schema = {"fields": [{"name": "note_id", "type": "string", "constraints": {"required": True}},
                         {"name": "author", "type": "string"}, {"name": "text", "type": "string"}],
              "primaryKey": ["note_id"]}
    (root / "schemas" / "note.schema.json").write_text(json.dumps(schema), encoding="utf-8")
    rows = [{"note_id": f"N{n}", "author": "A1", "text": text} for n, text in enumerate(texts, 1)]
    (root / "data" / "note.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    descriptor = {"name": "notes", "version": "1.0.0", "resources": [
        {"name": "note", "type": "table", "path": "data/note.jsonl", "format": "jsonl", "mediatype": "application/jsonl",
         "encoding": "utf-8", "schema": "schemas/note.schema.json"}],
        "notes": {"format": "notes", "format_version": "1.0.0", "vocabulary": "schemas/vocabulary.json"}}
    (root / "datapackage.json").write_text(json.dumps(descriptor), encoding="utf-8")
    return root


def test_a_third_format_is_validated_by_its_rule(notes_format, tmp_path, capsys):
    assert main(["validate", str(notes_release(tmp_path / "good", ["Buy milk.", "Call Ann."]))]) == 0
    assert "release is VALID" in capsys.readouterr().out
    assert main(["validate", str(notes_release(tmp_path / "bad", ["Buy milk.", "  "]))]) == 1
    out = capsys.readouterr().out
    assert "NOTE1" in out and "N2" in out and "N1" not in out.split("NOTE1", 1)[1]


def test_a_third_format_is_loaded(notes_format, tmp_path):
    loaded = frames(notes_release(tmp_path / "r", ["Buy milk."]))
    assert list(loaded) == ["note"] and loaded["note"]["text"].tolist() == ["Buy milk."]


def test_a_third_format_is_listed_by_rules(notes_format, tmp_path, capsys):
    assert main(["rules", str(notes_release(tmp_path / "r", ["Buy milk."]))]) == 0
    assert capsys.readouterr().out.startswith("NOTE1 error    content     every note says something")
    assert main(["rules", str(tmp_path / "nothing"), "--format", "notes"]) == 0
    assert "NOTE1" in capsys.readouterr().out
