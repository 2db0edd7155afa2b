"""`realcompanion score`: runs, verdicts, their faults, and the numbers they give."""
from __future__ import annotations

import hashlib
import json

import pytest

from realcompanion.cli import main
from realcompanion.formats.realcompanion.scoring.gold import load_track
from realcompanion.release import Release

JUDGE = {"model": "judge-a", "prompt_sha256": "0" * 64, "temperature": 0}


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def oracle_rows(track, items):
    stream = track.streams
    return [{"item_id": i.item_id, "ranking": [stream[i.participant_id].dayids[p] for p in i.gold]} for i in items]


@pytest.fixture(scope="module")
def chat(repo):
    return load_track(Release(repo), "chat")


def score(repo, tmp_path, *args):
    out = tmp_path / "report.json"
    code = main(["score", str(repo), *args, "--resamples", "50", "--json", str(out)])
    return code, json.loads(out.read_text()) if code == 0 else None


def test_oracle_run_scores_one(repo, tmp_path, chat):
    run = write_jsonl(tmp_path / "run.jsonl", oracle_rows(chat, chat.retrievable()))
    code, report = score(repo, tmp_path, "--track", "chat", "--run", str(run))
    assert code == 0
    for population in report["retrieval"]["summary"].values():
        assert population["hit@5"]["pooled"] == 1.0 and population["mrr"]["macro"] == 1.0
    assert report["retrieval"]["missing_items"] == []
    assert report["parameters"]["inputs"]["run"]["sha256"]


def test_missing_item_counts_as_a_miss_and_is_reported(repo, tmp_path, chat, capsys):
    items = chat.retrievable()
    run = write_jsonl(tmp_path / "run.jsonl", oracle_rows(chat, items[1:]))
    code, report = score(repo, tmp_path, "--track", "chat", "--run", str(run))
    assert code == 0
    assert report["retrieval"]["missing_items"] == [items[0].item_id]
    assert report["retrieval"]["summary"]["all"]["hit@5"]["pooled"] == pytest.approx((len(items) - 1) / len(items))
    assert f"1 of {len(items)} retrieval-scoreable items missing" in capsys.readouterr().out


@pytest.mark.parametrize("row, message", [
    ({"item_id": "U01:C9999", "ranking": []}, "unknown item_id 'U01:C9999'"),
    ({"item_id": "U01:Q0001", "ranking": []}, "unknown item_id 'U01:Q0001'"),
    ({"ranking": []}, "field 'item_id': missing field"),
])
def test_bad_run_rows_are_one_line_errors(repo, tmp_path, capsys, row, message):
    run = write_jsonl(tmp_path / "run.jsonl", [row])
    assert main(["score", str(repo), "--track", "chat", "--run", str(run)]) == 2
    err = capsys.readouterr().err
    assert message in err and f"{run}:1" in err and err.count("\n") == 1


def test_ranking_a_message_after_the_probe_is_an_error(repo, tmp_path, chat, capsys):
    item = chat.retrievable()[0]
    later = chat.streams[item.participant_id].dayids[item.pool_end]
    run = write_jsonl(tmp_path / "run.jsonl", [{"item_id": item.item_id, "ranking": [later]}])
    assert main(["score", str(repo), "--track", "chat", "--run", str(run)]) == 2
    assert "not a message of" in capsys.readouterr().err


def chat_verdicts(track, conditions, value):
    return [{"item_id": i.item_id, "condition": c, "content_match": value(i, c), "used_memory": c != "C0",
             "judge": JUDGE} for c in conditions for i in track.items if i.posed]


def test_judged_quantities_from_verdicts(repo, tmp_path, chat):
    participants = sorted({i.participant_id for i in chat.scored()})
    first = participants[0]
    value = {"C0": lambda i, c: 2 if i.participant_id == first else 0, "C1": lambda i, c: 1}
    verdicts = write_jsonl(tmp_path / "v.jsonl", chat_verdicts(chat, value, lambda i, c: value[c](i, c)))
    code, report = score(repo, tmp_path, "--track", "chat", "--verdicts", str(verdicts))
    assert code == 0
    judged = report["judged"]
    assert judged["judge"] == JUDGE
    scored = chat.scored()
    share = sum(i.participant_id == first for i in scored) / len(scored)
    c0 = judged["conditions"]["C0"]
    assert c0["content_match"]["pooled"] == pytest.approx(2 * share)
    assert c0["content_match"]["macro"] == pytest.approx(2 / len(participants))
    assert c0["content_match"]["n"] == len(scored) and c0["content_match"]["missing"] == 0
    assert c0["restraint"]["pooled"] == 1.0 and c0["misfire_rate"]["pooled"] == 0.0
    assert judged["conditions"]["C1"]["appropriate_application"]["pooled"] == 1.0
    assert judged["conditions"]["C1"]["cold_open_restraint"]["pooled"] == 0.0
    assert judged["conditions"]["C0"]["used_memory_auroc"]["auroc"] == 0.5
    contrast = judged["contrasts"]["C1 - C0"]["scored"]
    assert contrast["pooled"] == pytest.approx(1 - 2 * share)
    assert contrast["ci"]["pooled"]["low"] <= contrast["pooled"] <= contrast["ci"]["pooled"]["high"]


