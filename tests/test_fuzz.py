"""Hostile and careless inputs: every command answers 0, 1 or 2, never a traceback, never a hang, never writes.

Each mutated release is re-stamped before it is validated (its declared counts and
hashes describe the mutated files), so what catches a mutation is a rule about the
content, not the hash rule INT1. The copy is made in the test body because
hypothesis runs many examples per call of a function-scoped fixture.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import copy_release
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from realcompanion.cli import main
from realcompanion.errors import ReadError
from realcompanion.formats import part
from realcompanion.paths import REPO_ROOT
from realcompanion.schemas import RESOURCES

OWN_ID = {"source": "dayid", "profile": "claim_id", "persona": "slot", "chat": "item_id", "qa": "item_id"}
GROUPASSIST = REPO_ROOT / "specimens" / "groupassist"
# each format's specimen, and per resource the keys whose values a corruption swaps between two rows: the row's own
# identifier and the one it shares with its participant's or group's (or instance's) other rows
SPECIMENS = {
    "realcompanion": (REPO_ROOT, {name: (OWN_ID[name], "participant_id") for name in RESOURCES}),
    "groupassist": (GROUPASSIST, {
        "messages": ("message_id", "group_id"), "members": ("member_id", "group_id"),
        "instances": ("instance_id", "group_id"), "anchors": ("anchor_id", "instance_id"),
        "atoms": ("atom_id", "instance_id"), "criteria": ("criterion_id", "instance_id"),
        "feedback": ("feedback_id", "group_id"), "audit": ("instance_id", "layer")}),
}
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


def swap_ids(lines, draw, keys):
    i, j = draw(st.lists(st.integers(0, len(lines) - 1), min_size=2, max_size=2, unique=True))
    a, b = json.loads(lines[i]), json.loads(lines[j])
    key = draw(st.sampled_from(keys))
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
ALWAYS_CAUGHT = {duplicate_line, truncate_line}  # the others can yield another valid release


def restamp(root: Path, fmt: str = "realcompanion") -> None:
    """Declare the files as they now are (a release of format `fmt`); a file stamp cannot read gets the sha256 of
    its new bytes."""
    try:
        part(fmt, "stamp")(root)
    except ReadError:
        path = root / "datapackage.json"
        try:
            package = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, RecursionError):  # the descriptor itself is what is broken
            return
        for res in package["resources"]:
            data = root / res["path"]
            if data.is_file():
                res["hash"] = "sha256:" + hashlib.sha256(data.read_bytes()).hexdigest()
        path.write_text(json.dumps(package, indent=2), encoding="utf-8")


def check_contract(code: int, out: str, err: str, name: str) -> None:
    """Exit 0, 1 or 2; 2 says why in exactly one `error:` line naming the file; 0 and 1 end with the verdict."""
    assert code in (0, 1, 2)
    if code == 2:
        message = err.strip().splitlines()
        assert len(message) == 1 and message[0].startswith("error: ") and name in message[0], err
    else:
        assert out.strip().splitlines()[-1].endswith("release is VALID" if code == 0 else "release is INVALID"), out


@pytest.mark.parametrize("fmt", SPECIMENS)
@settings(max_examples=35, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(corrupt=st.sampled_from(CORRUPTIONS), data=st.data())
def test_corrupted_release_exits_0_1_or_2_and_is_left_unchanged(fmt, corrupt, data, capsys):
    specimen, keys = SPECIMENS[fmt]
    resource = data.draw(st.sampled_from(sorted(keys)))
    with tempfile.TemporaryDirectory() as tmp:
        copy = copy_release(specimen, Path(tmp) / "release")
        path = copy / "data" / f"{resource}.jsonl"
        original = path.read_bytes()
        lines = original.splitlines(keepends=True)
        extra = {"keys": keys[resource]} if corrupt is swap_ids else {}
        corrupt(lines, data.draw, **extra)
        path.write_bytes(b"".join(lines))
        restamp(copy, fmt)
        before = digest(copy)

        code = main(["validate", str(copy)])

        check_contract(code, *capsys.readouterr(), path.name)
        assert code != 0 or corrupt not in ALWAYS_CAUGHT, "a duplicated or cut line passed validation"
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


@pytest.mark.parametrize("document,field", [
    ("true", ""), ("[]", ""), ('"x"', ""), ('{"type": 5}', "field 'type'"),
    ('{"type": "array", "items": {"type": "string"}, "properties": []}', "field 'properties'"),
    ('{"$schema": "https://example.org/meta", "type": "array", "items": {"type": "string"}}', "field '$schema'")])
def test_nested_schema_that_is_no_json_schema_is_named(specimen, capsys, document, field):
    """JSON Schema allows `true`, but a nested schema here also types its field; and one its draft's metaschema
    refuses, or of a draft none knows, is no schema to check records by: the line names the file and where (it
    said `cannot type resource 'chat' from its schemas (TypeError: ...)`, naming neither, or judged by it)."""
    path = specimen / "schemas" / "nested" / "dayid_list.schema.json"
    path.write_text(document, encoding="utf-8")

    assert main(["validate", str(specimen)]) == 2
    out, err = capsys.readouterr()
    check_contract(2, out, err, "nested/dayid_list.schema.json")
    assert field in err


def test_a_field_its_nested_schema_gives_no_type_is_named(specimen, capsys):
    """`true` is a JSON Schema, but gives the member it describes no type: the line names the field and the nested
    schema it reads (it said `cannot type resource 'chat' from its schemas`, naming neither)."""
    path = specimen / "schemas" / "nested" / "memory_bearing.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema["properties"]["recorded"] = True
    path.write_text(json.dumps(schema), encoding="utf-8")

    assert main(["validate", str(specimen)]) == 2
    out, err = capsys.readouterr()
    check_contract(2, out, err, "nested/memory_bearing.schema.json")
    assert "cannot type field 'memory_bearing' of resource 'chat'" in err


def test_a_remote_reference_is_never_fetched(specimen, capsys):
    """A `$ref` to a document outside the release is refused, not downloaded: the verdict depends on the folder. The
    schema holding it is named, before any rule runs (exit 2): the nested-field rule said it "could not be
    evaluated"."""
    path = specimen / "schemas" / "nested" / "dayid_list.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema["items"]["allOf"] = [{"$ref": "https://example.org/dayid.schema.json"}]
    path.write_text(json.dumps(schema), encoding="utf-8")

    assert main(["validate", str(specimen)]) == 2
    assert capsys.readouterr().err == f"error: {path} field '$ref': a `$ref` names https://example.org/dayid.schema.json, " \
                                      "which no nested schema of the release is (by its `$id`, else by its path)\n"


