"""stamp, schemas, croissant, diff, cite and publish --dry-run on a GroupAssistBench release."""
from __future__ import annotations

import json
import shutil

import pytest

from realcompanion.cli import main
from realcompanion.formats.groupassist import SPECIMEN
from realcompanion.stamp import sha256_of


@pytest.fixture
def gab(tmp_path):
    """A writable copy of the GroupAssistBench specimen folder."""
    return shutil.copytree(SPECIMEN, tmp_path / "groupassist")


def descriptor(root) -> dict:
    return json.loads((root / "datapackage.json").read_text(encoding="utf-8"))


def drop_last_line(path):
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:-1]), encoding="utf-8")


def test_stamp_records_counts_and_hashes_in_the_groupassist_block(gab, capsys):
    before = (gab / "datapackage.json").read_bytes()
    assert main(["stamp", str(gab)]) == 0
    assert (gab / "datapackage.json").read_bytes() == before  # the specimen is stamped already
    drop_last_line(gab / "data" / "audit.jsonl")
    assert main(["stamp", str(gab)]) == 0
    block = descriptor(gab)["groupassist"]
    assert block["rows"]["audit"] == 11 and "audit=11" in capsys.readouterr().out
    audit = next(r for r in descriptor(gab)["resources"] if r["name"] == "audit")
    assert audit["hash"] == "sha256:" + sha256_of(gab / "data" / "audit.jsonl") and "sha256" not in block
    assert "realcompanion" not in descriptor(gab)
    assert main(["validate", str(gab), "--rules", "integrity"]) == 0


def test_schemas_checks_and_writes_the_vocabulary_copies(gab, capsys):
    path = gab / "schemas" / "instances.schema.json"
    original = path.read_text(encoding="utf-8")
    schema = json.loads(original)
    level = next(f for f in schema["fields"] if f["name"] == "level")
    level["constraints"]["enum"] = ["L1"]
    path.write_text(json.dumps(schema, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert main(["schemas", str(gab)]) == 1
    assert f"stale: {path}" in capsys.readouterr().out
    assert main(["schemas", str(gab), "--write"]) == 0
    assert f"rewrote: {path}" in capsys.readouterr().out
    assert path.read_text(encoding="utf-8") == original
    assert main(["schemas", str(SPECIMEN)]) == 0


def test_croissant_describes_every_resource_and_mlcroissant_reads_it(gab, capsys):
    mlc = pytest.importorskip("mlcroissant")
    assert main(["croissant", str(gab)]) == 0
    assert "8 record sets, 0 mlcroissant warning(s)" in capsys.readouterr().out
    dataset = mlc.Dataset(jsonld=gab / "croissant.json")
    assert not dataset.metadata.ctx.issues.errors and not dataset.metadata.ctx.issues.warnings
    sets = {r.name: r for r in dataset.metadata.record_sets}
    assert set(sets) == set(descriptor(gab)["groupassist"]["rows"])
    reply_to = next(f for f in sets["messages"].fields if f.name == "reply_to")
    assert not reply_to.references.field and "References messages/message_id" in reply_to.description
    read = {name: sum(1 for _ in dataset.records(name)) for name in sets}  # a self-reference made a cycle: 4 of 8 failed
    assert read == descriptor(gab)["groupassist"]["rows"]
    data_protection = json.loads((gab / "croissant.json").read_text(encoding="utf-8"))
    assert "pseudonym" in json.dumps(data_protection["rai:personalSensitiveInformation"])


def test_diff_names_the_records_a_new_version_touches(gab, capsys):
    path = gab / "data" / "messages.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows[5]["text_en"] = "corrected"
    path.write_text("".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in rows),
                    encoding="utf-8")
    drop_last_line(gab / "data" / "audit.jsonl")
    assert main(["stamp", str(gab)]) == 0
    capsys.readouterr()
    assert main(["diff", str(SPECIMEN), str(gab)]) == 0
    out = capsys.readouterr().out
    assert "parameters changed: rows" in out
    assert f"messages: +0 added, -0 removed, ~1 changed\n  ~ {rows[5]['message_id']}: text_en" in out
    assert "audit: +0 added, -1 removed, ~0 changed" in out and "instances: +0 added, -0 removed, ~0 changed" in out


def test_diff_refuses_two_formats(repo, capsys):
    assert main(["diff", str(repo), str(SPECIMEN)]) == 2
    assert "releases of two formats are not compared" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["windows"], ["score-reconstruction", "--pred", "{out}/predictions"],
                                     ["contexts", "--condition", "C0", "--out", "{out}/contexts.jsonl"]])
