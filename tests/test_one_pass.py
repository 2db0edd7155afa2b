"""One run reports every defect: a row that fails structure is set aside, every other row is still checked."""
from __future__ import annotations

import json

import pytest
from realcompanion.validators.run import validate
from test_rules import read, write

from realcompanion.cli import main
from realcompanion.stamp import stamp

MALFORMED = {"pattern": "U01-d003-004", "type": 3}  # a citation that breaks its pattern (SCH3), or its type (SCH1)


def three_defects(root, citation) -> dict[str, str]:
    """In qa: one malformed citation, a multi_hop question within one session, an answerable question citing nothing."""
    qa = read(root, "qa")
    malformed = next(q for q in qa if q["category"] == "basic_fact")
    malformed["evidence"][0] = citation
    one_session = next(q for q in qa if q["category"] == "multi_hop")
    one_session["evidence"] = one_session["evidence"][:1]
    uncited = next(q for q in qa if q["answerable"] and q["category"] == "attribute")
    uncited["evidence"] = []
    write(root, "qa", qa)
    stamp(root)
    return {"malformed": malformed["item_id"], "STR1": one_session["item_id"], "V5": uncited["item_id"]}


@pytest.mark.parametrize("kind", MALFORMED)
def test_one_run_reports_a_malformed_citation_and_every_semantic_defect(specimen, capsys, kind):
    rows = three_defects(specimen, MALFORMED[kind])
    structure = {"pattern": "SCH3", "type": "SCH1"}[kind]
    report = validate(specimen)
    failures = report.failure_frame()
    errors = failures[failures["severity"] == "error"]
    # each defect once, under its own rule; the malformed citation is not also "unresolved" (gate C)
    assert sorted(zip(errors["rule"], errors["row"])) == sorted(
        [(structure, rows["malformed"]), ("STR1", rows["STR1"]), ("V5", rows["V5"])]), errors.to_string()
    outcomes = {o.rule.id: o for o in report.outcomes}
    assert not any(o.skipped for o in report.outcomes)  # every rule ran
    assert outcomes["STR1"].set_aside == outcomes["V5"].set_aside == outcomes["C"].set_aside == 1
    assert outcomes["A"].set_aside == 0  # gate A reads chat and source only
    assert main(["validate", str(specimen), "--json", "-"]) == 1
    rules = {r["id"]: r for r in json.loads(capsys.readouterr().out)["rules"]}
    assert rules["STR1"]["set_aside"] == 1 and rules["STR1"]["skipped"] is None


def test_a_row_without_an_id_is_named_by_its_line_and_nulls_read_null(specimen):
    qa = read(specimen, "qa")
    qa[4]["item_id"] = None
    write(specimen, "qa", qa)
    persona = read(specimen, "persona")
    empty = next(p for p in persona if p["value"] is None)
    empty["evidence"] = [next(m["dayid"] for m in read(specimen, "source") if m["participant_id"] == empty["participant_id"])]
    write(specimen, "persona", persona)
    stamp(specimen)
    failures = validate(specimen).failure_frame()
    assert set(failures.loc[failures["row"] == "line 5", "rule"]) == {"SCH2"}, failures.head().to_string()
    named = failures[(failures["rule"] == "V5") & (failures["row"] == f"{empty['participant_id']}:{empty['slot']}")]
    assert list(named["value"]) == [json.dumps(empty["evidence"])]  # the field the line names, as the file has it
    assert not failures["value"].astype(str).isin(["nan", "<NA>", "None"]).any()


def test_a_malformed_message_does_not_cascade(specimen):
    """A message whose turn is not an integer is SCH1's alone: order, sessions and citations around it still hold."""
    source = read(specimen, "source")
    cited = {d for q in read(specimen, "qa") for d in q["evidence"]}
    message = next(m for m in source[5:] if m["dayid"] in cited)
    message["turn"] = "seven"
    write(specimen, "source", source)
    stamp(specimen)
    report = validate(specimen)
    failures = report.failure_frame()
    assert set(failures.loc[failures["severity"] == "error", "rule"]) == {"SCH1"}, failures.head(10).to_string()
    assert {o.rule.id: o.set_aside for o in report.outcomes}["B"] == 1


def test_a_file_read_again_slice_by_slice_sets_aside_the_records_a_whole_read_would(specimen, monkeypatch):
    """A file Arrow cannot read as typed is read again a slice of lines at a time: slices of a few lines set aside
    the same records, named by the same lines, and keep every other record in place, as one slice of the whole
    file does."""
    import realcompanion.release as release_module

    source = read(specimen, "source")
    source[3]["turn"] = "3"  # text in an integer field: set aside by SCH1
    source[-2]["db_id"] = 2 ** 70  # no 64-bit integer holds it
    write(specimen, "source", source)
    stamp(specimen)
    whole = validate(specimen).failure_frame()
    monkeypatch.setattr(release_module, "_SLICE_BYTES", 300)
    sliced = validate(specimen).failure_frame()
    assert sliced.equals(whole)
    named = sliced.loc[sliced["rule"] == "SCH1"]
    assert named["message"].str.extract(r"^line (\d+):")[0].astype(int).tolist() == [4, len(source) - 1]


