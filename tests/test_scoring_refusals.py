"""Scorers refuse what they cannot score: a release failing validation, verdicts without a condition, an empty
stated fact or a judge that sampled; each in one line naming the rule or the row, exit 2."""
from __future__ import annotations

import json

import pytest
from tiny_groupassist import build as build_groupassist
from tiny_release import build, write_jsonl

from realcompanion.cli import main


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build(tmp_path_factory.mktemp("refusals") / "release")


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    """The hand-built release with one chat row's stratum outside the vocabulary (a constraint, SCH2), restamped."""
    from realcompanion.stamp import stamp

    folder = build(tmp_path_factory.mktemp("broken") / "release")
    path = folder / "data" / "chat.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows[0]["stratum"] = "sampled"
    write_jsonl(path, rows)
    stamp(folder)
    return folder


def scorers(folder, tmp_path) -> list[list[str]]:
    replies = tmp_path / "r.jsonl"
    replies.write_text(json.dumps({"item_id": "U01:C0001", "condition": "C1", "reply": "x"}) + "\n", encoding="utf-8")
    pred = tmp_path / "pred"
    pred.mkdir(exist_ok=True)
    (pred / "persona.jsonl").write_text("", encoding="utf-8")
    return [["baselines", str(folder), "--track", "chat", "--resamples", "10"],
            ["score", str(folder), "--track", "qa", "--verdicts", str(tmp_path / "v.jsonl")],
            ["judge", str(folder), "--track", "chat", "--replies", str(replies), "--endpoint", "http://127.0.0.1:9",
             "--model", "m", "--out", str(tmp_path / "out.jsonl")],
            ["contexts", str(folder), "--condition", "C1", "--out", str(tmp_path / "c.jsonl")],
            ["score-reconstruction", str(folder), "--pred", str(pred)],
            ["windows", str(folder)]]


def test_every_scorer_refuses_a_release_failing_validation_in_one_line(broken, tmp_path, capsys):
    for command in scorers(broken, tmp_path):
        assert main(command) == 2, command[0]
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "fails validation with 2 error(s): SCH2 (1), V3 (1); not scored" in err, \
            (command[0], err)
        assert not (tmp_path / "c.jsonl").exists() and not (tmp_path / "out.jsonl").exists()


def test_unvalidated_scores_it_all_the_same_and_says_so(broken, tmp_path, capsys):
    out = tmp_path / "w.json"
    assert main(["windows", str(broken), "--unvalidated", "--json", str(out)]) == 0
    assert "warning: --unvalidated: the release was not validated first" in capsys.readouterr().err
    assert json.loads(out.read_text(encoding="utf-8"))["release"]["validated"] is False


