"""Paths a release names that lead outside its folder, or nowhere: refused before anything is read, by every command.

`validate` reports such a path as INT3 (GI3) alone; every other command refuses it in one line naming
the descriptor field, so no command reads or fetches a file that is not the release's own.
"""
from __future__ import annotations

import json
import os
import shutil

import pytest
from test_fuzz import check_contract, digest, run_quietly

from realcompanion.paths import REPO_ROOT

GROUPASSIST = REPO_ROOT / "specimens" / "groupassist"
DOCUMENTS = ("README.md", "DATASHEET.md", "CITATION.cff", "CHANGELOG.md")


@pytest.fixture
def documented(specimen):
    """The specimen copy with its documents, as a release ships."""
    for name in DOCUMENTS:
        shutil.copy2(REPO_ROOT / name, specimen / name)
    return specimen


def edit_descriptor(root, change) -> None:
    path = root / "datapackage.json"
    package = json.loads(path.read_text(encoding="utf-8"))
    change(package)
    path.write_text(json.dumps(package, indent=2), encoding="utf-8")


def rc_block(key, value):
    return lambda d: d["realcompanion"].update({key: value})


def first_resource(key, value):
    return lambda d: d["resources"][0].update({key: value})


@pytest.mark.parametrize("change,named", [
    (first_resource("schema", "/etc/passwd"), "/etc/passwd"),
    (first_resource("path", "file:///etc/passwd"), "file:///etc/passwd"),
    (rc_block("rules", "../rules.json"), "../rules.json"),  # missing outside: the declared rules were dropped
    (rc_block("rules", "/etc/passwd"), "/etc/passwd"),
    (rc_block("rules", "https://example.invalid/rules.json"), "https://example.invalid/rules.json"),
], ids=["absolute-schema", "file-url", "rules-outside", "rules-absolute", "rules-url"])
def test_a_path_out_of_the_folder_is_int3_alone(specimen, change, named):
    edit_descriptor(specimen, change)
    before = digest(specimen)
    code, out, err = run_quietly(["validate", str(specimen), "--json", "-"])
    assert code == 1, err
    report = json.loads(out)
    assert [(f["rule"], f["value"]) for f in report["failures"]] == [("INT3", named)], report["failures"]
    assert "outside the package folder" in report["failures"][0]["message"]
    assert digest(specimen) == before


@pytest.mark.parametrize("change,named", [
    (first_resource("schema", "/etc/passwd"), "/etc/passwd"),  # GM5 names messages: its schema was read
    (lambda d: d["groupassist"].update(rules="../rules.json"), "../rules.json"),
], ids=["absolute-schema", "rules-outside"])
def test_a_groupassist_path_out_of_the_folder_is_gi3_alone(tmp_path, change, named):
    root = shutil.copytree(GROUPASSIST, tmp_path / "release")
    edit_descriptor(root, change)
    code, out, err = run_quietly(["validate", str(root), "--json", "-"])
    assert code == 1, err
    assert [(f["rule"], f["value"]) for f in json.loads(out)["failures"]] == [("GI3", named)]


@pytest.mark.parametrize("release, rule", [("realcompanion", "INT3"), ("groupassist", "GI3")])
def test_a_path_through_dotdot_that_comes_back_in_is_int3_alone(specimen, tmp_path, release, rule):
    """`data/../data/qa.jsonl` stays inside, and was VALID once `refresh` had stamped it; but the Hub refuses it
    as a file's path, so `publish` stopped after validating. docs/validating.md says a `..` fails INT3 (GI3)."""
    root = specimen if release == "realcompanion" else shutil.copytree(GROUPASSIST, tmp_path / "groupassist")
    path = "data/../data/audit.jsonl" if release == "groupassist" else "data/../data/qa.jsonl"
    edit_descriptor(root, lambda d: next(r for r in d["resources"] if r["path"] == path.replace("data/../", "")
                                         ).update(path=path))
    code, out, err = run_quietly(["validate", str(root), "--json", "-"])
    assert code == 1, err
    failures = json.loads(out)["failures"]
    assert [(f["rule"], f["value"]) for f in failures] == [(rule, path)], failures
    assert "goes through '..'" in failures[0]["message"]


@pytest.mark.parametrize("command", [["stamp"], ["card"], ["datasheet"], ["schemas"],
                                     ["baselines", "--track", "chat", "--resamples", "10"]])
def test_every_command_refuses_a_url_or_absolute_path_in_one_line(documented, command):
    specimen = documented
    edit_descriptor(specimen, lambda d: [d["resources"][0].update(schema="/etc/passwd"),
                                         d["resources"][1].update(path="https://example.invalid/x.jsonl")])
    before = digest(specimen)
    code, out, err = run_quietly([command[0], str(specimen), *command[1:]])
    assert code == 2, out + err
    check_contract(code, out, err, "datapackage.json field 'resources.")
    assert "outside the package folder" in err and digest(specimen) == before