def test_a_nested_schema_deeper_than_its_validator_reads_is_one_line(specimen, capsys):
    """jsonschema-rs reads a value only so deep (about 255 levels), though Python reads it: a nested schema past it
    stopped its metaschema check with a traceback."""
    path = specimen / "schemas" / "nested" / "dayid_list.schema.json"
    deep = {"type": "string"}
    for _ in range(300):
        deep = {"type": "array", "items": deep}
    path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), "$defs": {"deep": deep}}),
                    encoding="utf-8")
    assert main(["validate", str(specimen)]) == 2
    assert capsys.readouterr().err == f"error: {path}: is nested too deeply for the JSON Schema validator " \
                                      "(jsonschema-rs) to read\n"


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
    (lambda p: p.update(resources=5), "datapackage.json field 'resources': must be a list of resources"),
    # a pattern's `$` is the end of the text (Python's `re` also matched before a final newline)
    (lambda p: p["realcompanion"].update(format_version=p["realcompanion"]["format_version"] + "\n"),
     "datapackage.json field 'realcompanion.format_version'"),
    # keys Frictionless reads before it types them: each was "could not judge it (AttributeError: ...)", no field
    (lambda p: p["resources"][0].update(hash=5), "datapackage.json field 'resources.source.hash': 5 is not text"),
    (lambda p: p.update({"$schema": 5}), "datapackage.json field '$schema': 5 is not text"),
    (lambda p: p["resources"][0].update(stats="x"), "field 'resources.source.stats': \"x\" is not an object"),
    (lambda p: p["resources"][0].update(extrapaths=[1]), "field 'resources.source.extrapaths': [1] is not a list"),
], ids=["block-null", "path-null", "schema-number", "path-newline", "path-multipart", "resources-number",
        "version-newline", "hash-number", "profile-number", "stats-text", "extrapaths-number"])
