"""SCH3 converts only the parts of a nested column its JSON Schema can reject: the verdict is the whole schema's."""
from __future__ import annotations

import copy

import jsonschema_rs
import pyarrow as pa
import pytest

from realcompanion.nested import checked_part, column_validators, field_schema
from realcompanion.release import Release


def _errors(validator, cells) -> list[tuple]:
    return sorted((tuple(e.instance_path), e.message) for e in validator.iter_errors(cells))


def _breaks(cell: dict) -> list[dict]:
    """Copies of one trace cell, each broken in one place the schema checks (Arrow types still hold)."""
    out = []
    for change in (lambda c: c["A"].update(result="maybe"), lambda c: c["B"].update(removed=["x", "x"]),
                   lambda c: c["C"].update(relabeled={"category": "nope", "reason": ""}),
                   lambda c: c["C"].update(rule=None), lambda c: c["D"].update(grounding_dayids=["U1:d1:1"]),
                   lambda c: c["E"].update(ok=None), lambda c: c.update(A=None)):
        broken = copy.deepcopy(cell)
        change(broken)
        out.append(broken)
    return out


def test_only_nullable_texts_are_left_out(repo):
    release = Release(repo)
    kind = release.table("chat").schema.field("trace").type
    part, checked = checked_part(release.schemas.nested("nested/trace.schema.json"), kind)
    assert [f.name for f in checked.field("A").type] == ["result", "ungrounded", "locus"]  # a recorded exception is checked
    assert "rationale" not in part["properties"]["E"]["required"]
    assert {f.name for f in checked.field("D").type} == {"result", "grounding_dayids"}  # gold_response left out
    assert [f.name for f in checked.field("C").type] == ["result", "tier", "category", "rule", "relabeled"]


@pytest.mark.parametrize("resource", ["chat", "qa", "profile"])
def test_projected_and_whole_schemas_agree(repo, resource):
    """Every nested column, clean and with broken cells: the projected check finds exactly the whole schema's errors."""
    release = Release(repo)
    table = release.table(resource)
    for field, (validator, kind) in column_validators(release, resource, table.schema).items():
        spec = next(f for f in release.table_schema(resource)["fields"] if f["name"] == field)
        whole = jsonschema_rs.Draft202012Validator({"type": "array", "items": field_schema(spec, release.schemas)},
                                                   registry=release.schemas.registry)
        cells = table.column(field).to_pylist()
        kind_read = table.schema.field(field).type
        broken = cells + (_breaks(cells[0]) if field == "trace" else [None] + [["a", "a"]] * pa.types.is_list(kind_read))
        column = pa.array(broken, type=kind_read)
        projected = column.cast(kind).to_pylist()
        assert _errors(validator, projected) == _errors(whole, broken)
        assert field != "trace" or len(_errors(whole, broken)) >= 7