def test_items_without_a_verdict_are_missing_not_scored(repo, tmp_path, chat):
    rows = chat_verdicts(chat, ["C2"], lambda i, c: 2)[:10]
    verdicts = write_jsonl(tmp_path / "v.jsonl", rows)
    code, report = score(repo, tmp_path, "--track", "chat", "--verdicts", str(verdicts))
    block = report["judged"]["conditions"]["C2"]["content_match"]
    judged_scored = sum(chat.by_id[r["item_id"]].scored for r in rows)
    assert code == 0 and block["n"] == judged_scored and block["missing"] == len(chat.scored()) - judged_scored


def test_verdicts_mixing_judges_are_rejected(repo, tmp_path, chat, capsys):
    rows = chat_verdicts(chat, ["C1"], lambda i, c: 1)[:3]
    rows[2]["judge"] = {**JUDGE, "model": "judge-b"}
    verdicts = write_jsonl(tmp_path / "v.jsonl", rows)
    assert main(["score", str(repo), "--track", "chat", "--verdicts", str(verdicts)]) == 2
    err = capsys.readouterr().err
    assert "mixes judges" in err and f"{verdicts}:3" in err and err.count("\n") == 1


@pytest.mark.parametrize("change, message", [
    ({"content_match": 3}, "field 'content_match'"),
    ({"used_memory": "yes"}, "field 'used_memory': expected bool"),
    ({"item_id": "U09:C0001"}, "unknown item_id"),
])
def test_bad_verdicts_are_one_line_errors(repo, tmp_path, chat, capsys, change, message):
    rows = chat_verdicts(chat, ["C1"], lambda i, c: 1)[:2]
    rows[1].update(change)
    verdicts = write_jsonl(tmp_path / "v.jsonl", rows)
    assert main(["score", str(repo), "--track", "chat", "--verdicts", str(verdicts)]) == 2
    assert message in capsys.readouterr().err


def test_qa_verdicts_accuracy_and_abstention_auroc(repo, tmp_path):
    qa = load_track(Release(repo), "qa")
    rows = [{"item_id": i.item_id, "condition": "full", "answer_correct": bool(i.answerable),
             "abstained": not i.answerable, "judge": JUDGE} for i in qa.items]
    verdicts = write_jsonl(tmp_path / "v.jsonl", rows)
    code, report = score(repo, tmp_path, "--track", "qa", "--verdicts", str(verdicts))
    block = report["judged"]["conditions"]["full"]
    answerable = sum(bool(i.answerable) for i in qa.scored()) / len(qa.scored())  # rows kept out are not scored
    assert code == 0 and block["answer_accuracy"]["pooled"] == pytest.approx(answerable)
    assert block["abstention_auroc"]["auroc"] == 1.0 and block["abstention_unanswerable"]["pooled"] == 1.0