@pytest.mark.parametrize("track", ["chat", "qa"])
def test_an_item_id_twice_in_an_unvalidated_release_is_one_line(tmp_path, capsys, track):
    """A run's row, a verdict and a gold set find their item by its id: an id twice, which only `--unvalidated` lets
    through, scored one row against the other's gold set, and `baselines` ended in an IndexError traceback."""
    folder = build(tmp_path / "release")
    path = folder / "data" / f"{track}.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows[1]["item_id"] = rows[0]["item_id"]
    write_jsonl(path, rows)
    assert main(["baselines", str(folder), "--unvalidated", "--track", track, "--resamples", "2"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == f"error: {path}:2 field 'item_id': item_id '{rows[0]['item_id']}' is not unique (first at line " \
                      "1): every score finds its item by it", err
    assert len(err) == 2 and err[0].startswith("warning: --unvalidated")


def test_a_valid_release_is_scored_and_says_it_was_validated(tiny, tmp_path):
    out = tmp_path / "w.json"
    assert main(["windows", str(tiny), "--json", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8"))["release"]["validated"] is True


def _failing_gs2(folder):
    """A tiny GroupAssistBench release with one instance at level L3 (outside the vocabulary), stamped."""
    from realcompanion.formats.groupassist.synth import stamp

    folder = build_groupassist(folder)
    path = folder / "data" / "instances.jsonl"
    path.write_text(path.read_text(encoding="utf-8").replace('"level": "L2"', '"level": "L3"', 1), encoding="utf-8")
    stamp(folder)
    return folder


def test_groupassist_baselines_refuse_a_release_failing_gs2(tmp_path, capsys):
    """An instance at level L3 (outside the vocabulary): `baselines` used to print an L3 cell."""
    folder = _failing_gs2(tmp_path / "release")
    assert main(["baselines", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "GS2" in err and "fails validation" in err
    assert main(["baselines", str(build_groupassist(tmp_path / "valid"))]) == 0  # the near miss


def test_groupassist_score_validates_apart_and_refuses_in_the_same_line(tmp_path, capsys):
    """`score` validates in a forked process: its refusal is the line `baselines` prints, validating in its own."""
    folder = _failing_gs2(tmp_path / "release")
    assert main(["baselines", str(folder)]) == 2
    refused = capsys.readouterr().err
    assert main(["score", str(folder), "--verdicts", str(tmp_path / "v.jsonl")]) == 2
    assert capsys.readouterr().err == refused and "GS2" in refused



@pytest.mark.parametrize("edited", [True, False], ids=["edited", "near-miss"])
def test_groupassist_score_refuses_a_table_changed_after_its_validation(tmp_path, capsys, monkeypatch, edited):
    """`score` validates in a forked process and reads the tables again itself: a file edited in between (one
    character of an instance's query) is named, not scored; left as validated, the run goes on past the check
    (to the verdict file, which does not exist here)."""
    from realcompanion.scoring import checked

    folder = build_groupassist(tmp_path / "release")
    path, validate = folder / "data" / "instances.jsonl", checked._apart

    def then_edited(release):
        validated = validate(release)
        if edited:
            path.write_bytes(path.read_bytes().replace(b'"query_en": "', b'"query_en": " ', 1))
        return validated

    monkeypatch.setattr(checked, "_apart", then_edited)
    capsys.readouterr()
    assert main(["score", str(folder), "--verdicts", str(tmp_path / "v.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert ("changed while the release was validated" in err) is edited and (str(path) in err) is edited, err


def test_groupassist_score_names_a_validating_process_that_ended_without_answering(tmp_path, capsys, monkeypatch):
    """The forked validation killed (out of memory, say) is one line saying how it ended, not a hang or a
    traceback."""
    import os
    import signal

    from realcompanion.scoring import checked

    monkeypatch.setattr(checked, "_validated", lambda release: os.kill(os.getpid(), signal.SIGKILL))
    folder = build_groupassist(tmp_path / "release")
    capsys.readouterr()
    assert main(["score", str(folder), "--verdicts", str(tmp_path / "v.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {folder}: the validating process ended on signal SIGKILL (out of memory?)\n", err

CHAT_VERDICT = {"item_id": "U01:C0001", "condition": "C1", "content_match": 2, "used_memory": False,
                "judge": {"model": "m", "prompt_sha256": "0" * 64, "temperature": 0}}
QA_VERDICT = {"item_id": "U01:Q0001", "condition": "system", "answer_correct": True, "abstained": False,
              "judge": {"model": "m", "prompt_sha256": "0" * 64, "temperature": 0}}


@pytest.mark.parametrize(("track", "row", "field"), [
    ("qa", QA_VERDICT | {"condition": ""}, "condition"),
    ("qa", QA_VERDICT | {"condition": "  "}, "condition"),
    ("chat", CHAT_VERDICT | {"judge": CHAT_VERDICT["judge"] | {"temperature": 0.7}}, "judge.temperature"),
    ("qa", QA_VERDICT | {"judge": QA_VERDICT["judge"] | {"temperature": 1}}, "judge.temperature"),
])
def test_verdicts_without_a_condition_or_sampled_by_the_judge_are_refused(tiny, tmp_path, capsys, track, row,
                                                                         field):
    verdicts = tmp_path / "v.jsonl"
    good = QA_VERDICT if track == "qa" else CHAT_VERDICT
    write_jsonl(verdicts, [good, row | {"item_id": "U01:Q0002" if track == "qa" else "U01:C0002"}])
    assert main(["score", str(tiny), "--track", track, "--verdicts", str(verdicts), "--resamples", "10"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {verdicts}:2 field '{field}'") and err.count("\n") == 1
    write_jsonl(verdicts, [good])  # the near miss: the same file without that row is scored
    assert main(["score", str(tiny), "--track", track, "--verdicts", str(verdicts), "--resamples", "10"]) == 0


GA_VERDICT = {"instance_id": "G01:I0001", "condition": "full", "facts": [{"fact": "Wednesday", "atom": "G01:I0001:T01"}],
              "judge": {"model": "m", "prompt_sha256": "0" * 64, "temperature": 0}}


@pytest.mark.parametrize(("row", "field"), [
    (GA_VERDICT | {"condition": ""}, "condition"),
    (GA_VERDICT | {"facts": [{"fact": " ", "atom": None}]}, "facts"),
    (GA_VERDICT | {"judge": GA_VERDICT["judge"] | {"temperature": 0.2}}, "judge.temperature"),
])
def test_groupassist_verdicts_without_a_condition_a_fact_or_at_a_sampled_temperature_are_refused(
        tmp_path, capsys, row, field):
    folder = build_groupassist(tmp_path / "release")
    atom = json.loads((folder / "data" / "atoms.jsonl").read_text(encoding="utf-8").splitlines()[0])["atom_id"]
    good = GA_VERDICT | {"facts": [{"fact": "Wednesday", "atom": atom}]}
    verdicts = tmp_path / "v.jsonl"
    bad = row if row.get("facts") != GA_VERDICT["facts"] else row | {"facts": good["facts"]}
    write_jsonl(verdicts, [good | {"condition": "other"}, bad])
    assert main(["score", str(folder), "--verdicts", str(verdicts), "--resamples", "10"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {verdicts}:2 field '{field}'") and err.count("\n") == 1
    write_jsonl(verdicts, [good])
    assert main(["score", str(folder), "--verdicts", str(verdicts), "--resamples", "10"]) == 0


def test_contexts_name_the_rows_they_set_aside_and_a_changed_file(tiny, tmp_path, capsys):
    import shutil

    copy = shutil.copytree(tiny, tmp_path / "copy")
    path = copy / "data" / "chat.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows[6]["scoreable"] = "yes"  # U02:C0001 fails its schema, line 7; not restamped: its sha256 changed
    write_jsonl(path, rows)
    assert main(["contexts", str(copy), "--unvalidated", "--condition", "C1", "--out", str(tmp_path / "c.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "warning: the sha256 of data/chat.jsonl differs from the one datapackage.json declares" in out
    assert "rows failing their schema are not scored (chat 1 (line 7))" in out