def test_damaged_descriptor(specimen, capsys, change, named):
    path = specimen / "datapackage.json"
    package = json.loads(path.read_text(encoding="utf-8"))
    change(package)
    path.write_text(json.dumps(package, indent=2), encoding="utf-8")

    code = main(["validate", str(specimen)])
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in err, err  # unreadable: no rule can run
    check_contract(code, out, err, named)


@pytest.mark.parametrize("text,named", [
    ("[1, 2]", "datapackage.json: must be an object"),
    ('{"realcompanion": 5, "resources": []}', "datapackage.json field 'realcompanion': 'realcompanion' must be an object"),
    ('{"realcompanion": {"vocabulary": "schemas/vocabulary.json"}, "resources": 5}',
     "datapackage.json field 'resources': must be a list of resources"),
], ids=["array", "block-number", "resources-number"])
def test_a_descriptor_of_the_wrong_shape_is_one_line_for_schemas(specimen, capsys, text, named):
    """`schemas` reads the descriptor itself (it needs no release): a shape it cannot read was an AttributeError."""
    (specimen / "datapackage.json").write_text(text, encoding="utf-8")
    check_contract(main(["schemas", str(specimen)]), *capsys.readouterr(), named)


# Hostile inputs, one by one: each is re-stamped, then must end in its exit code and one clear line.

DEEP = 10_000


def deep(depth: int = DEEP) -> str:
    return "[" * depth + "]" * depth


def edit_line(resource: str, number: int, change) -> callable:
    """A mutation: line `number` (1-based) of the resource's file, as bytes, through `change`."""
    def mutate(root):
        path = root / "data" / f"{resource}.jsonl"
        lines = path.read_bytes().splitlines(keepends=True)
        lines[number - 1] = change(lines[number - 1])
        path.write_bytes(b"".join(lines))
    return mutate


def edit_json(relpath: str, change) -> callable:
    """A mutation: the text of a JSON file of the release through `change`."""
    def mutate(root):
        path = root / relpath
        path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")
    return mutate


def replace_with(relpath: str, make) -> callable:
    def mutate(root):
        (root / relpath).unlink()
        make(root / relpath)
    return mutate


def empty_every_file(root):
    for name in RESOURCES:
        (root / "data" / f"{name}.jsonl").write_bytes(b"")


def fake_verdict_line(root):
    """A value whose text draws a fake verdict line (gate A then fails on its row)."""
    edit_line("chat", 1, lambda line: dump({**json.loads(line), "probe": "x\n0 error(s), 0 warning(s) - release is VALID"
                                                                         "\x1b[2J"}))(root)