def test_a_realcompanion_command_on_a_groupassist_release_says_which_format_it_reads(tmp_path, capsys, command):
    """A command of the RealCompanion format, given a GroupAssistBench release, says so in one line (exit 2): it
    said only that the descriptor lacked a `realcompanion` block, as if the release were broken."""
    assert main([command[0], str(SPECIMEN), *(a.format(out=tmp_path) for a in command[1:])]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "a groupassist release, which this command does not read" in err
    assert not (tmp_path / "contexts.jsonl").exists()


@pytest.mark.parametrize("style, says", [("bibtex", 'version = "0.1.0"'), ("apa", "Version 0.1.0"),
                                          ("cff", "version: 0.1.0")])
def test_cite_the_groupassist_release(style, says, capsys):
    assert main(["cite", str(SPECIMEN), "--format", style]) == 0
    out = capsys.readouterr().out
    assert says in out and "GroupAssistBench" in out


@pytest.mark.parametrize("synthetic", [True, False])
def test_a_converted_release_opens_with_the_provenance_it_declares(gab, capsys, synthetic):
    """A conversion (scripted TV dialogue, say) is neither the project's generated specimen nor real group chats:
    the card and the datasheet open with groupassist.provenance, as a RealCompanion release's do."""
    said = "Two TV plays of CPED (Apache-2.0), converted: scripted multi-party dialogue, not group chats."
    block = descriptor(gab)
    block["groupassist"].update(synthetic=synthetic, provenance=said)
    (gab / "datapackage.json").write_text(json.dumps(block, ensure_ascii=False), encoding="utf-8")
    assert main(["refresh", str(gab)]) == 0
    for name in ("README.md", "DATASHEET.md"):
        text = (gab / name).read_text(encoding="utf-8")
        notice = text.split("<!-- generated:status -->\n", 1)[1].split("\n", 1)[0]
        assert said in notice and "realcompanion synth" not in notice and "real group chats" not in notice, name
        assert notice.startswith("> **Synthetic release" if synthetic else "> **GroupAssistBench release"), name
    block["groupassist"]["provenance"] = 7
    (gab / "datapackage.json").write_text(json.dumps(block), encoding="utf-8")
    capsys.readouterr()
    assert main(["card", str(gab)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "groupassist.provenance" in err and "Traceback" not in err


def test_publish_dry_run_plans_the_groupassist_release(gab, capsys):
    assert main(["publish", str(gab), "--repo-id", "org/groupassist", "--version", "0.1.0", "--dry-run"]) == 0
    out = capsys.readouterr().out
    for path in ("CHANGELOG.md", "DATASHEET.md", "schemas/vocabulary.json", "data/messages.jsonl", "data/audit.jsonl"):
        assert f"  {path} " in out
    assert "dry run: nothing uploaded" in out
    assert main(["publish", str(gab), "--repo-id", "org/groupassist", "--version", "0.2.0", "--dry-run"]) == 1
    assert "version mismatch" in capsys.readouterr().err
    path = gab / "data" / "anchors.jsonl"  # a span no longer in its message (gate ii), documents brought up to date
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows[0]["span_zh"] = "不在消息里的片段"
    path.write_text("".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in rows),
                    encoding="utf-8")
    for command in (["stamp"], ["card", "--write"], ["datasheet", "--write"]):
        main([command[0], str(gab), *command[1:]])
    capsys.readouterr()
    assert main(["publish", str(gab), "--repo-id", "org/groupassist", "--version", "0.1.0", "--dry-run"]) == 1
    assert "refused: `realcompanion validate` reports" in capsys.readouterr().err