def test_rules_refuses_a_release_whose_rules_file_lies_outside(specimen):
    """`rules PATH` reads no declared rule of a release whose paths leave its folder (INT3): it listed the coded
    catalogue alone, exit 0, as though the release declared none."""
    outside = specimen.parent / "rules.json"
    outside.write_bytes((specimen / "schemas" / "rules.json").read_bytes())
    edit_descriptor(specimen, rc_block("rules", "../rules.json"))
    code, out, err = run_quietly(["rules", str(specimen)])
    assert code == 2 and not out, out
    check_contract(code, out, err, f"datapackage.json: '../rules.json': rules path is a path to {outside}, outside "
                                   "the package folder; the rules it declares are read only when no path leaves it "
                                   "(rule INT3)")


def test_what_is_no_file_under_data_or_schemas_is_int9s_and_never_published(specimen):
    """A FIFO, a link to a device, to a folder or to nothing, where no resource reads it: `validate` said nothing of
    it, and `publish` passed it over in silence, since only regular files were listed."""
    from realcompanion.listing import unread_files
    from realcompanion.release import Release

    os.mkfifo(specimen / "data" / "extra.jsonl")
    (specimen / "data" / "zero.jsonl").symlink_to("/dev/zero")
    (specimen / "data" / "up").symlink_to("..")
    (specimen / "schemas" / "gone.json").symlink_to(specimen / "nowhere.json")
    code, out, err = run_quietly(["validate", str(specimen), "--rules", "INT9", "--json", "-"])
    assert code == 0, err
    found = {f["row"]: f["message"] for f in json.loads(out)["failures"] if f["rule"] == "INT9"}
    assert found == {"data/extra.jsonl": "is a FIFO (named pipe), not a regular file: remove it",
                     "data/zero.jsonl": "is a character device, not a regular file: remove it",
                     "data/up": "is a directory, not a regular file: remove it",
                     "schemas/gone.json": "is a link that leads to no file: remove it"}, found
    assert unread_files(Release(specimen, check=False)) == sorted(found)  # what `publish` refuses


@pytest.mark.parametrize("relpath", ["data/qa.jsonl", "schemas/rules.json"])
def test_a_link_that_loops_is_one_line(specimen, relpath):
    (specimen / relpath).unlink()
    os.symlink(os.path.basename(relpath), specimen / relpath)
    code, out, err = run_quietly(["validate", str(specimen)])
    assert code == 2, out + err
    check_contract(code, out, err, f"{relpath}: cannot open")


def nested_link_outside(specimen):
    """schemas/nested/trace.schema.json as a link to a copy outside the folder whose enum copy is stale (what
    `schemas --write` would rewrite); returns the copy."""
    outside = specimen.parent / "trace.schema.json"
    nested = specimen / "schemas" / "nested" / "trace.schema.json"
    text = nested.read_text(encoding="utf-8")
    outside.write_text(text.replace('"current_thread",', "", 1), encoding="utf-8")
    assert outside.read_text(encoding="utf-8") != text
    nested.unlink()
    nested.symlink_to(outside)
    return outside


@pytest.mark.parametrize("command", [["schemas", "--write"], ["refresh"], ["refresh", "--force"], ["card"]])
def test_a_nested_schema_linked_from_outside_is_neither_read_nor_written(documented, command):
    """A nested schema is found in schemas/nested/, not named by the descriptor: a link there to a file outside
    was read, and `schemas --write` and `refresh` rewrote that file, wherever it lay."""
    outside = nested_link_outside(documented)
    refused_leaving_untouched(documented, command, "schemas/nested/trace.schema.json", outside)


def refused_leaving_untouched(specimen, command: list[str], linked: str, outside) -> None:
    """`command` on `specimen` stops in one line naming `linked`, a link to `outside`, which it leaves as it was."""
    before = outside.read_bytes()
    code, out, err = run_quietly([command[0], str(specimen), *command[1:]])
    assert code == 2, out + err
    assert err.splitlines()[-1] == f"error: {specimen / linked}: is a link to {outside}, outside the package " \
                                   "folder: a release reads only its own files", err
    assert outside.read_bytes() == before


def test_a_nested_schema_linked_from_outside_is_int3_alone(specimen):
    nested_link_outside(specimen)
    code, out, err = run_quietly(["validate", str(specimen), "--json", "-"])
    assert code == 1, err
    assert [(f["rule"], f["value"]) for f in json.loads(out)["failures"]] == [
        ("INT3", "schemas/nested/trace.schema.json")]


