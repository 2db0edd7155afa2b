"""The schemas are complete, valid Table Schemas and JSON Schemas, and agree with the vocabulary."""
from __future__ import annotations

import jsonschema
import pytest
from frictionless import Schema

import realcompanion.release as release_module
from realcompanion.descriptor import check_vocabulary
from realcompanion.errors import ReadError
from realcompanion.release import Release
from realcompanion.schemas import RESOURCES, Schemas, read_json


@pytest.mark.parametrize("resource", RESOURCES)
def test_table_schema_is_valid_and_every_field_is_documented(repo, resource):
    descriptor = read_json(repo / "schemas" / f"{resource}.schema.json")
    assert Schema.validate_descriptor(descriptor).valid
    for field in descriptor["fields"]:
        assert {"name", "type", "description", "example", "constraints"} <= set(field), field["name"]
    assert descriptor["primaryKey"]


def test_single_field_citations_are_foreign_keys(repo):
    keys = {(r, fk["fields"][0], fk["reference"]["resource"]) for r in RESOURCES
            for fk in read_json(repo / "schemas" / f"{r}.schema.json").get("foreignKeys", [])}
    assert keys == {("chat", "probe_dayid", "source"), ("qa", "asked_after", "source")}


def test_nested_schemas_are_valid_json_schemas(repo):
    for path in Schemas(repo).nested_paths():
        jsonschema.Draft202012Validator.check_schema(read_json(path))


def test_every_declared_resource_reads_with_its_arrow_schema(repo, monkeypatch):
    """The shipped files parse in one typed Arrow read each: no record falls back to the line-by-line re-read."""
    def reread(path):
        raise AssertionError(f"{path} does not read with its Arrow schema")

    monkeypatch.setattr(release_module, "objects", reread)  # the fallback re-read, taken only when the typed read fails
    release = Release(repo)
    for name in RESOURCES:
        assert release.table(name).num_rows == release.params["rows"][name]
    assert release.invalid_rows == {}


@pytest.mark.parametrize("refused", ["^(?<participant>U[0-9]{2,4})$", "^U{4294967296}$", "(" * 1000 + ")" * 1000],
                         ids=["ecma-named-group", "repetition-overflows", "nested-past-recursion"])
def test_a_vocabulary_pattern_is_judged_as_python_compiles_it(repo, refused):
    """The rules compile the vocabulary's patterns with Python's `re`: its syntax passes, ECMA-262's alone does not
    (jsonschema-rs, which judges the vocabulary, would otherwise read "regex" as ECMA-262's), nor one `re` cannot
    compile for its size (OverflowError, RecursionError: a traceback)."""
    vocabulary = read_json(repo / "schemas" / "vocabulary.json")
    vocabulary["identifier"]["participant_id"] = "^(?P<participant>U[0-9]{2,4})$"
    check_vocabulary(vocabulary, repo / "schemas" / "vocabulary.json")
    vocabulary["identifier"]["participant_id"] = refused
    with pytest.raises(ReadError, match=r"field 'identifier\.participant_id': .* is not a 'regex'"):
        check_vocabulary(vocabulary, repo / "schemas" / "vocabulary.json")