def test_a_record_that_fits_its_types_is_judged_alike_in_every_slice(specimen, monkeypatch):
    """A slice read line by line takes a record that fits its types as a typed read takes it: a null in a required
    field is SCH2's, a citation that breaks its nested pattern SCH3's, whether or not a record that does not fit
    its types (SCH1) shares their slice. Both were SCH1's beside one, so a defect's rule hung on its neighbours."""
    import realcompanion.release as release_module

    qa = read(specimen, "qa")
    cited = next(i for i, q in enumerate(qa) if i > 4 and q["evidence"])
    qa[2]["category"] = None
    qa[cited]["evidence"][0] = MALFORMED["pattern"]
    write(specimen, "qa", qa)
    stamp(specimen)
    expected = [("SCH2", qa[2]["item_id"]), ("SCH3", qa[cited]["item_id"])]

    def named():
        found = validate(specimen).failure_frame()
        found = found[found["severity"] == "error"]
        return sorted(zip(found["rule"], found["row"]))

    assert named() == sorted(expected)
    qa[3]["answerable"] = "yes"  # text in a boolean: the file, or its slice, is read line by line
    write(specimen, "qa", qa)
    stamp(specimen)
    expected.append(("SCH1", qa[3]["item_id"]))
    assert named() == sorted(expected)
    monkeypatch.setattr(release_module, "_SLICE_BYTES", 300)
    assert named() == sorted(expected)


def test_a_release_read_in_many_chunks_is_judged_as_in_one(specimen, monkeypatch):
    """A large file is read in blocks, so each of its columns comes in chunks; the view that resolves every cited
    id takes them chunk by chunk (`Context._citing_fields`) and must name the rows and messages one chunk names."""
    import pyarrow as pa

    from realcompanion.release import Release

    qa, chat = read(specimen, "qa"), read(specimen, "chat")
    qa[-1]["evidence"].append(f"{qa[-1]['participant_id']}:d999:999")  # gate C: no such message
    qa[1]["asked_after"] = f"{qa[1]['participant_id']}:d001:001"  # gate D: asked before its evidence
    chat[-1]["grounding_dayids"].insert(0, f"{chat[0]['participant_id']}:d001:001")  # gate C: another participant's
    chat[-2]["grounding_dayids"].append(None)  # cites nothing: a nested structure failure (SCH3), no gate's
    chat[5]["probe"] += " (edited)"  # gate A: its message's text, taken chunk by chunk (`take_rows`)
    recorded = next(r for r in chat if r["trace"]["A"]["referent_text"] and r["required_context"]["recent_context"])
    recorded["trace"]["A"]["referent_text"] = "zebra crossing"  # REF1: in none of the texts it cites
    write(specimen, "qa", qa)
    write(specimen, "chat", chat)
    stamp(specimen)
    whole = validate(specimen).failure_frame()
    read_table = Release.table
    monkeypatch.setattr(Release, "table", lambda self, name: pa.Table.from_batches(
        read_table(self, name).to_batches(max_chunksize=3), read_table(self, name).schema))
    chunked = validate(specimen).failure_frame()
    assert chunked.equals(whole)
    named = set(zip(whole["rule"], whole["row"]))
    assert {("C", qa[-1]["item_id"]), ("D", qa[1]["item_id"]), ("C", chat[-1]["item_id"]), ("A", chat[5]["item_id"]),
            ("REF1", recorded["item_id"])} <= named
    assert {rule for rule, row in named if row == chat[-2]["item_id"]} == {"SCH3"}


@pytest.mark.parametrize("chunks", [[], [0], [7], [1, 1, 5, 0, 9, 2], None])
@pytest.mark.parametrize("share", [0.2, 0.9])
def test_taking_rows_of_a_chunked_column_gives_each_position_its_row(chunks, share):
    """`take_rows`: a chunk-by-chunk take (few positions) and Arrow's own (many) give each position its row, and null
    for -1, in the order asked, across empty chunks too, from a column of one array too (pandas hands one over)."""
    import numpy as np
    import pyarrow as pa
    from realcompanion.validators.context import take_rows

    values = [f"text {i}" if i % 4 else None for i in range(6 if chunks is None else sum(chunks))]
    column = pa.array(values, pa.string()) if chunks is None else pa.chunked_array(  # None: an array, no chunks
        [pa.array(values[sum(chunks[:k]):sum(chunks[:k + 1])], pa.string()) for k in range(len(chunks))], pa.string())
    rng = np.random.default_rng(len(values))
    positions = rng.integers(-1, max(len(values), 1), size=int(share * len(values)) + 3) if values else np.full(3, -1)
    assert take_rows(column, positions).to_pylist() == [values[p] if p >= 0 else None for p in positions]


def test_rows_are_named_only_in_resources_where_some_fail(repo, monkeypatch):
    """A resource's row names (each row's key as text) are built once one of its rows fails, not for its frame rules
    or nested schemas to pass: on the clean specimen no rule names `source`'s rows (57 MB at 100x paper size, held
    all run)."""
    from realcompanion.validators.context import Context

    named, row_ids = [], Context.row_ids
    monkeypatch.setattr(Context, "row_ids", lambda self, name: named.append(name) or row_ids(self, name))
    report = validate(repo)
    assert report.errors == 0 and "source" not in set(report.failure_frame()["resource"])
    assert "source" not in named and "chat" not in named, named


@pytest.mark.parametrize("keys, starts, sizes", [([], [], []), ([7], [0], [1]), ([3, 3, 1, 1, 1, 2], [0, 2, 5], [2, 3, 1])])
def test_runs_of_equal_keys_are_found_where_they_begin(keys, starts, sizes):
    """`runs`, which SCH2's repeated keys, REF1's cited texts and the gap rule's sessions group by."""
    import numpy as np
    from realcompanion.validators.context import runs

    found = runs(np.array(keys, dtype=np.int64))
    assert [list(found[0]), list(found[1])] == [starts, sizes]
