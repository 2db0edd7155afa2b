"""GroupAssistBench `judge` and `score`: a local judge server, hand-computed scores, malformed verdict files."""
from __future__ import annotations

import hashlib
import json
import re

import pandas as pd
import pytest
from local_server import JSONHandler, serving

from realcompanion.cli import main
from realcompanion.formats.groupassist import SPECIMEN, GroupAssistRelease
from realcompanion.formats.groupassist.judged import cells, instance_scores
from realcompanion.formats.groupassist.judging import Instances, read_verdicts
from realcompanion.scoring.judge_client import PROMPTS_DIR
from realcompanion.scoring.verdicts import Verdicts

SHA = {level: hashlib.sha256((PROMPTS_DIR / f"groupassist-{level.lower()}.v1.txt").read_bytes()).hexdigest()
       for level in ("L1", "L2")}
JUDGE = {level: {"model": "local-judge", "prompt_sha256": SHA[level], "temperature": 0} for level in SHA}


@pytest.fixture(scope="module")
def instances():
    return Instances(GroupAssistRelease(SPECIMEN))


class Judge(JSONHandler):
    """A chat-completions API that credits a response saying "remember" with every reference atom (L1) or
    every positive criterion and no penalty (L2), and anything else with nothing; "BROKEN" gets an answer
    naming an atom or criterion the instance does not have. From the request after `refuse_after` on, it
    refuses (HTTP 400), as an endpoint that went away mid-run."""

    refuse_after = None

    def reply(self, body):
        if self.refuse_after is not None and len(self.requests) > self.refuse_after:
            return 400, json.dumps({"error": {"message": "gone", "type": "invalid_request_error"}}).encode()
        prompt = body["messages"][0]["content"]
        response = re.search(r"<(?:answer|reply)>\n(.*)\n</", prompt, re.S).group(1)
        good = "remember" in response
        if "<facts>" in prompt:
            listed = re.findall(r"^(\S+?)( \(SUPERSEDED\))?: ", prompt.split("<facts>")[1].split("</facts>")[0], re.M)
            facts = [{"fact": "x", "atom": a} for a, superseded in listed if good and not superseded]
            if "BROKEN" in response:
                facts = [{"fact": "x", "atom": "NO:SUCH:ATOM"}]
            answer = {"facts": facts}
        else:
            listed = re.findall(r"^(\S+) \[(\w+)\]: ", prompt.split("<criteria>")[1], re.M)
            answer = {"criteria": {c: good and kind != "penalty" for c, kind in listed[("BROKEN" in response):]}}
        payload = {"id": "cmpl-1", "object": "chat.completion", "created": 0, "model": body["model"],
                   "choices": [{"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant", "content": json.dumps(answer)}}]}
        return 200, json.dumps(payload).encode()


@pytest.fixture
def judge_server():
    Judge.requests, Judge.refuse_after = [], None
    with serving(Judge) as url:
        yield url


def judge_args(responses, out, url):
    return ["judge", str(SPECIMEN), "--replies", str(responses), "--endpoint", url, "--model", "local-judge",
            "--out", str(out), "--api-key-env", "REALCOMPANION_TEST_UNSET_KEY"]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_judge_then_score_on_the_specimen(tmp_path, judge_server, instances, capsys):
    rows = [{"instance_id": i, "condition": condition, "response": text}
            for condition, text in (("good", "I remember: ..."), ("bad", "Okay.")) for i in instances.eval]
    out = tmp_path / "verdicts.jsonl"
    assert main(judge_args(write_jsonl(tmp_path / "responses.jsonl", rows), out, judge_server)) == 0
    verdicts = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(verdicts) == len(rows) == len(Judge.requests)
    for v in verdicts:
        level = instances.rows[v["instance_id"]]["level"]
        assert v["judge"] == JUDGE[level]  # judge id and the prompt file's sha256, per level
        assert ("facts" in v) == (level == "L1") and ("criteria" in v) == (level == "L2")
    assert all(body["temperature"] == 0 for _, body in Judge.requests)
    capsys.readouterr()
    report_path = tmp_path / "score.json"
    assert main(["score", str(SPECIMEN), "--verdicts", str(out), "--json", str(report_path), "--resamples", "200"]) == 0
    report = json.loads(report_path.read_text(encoding="utf-8"), parse_constant=pytest.fail)  # NaN is not JSON
    assert report["judged"]["judge"] == JUDGE
    l1_row = next(r for r in report["judged"]["per_instance"] if r["level"] == "L1")
    assert (l1_row["S"], l1_row["pass"]) == (None, None)
    assert report["parameters"]["release"]["score"] == GroupAssistRelease(SPECIMEN).params["score"]
    good, bad = report["judged"]["conditions"]["good"], report["judged"]["conditions"]["bad"]
    for dependency in ("M1", "M2", "M3", "all"):
        for level, quantities in (("L1", ("atom_recall", "factual_f1")), ("L2", ("S", "pass"))):
            for q in quantities:
                assert good[level][dependency][q]["pooled"] == 1.0 and bad[level][dependency][q]["pooled"] == 0.0
                assert good[level][dependency][q]["missing"] == 0
    assert good["L1"]["all"]["atom_recall"]["n"] == 40 and good["L2"]["all"]["S"]["n"] == 32
    assert good["L2"]["M3"]["S"]["ci"]["pooled"] is not None  # groups resampled
    shown = capsys.readouterr().out
    assert "good: means by level x dependency" in shown and "L2 M3" in shown