@pytest.mark.parametrize("command, document", [
    (["card", "--write"], "README.md"), (["card", "--write"], "CITATION.cff"), (["datasheet", "--write"], "DATASHEET.md"),
    (["stamp", "--force"], "datapackage.json"), (["refresh", "--force"], "datapackage.json"),
    (["croissant"], "croissant.json"),
])
def test_a_document_linked_from_outside_is_never_written(documented, command, document):
    """A command writing a release's document wrote through a link to a file outside the folder, wherever it lay."""
    specimen = documented
    if document == "CITATION.cff":  # stale, so that `card --write` rewrites it
        edit_descriptor(specimen, lambda d: d.update(version="0.1.1"))
    elif document != "croissant.json":  # the counts stale, so that the descriptor and the card are rewritten
        (specimen / "data" / "qa.jsonl").write_text("".join(
            (specimen / "data" / "qa.jsonl").read_text(encoding="utf-8").splitlines(True)[:-1]), encoding="utf-8")
    outside = specimen.parent / document
    if (specimen / document).exists():
        (specimen / document).rename(outside)
    else:
        outside.write_text("{}\n", encoding="utf-8")
    (specimen / document).symlink_to(outside)
    refused_leaving_untouched(specimen, command, document, outside)


def rules_file(make):
    def mutate(root):
        path = root / "schemas" / "rules.json"
        text = path.read_bytes()
        path.unlink()
        make(path, text)
    return mutate


def yaml_rules(text: str):
    """The rules file as YAML, `text` added to its list."""
    def mutate(root):
        import yaml

        rules = json.loads((root / "schemas" / "rules.json").read_text(encoding="utf-8"))
        (root / "schemas" / "rules.yaml").write_text(yaml.safe_dump(rules, sort_keys=False) + text, encoding="utf-8")
        edit_descriptor(root, lambda d: d["realcompanion"].update(rules="schemas/rules.yaml"))
    return mutate


@pytest.mark.parametrize("mutate,needle", [
    (rules_file(lambda p, t: os.mkfifo(p)), "rules.json: is a FIFO (named pipe)"),
    (rules_file(lambda p, t: p.mkdir()), "rules.json: is a directory"),
    (rules_file(lambda p, t: p.write_bytes(t.replace(b"cold_open is", b"cold\xe9open is"))),
     "rules.json:8 field 'encoding': not UTF-8"),
    (rules_file(lambda p, t: p.write_bytes(t.replace(b'"id": "SIG1",', b'"id": "SIG1", "id": "SIG9",'))),
     "rules.json field 'id': duplicate key 'id'"),
    (yaml_rules("- {id: X1, severity: error, statement: short answers, kind: expression, resource: qa,\n"
                "   expression: \"len(answer or '') < 3\", expression: \"True\"}\n"),  # PyYAML keeps the last
     "rules.yaml:43 field 'expression': duplicate key 'expression'"),
], ids=["fifo", "directory", "latin-1", "duplicate-key", "yaml-duplicate-key"])
def test_the_rules_file_is_read_as_strictly_as_every_package_file(specimen, mutate, needle):
    mutate(specimen)
    code, out, err = run_quietly(["validate", str(specimen)])
    assert code == 2, out + err
    check_contract(code, out, err, needle)


@pytest.mark.parametrize("command", [["validate"], ["stamp"], ["refresh"], ["diff", "{release}"]])
def test_a_nul_byte_in_a_resource_path_is_one_line(specimen, command):
    """No file has such a name (Python's path calls raise ValueError on it: a traceback)."""
    edit_descriptor(specimen, lambda d: d["resources"][4].update(path="data/qa\u0000.jsonl"))
    before = digest(specimen)
    code, out, err = run_quietly([command[0], str(specimen), *(c.format(release=specimen) for c in command[1:])])
    assert code == 2, out + err
    check_contract(code, out, err, "qa\\x00.jsonl: holds a NUL byte: no file has such a name")
    assert digest(specimen) == before


@pytest.mark.parametrize("command", [["validate"], ["stamp"]])
def test_a_socket_as_a_data_file_is_named_as_one(specimen, command):
    """A socket cannot be opened (ENXIO): it read `cannot open (No such device or address)`."""
    import socket

    (specimen / "data" / "qa.jsonl").unlink()
    with socket.socket(socket.AF_UNIX) as held:
        held.bind(str(specimen / "data" / "qa.jsonl"))
        code, out, err = run_quietly([command[0], str(specimen)])
    assert code == 2, out + err
    check_contract(code, out, err, "data/qa.jsonl: is a socket, not a regular file")


@pytest.mark.parametrize("make,said", [(os.mkfifo, "which is a FIFO (named pipe), not a regular file"),
                                       (lambda p: p.symlink_to("/dev/null"), "which is a link to /dev/null")])
def test_load_refuses_a_data_file_no_config_may_read(documented, offline, make, said):
    """`datasets` resolves every config's data files: a FIFO under another config was a FileNotFoundError traceback,
    and a link out of the folder was loaded as though it were the release's."""
    from realcompanion.errors import ReadError
    from realcompanion.loader import load

    (documented / "data" / "chat.jsonl").unlink()
    make(documented / "data" / "chat.jsonl")
    with pytest.raises(ReadError) as refused:
        load(documented, "qa")
    assert str(refused.value) == f"{documented / 'README.md'} field 'configs': config 'chat' reads data/chat.jsonl, " \
                                 f"{said}: a release loads only regular files of its own"