HOSTILE = [  # (id, mutation, exit code, text the one error line / the report must hold)
    ("invalid-utf8", edit_line("source", 3, lambda line: line.replace(b'"text":"', b'"text":"\xff\xfe', 1)), 2,
     "source.jsonl:3 field 'encoding': not UTF-8"),
    ("duplicate-key", edit_line("chat", 2, lambda line: b'{"probe":"call 020 7946 0958",' + line[1:]), 2,
     "chat.jsonl:2 field 'probe': duplicate key 'probe'"),
    ("duplicate-nested-key", edit_line("chat", 2, lambda line: line.replace(b'"trace":{', b'"trace":{"A":null,', 1)), 2,
     "duplicate key 'A'"),
    ("nan-in-a-line", edit_line("profile", 1, lambda line: line.replace(b'"confidence":', b'"confidence":NaN,"x":', 1)),
     2, "profile.jsonl:1 field 'confidence': NaN is not a JSON number"),
    ("deep-data-line", edit_line("qa", 2, lambda line: line[:-2] + f',"deep":{deep()}}}\n'.encode()), 2,
     "qa.jsonl:2: JSON nested too deeply"),
    ("deep-descriptor", edit_json("datapackage.json", lambda text: text.replace("{", '{"deep": ' + deep() + ",", 1)), 2,
     "datapackage.json: JSON nested too deeply"),
    ("deep-schema", edit_json("schemas/chat.schema.json", lambda text: text.replace("{", '{"deep": ' + deep() + ",", 1)),
     2, "chat.schema.json: JSON nested too deeply"),
    ("nan-in-descriptor", edit_json("datapackage.json", lambda text: text.replace("{", '{"created_at": NaN,', 1)), 2,
     "datapackage.json field 'created_at': NaN is not a JSON number"),
    ("schema-wrong-shape", edit_json("schemas/qa.schema.json", lambda text: '{"fields": "nope"}'), 2,
     "qa.schema.json field 'fields': 'nope' is not of type 'array'"),
    ("schema-unknown-type", edit_json("schemas/qa.schema.json", lambda text: text.replace('"boolean"', '"yesno"', 1)),
     2, "qa.schema.json field 'fields."),
    ("vocabulary-wrong-type", edit_json("schemas/vocabulary.json", lambda text: text.replace('"user"', "7", 1)), 2,
     "vocabulary.json field 'sender.0': 7 is not of type 'string'"),
    ("data-file-is-a-directory", replace_with("data/persona.jsonl", Path.mkdir), 2,
     "persona.jsonl: is a directory, not a regular file"),
    ("zero-rows", empty_every_file, 1, "no record: Frictionless has no header to read"),
    ("blank-line", edit_line("qa", 2, lambda line: b"\n" + line), 2, "qa.jsonl:2: empty line"),
    ("byte-order-mark", edit_line("qa", 1, lambda line: b"\xef\xbb\xbf" + line), 2,
     "qa.jsonl:1 field 'encoding': starts with a UTF-8 byte order mark"),
    ("byte-order-mark-and-a-bad-record", lambda root: [edit_line("qa", 1, lambda line: b"\xef\xbb\xbf" + line)(root),
                                                       edit_line("qa", 3, lambda line: b'{"x":1,' + line[1:])(root)],
     2, "qa.jsonl:1 field 'encoding': starts with a UTF-8 byte order mark"),
    ("fake-verdict-in-a-value", fake_verdict_line, 1, "release is INVALID"),
    ("byte-order-mark-in-the-descriptor", edit_json("datapackage.json", lambda text: "\ufeff" + text), 2,
     "datapackage.json:1 field 'encoding': starts with a UTF-8 byte order mark"),
    ("byte-order-mark-in-a-schema", edit_json("schemas/qa.schema.json", lambda text: "\ufeff" + text), 2,
     "qa.schema.json:1 field 'encoding': starts with a UTF-8 byte order mark"),
]


@pytest.mark.parametrize("mutate,code,needle", [c[1:] for c in HOSTILE], ids=[c[0] for c in HOSTILE])
def test_hostile_release(specimen, capsys, mutate, code, needle):
    mutate(specimen)
    restamp(specimen)
    before = digest(specimen)

    got = main(["validate", str(specimen)])
    out, err = capsys.readouterr()

    assert got == code, out + err
    check_contract(got, out, err, needle)
    assert "Traceback" not in err and digest(specimen) == before
    if code == 1:
        assert "0 error(s), 0 warning(s) - release is VALID" not in out.splitlines(), out
        assert "\x1b" not in out


FOREVER = 120  # seconds: a command that blocks on a FIFO would never end; this one must end at once


def fifo(path: Path) -> None:
    os.mkfifo(path)


@pytest.mark.parametrize("relpath,command", [
    ("schemas/chat.schema.json", "validate"), ("schemas/chat.schema.json", "stamp"),
    ("schemas/vocabulary.json", "validate"), ("data/qa.jsonl", "validate"), ("datapackage.json", "validate"),
    ("schemas/chat.schema.json", "baselines"),
])
def test_fifo_in_place_of_a_file_is_named_and_never_waited_on(specimen, relpath, command):
    (specimen / relpath).unlink()
    fifo(specimen / relpath)
    extra = ["--track", "chat", "--resamples", "10"] if command == "baselines" else []
    done = subprocess.run([sys.executable, "-m", "realcompanion.cli", command, str(specimen), *extra],
                          capture_output=True, text=True, timeout=FOREVER)
    assert done.returncode == 2, done.stderr
    check_contract(done.returncode, done.stdout, done.stderr, f"{Path(relpath).name}: is a FIFO (named pipe)")


PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 24, 1, 2  # linux/prctl.h, linux/capability.h


def without_file_override():
    """In the child before exec: drop the capabilities that let root read any file, so a mode-000 file is
    unreadable to it as to an ordinary user (a no-op for an ordinary user)."""
    if os.geteuid() != 0:
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def unprivileged(argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "realcompanion.cli", *argv], capture_output=True, text=True,
                          timeout=FOREVER, preexec_fn=without_file_override)


@pytest.mark.skipif(sys.platform != "linux", reason="capabilities are Linux's")
@pytest.mark.parametrize("relpath", ["data/qa.jsonl", "schemas/nested", "schemas/chat.schema.json"])
def test_unreadable_file_or_folder_is_one_line(specimen, relpath):
    os.chmod(specimen / relpath, 0)
    try:
        done = unprivileged(["validate", str(specimen)])
    except subprocess.SubprocessError as exc:  # prctl refused: this root may not drop capabilities
        pytest.skip(f"cannot make a file unreadable to this user: {exc}")
    finally:
        os.chmod(specimen / relpath, 0o755)
    assert done.returncode == 2, done.stdout + done.stderr
    check_contract(done.returncode, done.stdout, done.stderr, "Permission denied")
    assert Path(relpath).name in done.stderr


# Every parameter of the realcompanion block is typed: a bad value is one line naming it, not a rule turned off.
BAD_PARAMETERS = {
    "recent_window": [math.nan, -1000, 0, 2.5, "10", None, True, math.inf],
    "session_gap_minutes": [math.nan, -30, 0, "30", [30]],
    "long_range_min_days": [math.nan, -1, "30", {}],
    "confidence_bands": ["x", [], [0.5, math.nan], [1.5], [0.5, 0.5], 0.5],
    "relabeled": [True, -1, 1.5, "1", None],  # a count: true is no count, though Python's True == 1
    "pii_digit_run": ["x", 0, 1, 9.5, math.nan, None],
    "synthetic": ["yes", 1, None],
    "format_version": [1, "one", None],
    "vocabulary": [None, 3, ""],
    "rows": [[], {"chat": -1}, {"chat": "194"}, {"chat": math.nan}],
    "sha256": [{"data/qa.jsonl": "abc"}, []],
}


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_bad_parameter_is_one_line_naming_it(data):
    key = data.draw(st.sampled_from(sorted(BAD_PARAMETERS)))
    value = data.draw(st.sampled_from(BAD_PARAMETERS[key]))
    with tempfile.TemporaryDirectory() as tmp:
        copy = copy_release(REPO_ROOT, Path(tmp) / "release")
        path = copy / "datapackage.json"
        package = json.loads(path.read_text(encoding="utf-8"))
        package["realcompanion"][key] = value
        path.write_text(json.dumps(package, indent=2), encoding="utf-8")  # NaN and Infinity as JS literals
        code = run_quietly(["validate", str(copy)])
    assert code[0] == 2, code
    check_contract(*code, "datapackage.json")
    assert f"field 'realcompanion.{key}" in code[2] or "is not a JSON number" in code[2] or "overflows" in code[2], code