def test_a_stopped_run_keeps_its_verdicts_and_resume_asks_only_for_the_rest(tmp_path, judge_server, instances,
                                                                             capsys):
    rows = [{"instance_id": i, "condition": "good", "response": "I remember: ..."} for i in instances.eval]
    responses, out = write_jsonl(tmp_path / "responses.jsonl", rows), tmp_path / "verdicts.jsonl"
    Judge.refuse_after = 30
    assert main(judge_args(responses, out, judge_server)) == 2
    assert capsys.readouterr().err.startswith(f"error: {out}: holds 30 verdicts, the rest unasked (--resume asks "
                                              "only for them): ")
    Judge.requests, Judge.refuse_after = [], None
    rows[0]["response"] = "Okay."  # changed since: judged again
    write_jsonl(responses, rows)
    assert main([*judge_args(responses, out, judge_server), "--resume"]) == 0
    assert len(Judge.requests) == len(rows) - 29
    assert f"{len(rows)} verdicts (29 kept, 1 dropped, {len(rows) - 29} judged now)" in capsys.readouterr().out
    verdicts = {v["instance_id"]: v for v in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert sorted(verdicts) == sorted(instances.eval)
    assert all(v["judge"] == JUDGE[instances.rows[i]["level"]] for i, v in verdicts.items())
    first = verdicts[rows[0]["instance_id"]]
    assert first.get("facts", []) == [] and not any(first.get("criteria", {}).values())  # "Okay." credits nothing


def test_unreadable_judge_answers_are_left_unjudged(tmp_path, judge_server, instances, capsys):
    l1 = next(i for i in instances.eval if instances.rows[i]["level"] == "L1")
    l2 = next(i for i in instances.eval if instances.rows[i]["level"] == "L2")
    rows = [{"instance_id": i, "condition": "c", "response": "BROKEN remember"} for i in (l1, l2)]
    out = tmp_path / "verdicts.jsonl"
    assert main(judge_args(write_jsonl(tmp_path / "r.jsonl", rows), out, judge_server)) == 1
    err = capsys.readouterr().err
    assert f"unjudged: {l1} c: facts in the answer: facts[0].atom 'NO:SUCH:ATOM' is not an atom" in err
    assert f"unjudged: {l2} c: criteria in the answer: leaves criteria unjudged: {l2}:C01" in err
    assert out.read_text(encoding="utf-8") == ""


HOSTILE = "\x1b[2J\u2028VALID"  # clears the terminal, then draws a line of its own


def test_a_condition_or_judge_from_a_users_file_is_escaped_on_the_terminal(tmp_path, judge_server, instances,
                                                                          capsys):
    l2 = next(i for i in instances.eval if instances.rows[i]["level"] == "L2")
    rows = [{"instance_id": l2, "condition": HOSTILE, "response": "BROKEN remember"}]
    assert main(judge_args(write_jsonl(tmp_path / "r.jsonl", rows), tmp_path / "v.jsonl", judge_server)) == 1
    err = capsys.readouterr().err
    assert f"unjudged: {l2} \\x1b[2J\\u2028VALID: criteria" in err and "\x1b" not in err
    verdicts = write_jsonl(tmp_path / "hostile.jsonl", [{**GOOD_L2, "condition": HOSTILE,
                                                          "judge": {**JUDGE["L2"], "model": HOSTILE}}])
    assert main(["score", str(SPECIMEN), "--verdicts", str(verdicts), "--resamples", "20"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u2028" not in out and "\\x1b[2J\\u2028VALID: means by level" in out


def verdicts_of(rows) -> Verdicts:
    frame = pd.DataFrame.from_records([{"condition": "A", **r} for r in rows])
    return Verdicts("v.jsonl", "0" * 64, JUDGE, frame)


def test_l1_atom_recall_and_factual_f1_by_hand(instances):
    # G01:I0003 is L1 M3: reference atoms T01, T02 and the distractor T03
    atoms = instances.atoms["G01:I0003"]
    assert list(zip(atoms["atom_id"], atoms["distractor"])) == [
        ("G01:I0003:T01", False), ("G01:I0003:T02", False), ("G01:I0003:T03", True)]
    facts = {
        "three facts: a reference atom, the distractor, one unmatched": (
            ["G01:I0003:T01", "G01:I0003:T03", None], 1 / 2, 2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2)),
        "both atoms": (["G01:I0003:T01", "G01:I0003:T02"], 1.0, 1.0),
        "one atom twice": (["G01:I0003:T02", "G01:I0003:T02"], 1 / 2, 2 * 1 * (1 / 2) / 1.5),
        "only the distractor": (["G01:I0003:T03"], 0.0, 0.0),
        "nothing stated": ([], 0.0, 0.0),
        "one fact naming no atom": ([None], 0.0, 0.0),
        # a fact said twice is stated once: precision 1/2 (T01 right, one unmatched), not 2/3
        "the right atom twice beside a wrong fact": (["G01:I0003:T01", "G01:I0003:T01", None], 1 / 2, 1 / 2),
        "the distractor twice beside the right atom": (["G01:I0003:T03", "G01:I0003:T01", "G01:I0003:T03"],
                                                       1 / 2, 1 / 2),
    }
    for named, recall, f1 in facts.values():
        scores = instance_scores(instances, verdicts_of(
            [{"instance_id": "G01:I0003", "facts": [{"fact": f"x{k}", "atom": a} for k, a in enumerate(named)]}]))
        assert scores.loc[0, "atom_recall"] == pytest.approx(recall)
        assert scores.loc[0, "factual_f1"] == pytest.approx(f1)


def test_an_unmatched_fact_said_twice_is_one_fact_as_the_scorer_compares_texts(instances):
    """T01 right and one fact naming no atom, said three times in other case, punctuation and width: precision 1/2
    (counted as listed, 1/4), recall 1/2, F1 2 * 1/2 * 1/2 / 1 = 1/2; a fact of other words is another."""
    said = ["Bring beer.", "bring  BEER", "Ｂｒｉｎｇ beer!"]
    facts = [{"fact": "North Park", "atom": "G01:I0003:T01"}] + [{"fact": text, "atom": None} for text in said]
    scores = instance_scores(instances, verdicts_of([{"instance_id": "G01:I0003", "facts": facts},
                                                     {"instance_id": "G01:I0003", "facts": facts + [
                                                         {"fact": "Bring wine", "atom": None}]}]))
    assert list(scores["atom_recall"]) == pytest.approx([1 / 2, 1 / 2])
    assert list(scores["factual_f1"]) == pytest.approx([1 / 2, 2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2)])


def test_l2_score_and_pass_by_hand(instances):
    criteria = instances.criteria["G01:I0006"]
    assert list(zip(criteria["kind"], criteria["mandatory"], criteria["weight"])) == [
        ("grounding", True, 3), ("grounding", True, 3), ("service", True, 2),
        ("penalty", False, -2), ("penalty", False, -1.5), ("penalty", False, -1)]
    cases = {("C01", "C02", "C03"): (1.0, 1.0), ("C01", "C03", "C04"): (3 / 8, 0.0),
             ("C01", "C02", "C03", "C05"): ((8 - 1.5) / 8, 0.0), ("C02",): (3 / 8, 0.0),
             ("C04", "C05", "C06"): (0.0, 0.0)}
    for met, (score, passed) in cases.items():
        judged = {c: c.rsplit(":", 1)[1] in met for c in criteria["criterion_id"]}
        scores = instance_scores(instances, verdicts_of([{"instance_id": "G01:I0006", "criteria": judged}]))
        assert (scores.loc[0, "S"], scores.loc[0, "pass"]) == (pytest.approx(score), passed)


def test_means_by_level_and_dependency_by_hand(instances):
    l1_m1_g02 = next(i for i in instances.eval if i.startswith("G02:") and instances.rows[i]["level"] == "L1"
                     and instances.rows[i]["dependency"] == "M1")
    rows = [{"instance_id": "G01:I0003", "facts": [{"fact": "x", "atom": "G01:I0003:T01"}]},  # recall 1/2
            {"instance_id": "G01:I0001", "facts": [{"fact": "x", "atom": "G01:I0001:T01"}]},  # recall 1
            {"instance_id": l1_m1_g02, "facts": []}]  # recall 0
    table = cells(instances, instance_scores(instances, verdicts_of(rows)), seed=0, resamples=200)
    overall = table["L1"]["all"]["atom_recall"]
    assert overall["pooled"] == pytest.approx(0.5) and overall["macro"] == pytest.approx((0.75 + 0) / 2)
    assert overall["by_group"] == {"G01": 0.75, "G02": 0.0} and overall["n_by_group"] == {"G01": 2, "G02": 1}
    assert "by_participant" not in overall  # a group is not a participant: groups have participants of their own
    assert overall["n"] == 3 and overall["missing"] == 40 - 3 and overall["ci"]["pooled"] is not None
    m1 = table["L1"]["M1"]["atom_recall"]
    assert (m1["pooled"], m1["n"], m1["missing"]) == (0.5, 2, 14 - 2)
    assert table["L1"]["M3"]["factual_f1"]["pooled"] == pytest.approx(2 * 1 * 0.5 / 1.5)
    assert table["L2"]["all"]["S"]["n"] == 0 and table["L2"]["all"]["S"]["missing"] == 32


def test_instances_that_define_no_score_are_unscored_not_missing_or_passed(instances):
    """An L1 instance left with only its distractor atom, and an L2 rubric left with only its penalties (both
    break the release's rules), define no Atom Recall and no S: their verdicts are counted as unscored, apart
    from the instances without a verdict, and an empty rubric is never a pass."""
    import copy

    broken_release = copy.copy(instances)
    broken_release.atoms = {**instances.atoms, "G01:I0003": instances.atoms["G01:I0003"].iloc[2:]}  # T03 only
    criteria = instances.criteria["G01:I0006"]
    broken_release.criteria = {**instances.criteria, "G01:I0006": criteria[criteria["kind"] == "penalty"]}
    rows = [{"instance_id": "G01:I0003", "facts": [{"fact": "x", "atom": "G01:I0003:T03"}]},
            {"instance_id": "G01:I0001", "facts": [{"fact": "x", "atom": "G01:I0001:T01"}]},
            {"instance_id": "G01:I0006", "criteria": {c: False for c in criteria["criterion_id"]}}]
    scores = instance_scores(broken_release, verdicts_of(rows))
    assert scores["S"].isna().iloc[2] and scores["pass"].isna().iloc[2]
    table = cells(broken_release, scores, seed=0, resamples=20)
    l1, l2 = table["L1"]["all"]["atom_recall"], table["L2"]["all"]["S"]
    assert (l1["pooled"], l1["n"], l1["unscored"], l1["missing"]) == (1.0, 1, 1, 40 - 2)
    assert (l2["pooled"], l2["n"], l2["unscored"], l2["missing"]) == (None, 0, 1, 32 - 1)
    assert table["L2"]["all"]["pass"]["n"] == 0


def test_score_names_the_unscored_instances_in_one_line(tmp_path, capsys):
    import shutil

    copy = shutil.copytree(SPECIMEN, tmp_path / "copy")
    path = copy / "data" / "criteria.jsonl"
    kept = [line for line in path.read_text(encoding="utf-8").splitlines()
            if not (line.startswith('{"criterion_id":"G01:I0006:') and '"penalty"' not in line)]
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    verdicts = write_jsonl(tmp_path / "v.jsonl", [{**GOOD_L2, "criteria": {
        f"G01:I0006:C0{k}": False for k in range(4, 7)}}])
    assert main(["score", str(copy), "--unvalidated", "--verdicts", str(verdicts), "--resamples", "20"]) == 0
    warning = [line for line in capsys.readouterr().out.splitlines() if line.startswith("warning: 1 instances")]
    assert len(warning) == 1 and "G01:I0006" in warning[0] and "unscored" in warning[0]


def test_the_terminal_rounds_figures_as_pencil_and_paper_do(tmp_path, instances, capsys):
    """Eight L1 answers: G01:I0003 states one of its two atoms (recall 1/2), seven state nothing (0): Atom Recall
    0.5 / 8 = 0.0625, shown as 0.063 (half up), not 0.062 (Python's half-even on the binary value)."""
    others = [i for i in instances.eval if instances.rows[i]["level"] == "L1" and i != "G01:I0003"][:7]
    rows = [{**GOOD_L1, "instance_id": "G01:I0003", "facts": [{"fact": "x", "atom": "G01:I0003:T01"}]}]
    rows += [{**GOOD_L1, "instance_id": i, "facts": []} for i in others]
    out = tmp_path / "s.json"
    assert main(["score", str(SPECIMEN), "--verdicts", str(write_jsonl(tmp_path / "v.jsonl", rows)),
                 "--resamples", "20", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["judged"]["conditions"]["A"]["L1"]["all"]["atom_recall"]["pooled"] == 0.0625
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("L1 all"))
    assert row.split()[2] == "0.063"


def test_the_score_plot_runs_over_groups(tmp_path, monkeypatch):
    """GroupAssistBench's scores are per group, the unit resampled: the plot's axis says group, not participant."""
    from realcompanion.scoring import plot

    drawn = []
    monkeypatch.setattr(plot, "_save", lambda figure, out: drawn.append(figure.axes[0].get_xlabel()))
    verdicts = write_jsonl(tmp_path / "v.jsonl", [GOOD_L1, GOOD_L2])
    assert main(["score", str(SPECIMEN), "--verdicts", str(verdicts), "--resamples", "20",
                 "--plot", str(tmp_path / "s.png")]) == 0
    assert drawn == ["group"]


GOOD_L1 = {"instance_id": "G01:I0001", "condition": "A", "facts": [{"fact": "x", "atom": "G01:I0001:T01"}],
           "judge": JUDGE["L1"]}
GOOD_L2 = {"instance_id": "G01:I0006", "condition": "A", "judge": JUDGE["L2"],
           "criteria": {f"G01:I0006:C0{k}": k < 4 for k in range(1, 7)}}


def broken(row, **change):
    return {**row, **change}


MALFORMED = {
    "unknown instance": ([broken(GOOD_L1, instance_id="G09:I0001")], 1, "instance_id", "unknown instance_id"),
    "pool instance": ([broken(GOOD_L1, instance_id="POOL")], 1, "instance_id", "not an evaluation instance"),
    "repeated": ([GOOD_L1, GOOD_L1], 2, "condition", "already judged at line 1"),
    "no facts": ([{k: v for k, v in GOOD_L1.items() if k != "facts"}], 1, "facts", "missing field"),
    "facts not a list": ([broken(GOOD_L1, facts="G01:I0001:T01")], 1, "facts", "expected list"),
    "atom of another instance": ([broken(GOOD_L1, facts=[{"fact": "x", "atom": "G01:I0003:T01"}])], 1, "facts",
                                 "facts[0].atom 'G01:I0003:T01' is not an atom of this instance"),
    "atom not a string": ([broken(GOOD_L1, facts=[{"fact": "x", "atom": ["G01:I0001:T01"]}])], 1, "facts",
                          "facts[0].atom ['G01:I0001:T01'] is not an atom of this instance"),
    "fact without text": ([broken(GOOD_L1, facts=[{"atom": None}])], 1, "facts", "facts[0].fact: missing"),
    "criterion left out": ([broken(GOOD_L2, criteria={f"G01:I0006:C0{k}": True for k in range(1, 6)})], 1,
                           "criteria", "leaves criteria unjudged: G01:I0006:C06"),
    "criterion not of the instance": ([broken(GOOD_L2, criteria={**GOOD_L2["criteria"], "G01:I0007:C01": True})], 1,
                                      "criteria", "names criteria not of this instance: G01:I0007:C01"),
    "criterion not boolean": ([broken(GOOD_L2, criteria={**GOOD_L2["criteria"], "G01:I0006:C01": 1})], 1,
                              "criteria", "not judged true or false: G01:I0006:C01"),
    "two prompts for one level": ([GOOD_L1, broken(GOOD_L1, condition="B", judge={**JUDGE["L1"], "prompt_sha256": "0"})],
                                  2, "judge", "mixes judges"),
    "no judge stamp": ([{k: v for k, v in GOOD_L2.items() if k != "judge"}], 1, "judge", "missing field"),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_verdict_files_are_one_line_and_exit_2(tmp_path, instances, name, capsys):
    rows, line, field, says = MALFORMED[name]
    pool = next(i for i, r in instances.rows.items() if r["split"] == "pool")
    rows = [broken(r, instance_id=pool) if r["instance_id"] == "POOL" else r for r in rows]
    path = write_jsonl(tmp_path / "v.jsonl", rows)
    assert main(["score", str(SPECIMEN), "--verdicts", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {path}:{line} field '{field}': ") and says in err and "\n" not in err


def test_verdict_files_that_are_not_json_lines_or_empty(tmp_path, instances, capsys):
    path = tmp_path / "v.jsonl"
    path.write_text(json.dumps(GOOD_L1) + "\n{not json\n", encoding="utf-8")
    assert main(["score", str(SPECIMEN), "--verdicts", str(path)]) == 2
    assert f"{path}:2" in capsys.readouterr().err
    path.write_text("", encoding="utf-8")
    assert main(["score", str(SPECIMEN), "--verdicts", str(path)]) == 2
    assert "no verdicts" in capsys.readouterr().err
    path.write_text(json.dumps(GOOD_L1) + "\n" + json.dumps(GOOD_L2) + "\n", encoding="utf-8")
    assert read_verdicts(path, instances).judge == JUDGE


@pytest.mark.parametrize("field, value", [("level", None), ("level", "L3"), ("split", None)])
def test_an_instance_the_release_leaves_without_a_level_is_one_line_naming_its_row(tmp_path, judge_server, field,
                                                                                    value, capsys):
    """An eval instance whose level is not L1 or L2, or whose split is neither eval nor pool (the release fails GS2),
    cannot be judged or scored: `judge` and `score` ended in a KeyError traceback (or said "a None instance" of the
    user's file); the line names the release's file, row and field."""
    import shutil

    copy = shutil.copytree(SPECIMEN, tmp_path / "copy")
    path = copy / "data" / "instances.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[0] = json.dumps({**json.loads(lines[0]), field: value}, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    responses = write_jsonl(tmp_path / "r.jsonl", [{"instance_id": "G01:I0001", "condition": "A", "response": "x"}])
    judge = judge_args(responses, tmp_path / "out.jsonl", judge_server)
    judge[1] = str(copy)
    for command in (["score", str(copy), "--verdicts", str(write_jsonl(tmp_path / "v.jsonl", [GOOD_L1]))], judge):
        assert main(command) == 2  # validated first: refused naming GS2
        assert "fails validation" in capsys.readouterr().err and Judge.requests == []
        assert main([*command, "--unvalidated"]) == 2  # and, scored as it is, the scorer's own line
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert err.startswith(f"error: {path}:1 field '{field}': instance 'G01:I0001' has {field} {json.dumps(value)}")
        assert "run `realcompanion validate` first" in err and "\n" not in err
    assert Judge.requests == []


def test_a_verdict_on_a_rubric_the_release_sets_aside_in_part_names_the_releases_row(tmp_path, capsys):
    """A criterion that does not fit its schema is set aside on reading: a good verdict naming it was told as the
    verdicts file's fault ("names criteria not of this instance"); the line names the release's row and field."""
    import shutil

    copy = shutil.copytree(SPECIMEN, tmp_path / "copy")
    path = copy / "data" / "criteria.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    at = next(k for k, line in enumerate(lines) if json.loads(line)["criterion_id"] == "G01:I0006:C02")
    lines[at] = json.dumps({**json.loads(lines[at]), "weight": "3"}, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["score", str(copy), "--unvalidated", "--verdicts",
                 str(write_jsonl(tmp_path / "v.jsonl", [GOOD_L2]))]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"error: {path}:{at + 1} field 'weight': does not match its schema") and "\n" not in err
    assert "the verdicts on G01:I0006 cannot be checked" in err


@pytest.mark.parametrize("extra, says", [(["--track", "chat"], "--track: RealCompanion releases only"),
                                          (["--run", "r.jsonl"], "scored from --verdicts")])
def test_score_usage_on_a_groupassist_release(tmp_path, extra, says, capsys):
    path = write_jsonl(tmp_path / "v.jsonl", [GOOD_L1])
    assert main(["score", str(SPECIMEN), "--verdicts", str(path), *extra]) == 2
    assert says in capsys.readouterr().err


def test_realcompanion_commands_still_need_a_track(repo, tmp_path, capsys):
    path = write_jsonl(tmp_path / "v.jsonl", [GOOD_L1])
    assert main(["score", str(repo), "--verdicts", str(path)]) == 2
    assert main(["judge", str(repo), "--replies", str(path), "--endpoint", "http://127.0.0.1:9/v1", "--model", "m",
                 "--out", str(tmp_path / "o.jsonl")]) == 2
    assert capsys.readouterr().err.count("required: --track") == 2
