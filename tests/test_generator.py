"""The generator: deterministic, the shipped specimen is its output, and the specimen exercises the whole format."""
from __future__ import annotations

import filecmp
import json
from collections import Counter

from realcompanion.cli import main
from realcompanion.release import Release
from realcompanion.schemas import RESOURCES, Schemas, enum_of


def test_same_seed_gives_byte_identical_files(tmp_path):
    for out in ("a", "b"):
        assert main(["synth", str(tmp_path / out), "--participants", "2", "--seed", "7"]) == 0
    for name in [*(f"data/{r}.jsonl" for r in RESOURCES), "datapackage.json"]:
        assert filecmp.cmp(tmp_path / "a" / name, tmp_path / "b" / name, shallow=False), name


def test_shipped_specimen_is_the_generator_output(repo, tmp_path):
    assert main(["synth", str(tmp_path / "again")]) == 0
    for name in [*(f"data/{r}.jsonl" for r in RESOURCES), "datapackage.json"]:
        assert filecmp.cmp(repo / name, tmp_path / "again" / name, shallow=False), f"{name} differs: synth anew"


def test_generated_schema_copies_are_current(repo):
    assert Schemas(repo).stale() == []


def test_frictionless_reports_the_package_valid(repo):
    from frictionless import Package

    report = Package(str(repo / "datapackage.json")).validate()
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])[:5]


def test_specimen_is_labelled_synthetic(repo):
    assert Release(repo).params["synthetic"] is True


def _values(release, resource, path):
    column = release.table(resource).column(path.split(".")[0]).combine_chunks()
    import pyarrow.compute as pc

    for part in path.split(".")[1:]:
        column = pc.struct_field(column, part)
    return column.to_pylist()


NESTED_ENUMS = [("chat", "trace.A.locus", "locus"), ("chat", "trace.C.tier", "tier"),
                ("chat", "trace.C.category", "chat_category")]
NESTED_NULLABLE = [("chat", "trace.A.referent_text"), ("chat", "trace.D.gold_response"), ("chat", "trace.B.rationale"),
                   ("chat", "trace.C.relabeled")]


def _fields(release):
    for resource in RESOURCES:
        for field in release.table_schema(resource)["fields"]:
            yield resource, field


def test_every_enum_value_occurs(repo):
    release = Release(repo)
    missing = []
    for resource, field in _fields(release):
        if "vocabulary" in field:
            seen = set(_values(release, resource, field["name"]))
            missing += [(resource, field["name"], v) for v in field["constraints"]["enum"] if v not in seen]
    for resource, path, vocab in NESTED_ENUMS:
        seen = set(_values(release, resource, path))
        missing += [(resource, path, v) for v in enum_of(release.schemas.vocabulary, vocab) if v not in seen]
    results = {v for p in "ABCDE" for v in _values(release, "chat", f"trace.{p}.result")}
    assert missing == [] and results == set(release.schemas.vocabulary["phase_result"])


def test_every_nullable_field_occurs_both_ways(repo):
    release = Release(repo)
    one_way = []
    fields = [(r, f["name"]) for r, f in _fields(release) if not f["constraints"].get("required")]
    for resource, path in fields + NESTED_NULLABLE:
        values = _values(release, resource, path)
        if not (any(v is None for v in values) and any(v is not None for v in values)):
            one_way.append((resource, path))
    assert one_way == []


def test_every_tier_category_locus_and_withdrawn_code_in_scoreable_or_withdrawn_rows(repo):
    chat = [json.loads(line) for line in (repo / "data" / "chat.jsonl").read_text().splitlines()]
    vocab = Release(repo).schemas.vocabulary
    scoreable = [r for r in chat if r["scoreable"]]
    assert {(r["tier"], r["category"]) for r in scoreable} == {
        (t, c) for t, cats in vocab["chat_category"].items() for c in cats}
    assert {r["locus"] for r in scoreable} == set(vocab["locus"])
    assert {r["withdrawn"] for r in chat} - {None} == set(vocab["withdrawn"])


def test_paper_scale_release_has_the_paper_counts_and_passes(paper_release):
    """`synth --paper-scale` (the shared fixture runs it, exit 0)."""
    from realcompanion.validators.run import validate

    from realcompanion.formats.realcompanion.synth.plan import PAPER_TOTALS

    release = Release(paper_release)
    assert release.params["rows"] == PAPER_TOTALS
    chat = [json.loads(line) for line in (paper_release / "data" / "chat.jsonl").read_text().splitlines()]
    assert Counter(r["stratum"] for r in chat if r["withdrawn"] is None)["abstention"] == 434  # Table 3: 1,533 + 434
    assert Counter(r["stratum"] for r in chat)["enriched"] == 364  # Table 20
    assert Counter(r["withdrawn"] for r in chat if r["withdrawn"]) == {  # Table 22
        "context_lost": 17, "gold_outside_empty_context": 3, "stage_b_empty_context": 2,
        "gold_unsupported_rebuild_failed": 12, "stored_verdict_failed": 3, "stage_b_gold_unsupported": 1}
    assert validate(paper_release).errors == 0


def test_claim_evidence_contains_what_the_claim_says(repo):
    source = {json.loads(line)["dayid"]: json.loads(line)["text"].lower()
              for line in (repo / "data" / "source.jsonl").read_text().splitlines()}
    claims = [json.loads(line) for line in (repo / "data" / "profile.jsonl").read_text().splitlines()]
    missing = [(c["claim_id"], d) for c in claims for d in c["evidence"] or []
               if c["text"].rstrip(".").split()[-1].lower() not in source[d]]
    assert missing == [] and sum(bool(c["evidence"]) for c in claims) > 100