def run_quietly(argv: list[str]) -> tuple[int, str, str]:
    """main(argv) with its output captured: (exit code, stdout, stderr)."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_a_rule_that_cannot_evaluate_is_an_error_not_a_pass(specimen, monkeypatch, capsys):
    """A frame rule raising inside pandera leaves a failure case with no row: it must fail, never pass."""
    import dataclasses

    from realcompanion.validators.realcompanion.catalogue import CATALOGUE, all_rules

    all_rules()

    def crash(ctx, frame):
        raise TypeError("'<' not supported between instances of 'str' and 'float'")

    monkeypatch.setitem(CATALOGUE.rules, "ARI5", dataclasses.replace(CATALOGUE.rules["ARI5"], check=crash))
    code, out, err = run_quietly(["validate", str(specimen)])
    assert code == 1, out
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[1:2] == ["ARI5"])
    said = " ".join(" ".join(lines[at:at + 3]).split())  # the report's table wraps a long cell onto the next lines
    assert lines[at].startswith("FAIL") and "could not be evaluated:" in said and "TypeError" in said
    code, out, _ = run_quietly(["validate", str(specimen), "--json", "-"])
    rule = next(r for r in json.loads(out)["rules"] if r["id"] == "ARI5")
    assert rule["passed"] is False and "could not be evaluated" in rule["skipped"]


def test_read_and_hash_are_the_same_bytes(specimen):
    """A file rewritten while validation runs: INT1 judges the bytes the rules read, not the file's later state."""
    from realcompanion.validators.run import validate

    path = specimen / "data" / "chat.jsonl"
    rewritten = []

    def rewrite_once(_):
        if not rewritten:
            path.write_bytes(path.read_bytes().replace(b'"probe":"', b'"probe":"changed ', 1))
            rewritten.append(True)

    report = validate(specimen, progress=rewrite_once)
    assert rewritten and "INT1" not in report.fired() and report.errors == 0
    assert "INT1" in validate(specimen).fired()  # the next run reads the new bytes


def break_a_probe(root):
    edit_line("chat", 1, lambda line: dump({**json.loads(line), "probe": "Not what was said."}))(root)


def test_stamp_refuses_an_invalid_release_and_force_says_it_did_not_validate(specimen):
    break_a_probe(specimen)
    before = (specimen / "datapackage.json").read_bytes()
    code, out, err = run_quietly(["stamp", str(specimen)])
    assert code == 1 and err.strip().splitlines() == [err.strip()] and "refused" in err and " A" in err, err
    assert (specimen / "datapackage.json").read_bytes() == before
    code, out, err = run_quietly(["stamp", str(specimen), "--force"])
    assert code == 0 and "without validating" in err
    assert (specimen / "datapackage.json").read_bytes() != before


def test_stamp_restamps_a_valid_release_whose_files_changed(specimen):
    """Only the declarations stamping rewrites (counts, hashes) may be out of date when stamping."""
    edit_line("qa", 1, lambda line: line.replace(b'"question":"', b'"question":"Then, ', 1))(specimen)
    assert run_quietly(["validate", str(specimen)])[0] == 1
    assert run_quietly(["stamp", str(specimen)])[0] == 0
    assert run_quietly(["validate", str(specimen)])[0] == 0


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


JUDGE = {"model": "m", "prompt_sha256": "0" * 64, "temperature": 0}


@pytest.mark.parametrize("change,needle", [
    (lambda row: row.update(condition="c1"), "field 'condition': \"c1\" is not one of"),
    (lambda row: row.update(condition="C9"), "field 'condition': \"C9\" is not one of"),
    (lambda row: row.update(content_match=math.nan), "NaN is not a JSON number"),
    (lambda row: row["judge"].update(temperature=math.nan), "NaN is not a JSON number"),
    (lambda row: row["judge"].update(temperature=math.inf), "Infinity is not a JSON number"),
], ids=["lowercase", "unknown", "nan-score", "nan-temperature", "infinite-temperature"])
def test_bad_verdicts_are_one_line(repo, tmp_path, change, needle):
    from realcompanion.formats.realcompanion.scoring.gold import load_track
    from realcompanion.release import Release

    item = next(i for i in load_track(Release(repo), "chat").items if i.posed)
    row = {"item_id": item.item_id, "condition": "C1", "content_match": 1, "used_memory": True, "judge": dict(JUDGE)}
    change(row)
    path = write_jsonl(tmp_path / "v.jsonl", [row])
    code, out, err = run_quietly(["score", str(repo), "--track", "chat", "--verdicts", str(path)])
    assert code == 2
    check_contract(code, out, err, f"{path}:1")
    assert needle in err, err