def test_verdicts_breaking_the_judge_prompts_rule_are_named_and_scored_as_given(repo, tmp_path, capsys):
    """The judge prompt counts an answer to an unanswerable question correct exactly when it abstains, and an
    abstention on an answerable one incorrect. A verdict breaking that rule (an inconsistent judge) was scored with
    no word of it: it is still scored as given, and named in a warning and in the JSON report."""
    qa = load_track(Release(repo), "qa")
    answerable = [i for i in qa.items if i.scored and i.answerable][:8]
    unanswerable = [i for i in qa.items if i.scored and not i.answerable][:2]
    broken = {answerable[0].item_id: (True, True), unanswerable[0].item_id: (True, False),
              unanswerable[1].item_id: (False, False)}  # answered, wrongly: as the rule says
    rows = [{"item_id": i.item_id, "condition": "full", "answer_correct": correct, "abstained": abstained,
             "judge": JUDGE} for i in [*answerable, *unanswerable]
            for correct, abstained in [broken.get(i.item_id, (bool(i.answerable), not i.answerable))]]
    verdicts = write_jsonl(tmp_path / "v.jsonl", rows)
    code, report = score(repo, tmp_path, "--track", "qa", "--verdicts", str(verdicts))
    assert code == 0 and report["judged"]["verdicts_against_the_judge_protocol"] == [
        {"condition": "full", "item_id": answerable[0].item_id}, {"condition": "full", "item_id": unanswerable[0].item_id}]
    assert report["judged"]["conditions"]["full"]["answer_accuracy"]["pooled"] == pytest.approx(9 / 10)
    assert main(["score", str(repo), "--track", "qa", "--verdicts", str(verdicts)]) == 0
    assert "warning: 2 verdicts break the judge prompt's rule" in capsys.readouterr().out


def test_a_verdict_against_the_protocol_is_named_on_its_own_line(repo, tmp_path, capsys):
    """A verdicts file names its conditions: one holding a line break split the warning naming the verdict in two,
    the second line the file's own (the report's tables escape a condition's name, the warning did not)."""
    qa = load_track(Release(repo), "qa")
    item = next(i for i in qa.items if i.scored and i.answerable)
    verdicts = write_jsonl(tmp_path / "v.jsonl", [{"item_id": item.item_id, "condition": "full\nok   SCH1",
                                                   "answer_correct": True, "abstained": True, "judge": JUDGE}])
    assert main(["score", str(repo), "--track", "qa", "--verdicts", str(verdicts), "--resamples", "50"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if "SCH1" in line][0].endswith(f"scored as given: full\\nok   SCH1 {item.item_id}")


def test_nothing_to_score_is_a_usage_error(repo, capsys):
    assert main(["score", str(repo), "--track", "qa"]) == 2
    assert "give --run, --verdicts, --detector or several" in capsys.readouterr().err


def test_same_inputs_same_report(repo, tmp_path, chat):
    rows = chat_verdicts(chat, ["C0", "C2"], lambda i, c: (len(i.item_id) + len(c)) % 3)
    verdicts = write_jsonl(tmp_path / "v.jsonl", rows)
    run = write_jsonl(tmp_path / "run.jsonl", oracle_rows(chat, chat.retrievable()[::2]))
    args = ["--track", "chat", "--run", str(run), "--verdicts", str(verdicts), "--seed", "3"]
    assert score(repo, tmp_path, *args) == score(repo, tmp_path, *args)


def test_run_scores_give_detectability(repo, tmp_path, chat):
    rows = []
    for item in chat.detectability_items():
        dayids = chat.streams[item.participant_id].dayids[: item.pool_end][-2:]
        rows.append({"item_id": item.item_id, "ranking": dayids,
                     "scores": ([2.0, 1.0] if item.dependent else [0.5, 0.1])[: len(dayids)]})
    run = write_jsonl(tmp_path / "run.jsonl", rows)
    code, report = score(repo, tmp_path, "--track", "chat", "--run", str(run))
    block = report["retrieval"]["detectability_top1"]
    assert code == 0 and block["auroc"] == 1.0 and block["missing"] == 0
    assert block["positives"] == sum(i.dependent for i in chat.detectability_items()) > 0


def test_a_report_names_the_bytes_it_scored(repo, specimen, tmp_path, capsys):
    """A data file changed after the release was stamped is scored as it is, and the report says so: it gave the
    declared sha256, so a score computed on other bytes named the stamped release."""
    chat = specimen / "data" / "chat.jsonl"
    chat.write_text(chat.read_text(encoding="utf-8").replace("Honestly", "Frankly", 1), encoding="utf-8")
    out = tmp_path / "w.json"
    assert main(["windows", str(specimen), "--json", str(out)]) == 2  # INT1: refused, naming the changed file's rule
    assert "INT1" in capsys.readouterr().err
    assert main(["windows", str(specimen), "--unvalidated", "--json", str(out)]) == 0
    release = json.loads(out.read_text(encoding="utf-8"))["release"]
    assert release["sha256"]["data/chat.jsonl"] == hashlib.sha256(chat.read_bytes()).hexdigest()
    assert release["changed_since_stamped"] == ["data/chat.jsonl"]
    assert capsys.readouterr().out.startswith("warning: the sha256 of data/chat.jsonl differs from the one "
                                              "datapackage.json declares")
