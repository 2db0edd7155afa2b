"""Random corruptions of the specimen: validate answers 0, 1 or 2, never a traceback, and never writes.

datapackage.json declares each data file's sha256, so a copy whose bytes changed can
never come out valid. The copy is made in the test body because hypothesis runs many
examples per call of a function-scoped fixture.
"""
from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path

import pytest
from conftest import copy_release
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from realcompanion.cli import main
from realcompanion.paths import REPO_ROOT
from realcompanion.schemas import RESOURCES

OWN_ID = {"source": "dayid", "profile": "claim_id", "persona": "slot", "chat": "item_id", "qa": "item_id"}
JSON_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**12), st.floats(allow_nan=False),
                        st.text(max_size=6), st.lists(st.integers(0, 3), max_size=2),
                        st.dictionaries(st.text(max_size=3), st.integers(0, 3), max_size=2))


def digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def dump(row: dict) -> bytes:
    return json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def delete_row(lines, draw):
    del lines[draw(st.integers(0, len(lines) - 1))]


def duplicate_line(lines, draw):
    i = draw(st.integers(0, len(lines) - 1))
    lines.insert(i, lines[i])


def truncate_line(lines, draw):
    i = draw(st.integers(0, len(lines) - 1))
    lines[i] = lines[i][: draw(st.integers(0, len(lines[i]) - 2))] + b"\n"


def swap_ids(lines, draw, resource):
    i, j = draw(st.lists(st.integers(0, len(lines) - 1), min_size=2, max_size=2, unique=True))
    a, b = json.loads(lines[i]), json.loads(lines[j])
    key = draw(st.sampled_from([OWN_ID[resource], "participant_id"]))
    a[key], b[key] = b[key], a[key]
    lines[i], lines[j] = dump(a), dump(b)


def change_type(lines, draw):
    i = draw(st.integers(0, len(lines) - 1))
    row = json.loads(lines[i])
    row[draw(st.sampled_from(sorted(row)))] = draw(JSON_VALUES)
    lines[i] = dump(row)


def remove_field(lines, draw):
    i = draw(st.integers(0, len(lines) - 1))
    row = json.loads(lines[i])
    del row[draw(st.sampled_from(sorted(row)))]
    lines[i] = dump(row)


def garbage_bytes(lines, draw):
    i = draw(st.integers(0, len(lines) - 1))
    at = draw(st.integers(0, len(lines[i])))
    lines[i] = lines[i][:at] + draw(st.binary(min_size=1, max_size=8)) + lines[i][at:]


CORRUPTIONS = [delete_row, duplicate_line, truncate_line, swap_ids, change_type, remove_field, garbage_bytes]


def check_contract(code: int, out: str, err: str, name: str) -> None:
    """Exit 0, 1 or 2; 2 says why in exactly one `error:` line naming the file; 0 and 1 end with the verdict."""
    assert code in (0, 1, 2)
    if code == 2:
        message = err.strip().splitlines()
        assert len(message) == 1 and message[0].startswith("error: ") and name in message[0], err
    else:
        assert ("release is VALID" in out) == (code == 0)


@settings(max_examples=35, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(resource=st.sampled_from(RESOURCES), corrupt=st.sampled_from(CORRUPTIONS), data=st.data())
def test_corrupted_release_exits_0_1_or_2_and_is_left_unchanged(resource, corrupt, data, capsys):
    with tempfile.TemporaryDirectory() as tmp:
        copy = copy_release(REPO_ROOT, Path(tmp) / "release")
        path = copy / "data" / f"{resource}.jsonl"
        original = path.read_bytes()
        lines = original.splitlines(keepends=True)
        extra = {"resource": resource} if corrupt is swap_ids else {}
        corrupt(lines, data.draw, **extra)
        path.write_bytes(b"".join(lines))
        before = digest(copy)

        code = main(["validate", str(copy)])

        check_contract(code, *capsys.readouterr(), path.name)
        assert code != 0 or path.read_bytes() == original, "a modified data file passed validation"
        assert digest(copy) == before


# Inputs that once raised past the reader: each must now end in a report or one `error:` line.

def test_lone_surrogate_escape_in_a_data_file(specimen, capsys):
    path = specimen / "data" / "chat.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    row = json.loads(lines[0])
    row["probe"] = "PLACEHOLDER"
    lines[0] = dump(row).replace(b"PLACEHOLDER", rb"\ud800")
    path.write_bytes(b"".join(lines))

    check_contract(main(["validate", str(specimen)]), *capsys.readouterr(), path.name)


@pytest.mark.parametrize("garbage", [b"x", b"\xff"])
def test_schema_file_that_is_not_json(specimen, capsys, garbage):
    path = specimen / "schemas" / "chat.schema.json"
    path.write_bytes(path.read_bytes() + garbage)

    check_contract(main(["validate", str(specimen)]), *capsys.readouterr(), path.name)


@pytest.mark.parametrize("field", ["name", "path", "schema"])
def test_resource_entry_without_a_field(specimen, capsys, field):
    path = specimen / "datapackage.json"
    package = json.loads(path.read_text(encoding="utf-8"))
    del package["resources"][0][field]
    path.write_text(json.dumps(package, indent=2), encoding="utf-8")

    check_contract(main(["validate", str(specimen)]), *capsys.readouterr(), path.name)


@pytest.mark.parametrize("change,named", [
    (lambda p: p.update(realcompanion=None), "datapackage.json"),
    (lambda p: p["resources"][0].update(path=None), "datapackage.json"),
    (lambda p: p["resources"][0].update(schema=0), "datapackage.json"),
    (lambda p: p["resources"][0].update(path="data/so\nurce.jsonl"), "urce.jsonl"),  # still one line
    # a Frictionless multipart path: valid Data Package, but a release resource is one file
    (lambda p: p["resources"][0].update(path=[p["resources"][0]["path"], "data/source-2.jsonl"]), "datapackage.json"),
], ids=["block-null", "path-null", "schema-number", "path-newline", "path-multipart"])
def test_damaged_descriptor(specimen, capsys, change, named):
    path = specimen / "datapackage.json"
    package = json.loads(path.read_text(encoding="utf-8"))
    change(package)
    path.write_text(json.dumps(package, indent=2), encoding="utf-8")

    code = main(["validate", str(specimen)])
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in err, err  # unreadable: no rule can run
    check_contract(code, out, err, named)
