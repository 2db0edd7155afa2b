"""`respond` and `evaluate` against a local OpenAI-compatible server: contexts from the code of `contexts` and
`baselines`, nothing at or after the probe or cutoff, replies as `judge` reads them, every figure traceable."""
from __future__ import annotations

import hashlib
import json
import re

import pytest
from local_server import JSONHandler, serving
from tiny_groupassist import build

from realcompanion.cli import main
from realcompanion.formats.groupassist import GroupAssistRelease
from realcompanion.formats.groupassist.scoring import bm25_ranking, history, top_records
from realcompanion.formats.realcompanion.scoring.gold import load_track
from realcompanion.formats.realcompanion.scoring.respond import context_block
from realcompanion.release import Release
from realcompanion.scoring.respond import request_sha256


class System(JSONHandler):
    """A system that says it remembers, and a judge whose verdicts follow from the prompt it is shown."""

    def reply(self, body):
        text = body["messages"][0]["content"]
        if "<facts>" in text:
            atom = re.search(r"^(\S+:T\d+): ", text, re.M)
            content = json.dumps({"facts": [{"fact": "a fact", "atom": atom[1] if atom else None}]})
        elif "<criteria>" in text or "criteria" in text and "<reply>" in text:
            content = json.dumps({"criteria": {c: True for c in re.findall(r"^(\S+:C\d+) \[", text, re.M)}})
        elif "<reply>" in text:
            content = '{"content_match": 2, "used_memory": true}'
        elif "<answer>" in text:
            content = '{"answer_correct": true, "abstained": false}'
        else:
            content = "I remember."
        return 200, json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                                "usage": {"prompt_tokens": 3, "completion_tokens": 2}}).encode()


@pytest.fixture
def server():
    System.requests = []
    with serving(System) as url:
        yield url


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build(tmp_path_factory.mktemp("tiny") / "release")


def asked(out) -> list[dict]:
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def sent() -> dict:
    """request_sha256 -> the text of the message the server received."""
    return {request_sha256(body["messages"]): body["messages"][0]["content"] for _, body in System.requests}


def test_chat_contexts_are_those_of_the_contexts_command_and_precede_the_probe(repo, tmp_path, server):
    out = tmp_path / "r.jsonl"
    assert main(["respond", str(repo), "--track", "chat", "--limit", "6", "--endpoint", server, "--model", "m",
                 "--out", str(out), "--concurrency", "4"]) == 0
    track = load_track(Release(repo), "chat")
    rows, texts = asked(out), sent()
    assert len(rows) == 6 * 6 and {r["request_sha256"] for r in rows} == set(texts)
    for condition in ("C0", "C1", "C2", "C3", "C4", "C3m"):
        contexts = tmp_path / f"{condition}.jsonl"
        assert main(["contexts", str(repo), "--condition", condition, "--out", str(contexts)]) == 0
        records = {r["item_id"]: r for r in map(json.loads, contexts.read_text(encoding="utf-8").splitlines())}
        for row in rows:
            if row["condition"] != condition:
                continue
            record, item, text = records[row["item_id"]], track.by_id[row["item_id"]], texts[row["request_sha256"]]
            assert context_block(record) in text and item.query in text
            stream = track.streams[item.participant_id]
            assert all(stream.position[m["dayid"]] < item.pool_end for m in record["messages"])
    assert {r["system"]["prompt_sha256"] for r in rows} == {
        hashlib.sha256((repo / "prompts" / "respond-chat.v1.txt").read_bytes()).hexdigest()}


def test_questions_are_answered_under_every_condition_but_c2_and_judged(repo, tmp_path, server, capsys):
    out = tmp_path / "a.jsonl"
    base = ["respond", str(repo), "--track", "qa", "--endpoint", server, "--model", "m", "--out", str(out)]
    assert main([*base, "--condition", "C2"]) == 2
    assert capsys.readouterr().err.strip() == "error: --condition C2: not one of C0, C1, C3, C4, C3m"
    assert main([*base, "--condition", "C3", "--limit", "3"]) == 0
    assert all(row["answer"] == "I remember." for row in asked(out))
    verdicts = tmp_path / "v.jsonl"
    assert main(["judge", str(repo), "--track", "qa", "--replies", str(out), "--endpoint", server, "--model", "j",
                 "--out", str(verdicts)]) == 0


def test_groupassist_contexts_are_the_baselines_records_before_the_cutoff(tiny, tmp_path, server, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["respond", str(tiny), "--endpoint", server, "--model", "m", "--out", str(out)]) == 0
    release = GroupAssistRelease(tiny)
    messages, instances, k = release.frame("messages"), release.frame("instances"), release.params["retrieval_k"]
    rows, texts = asked(out), sent()
    assert sorted((r["instance_id"], r["condition"]) for r in rows) == sorted(
        (i, c) for i in instances["instance_id"] for c in ("full_context", "bm25"))
    for row in instances.itertuples():
        visible = history(messages, row.group_id, row.cutoff_turn)  # the definitions `baselines` is checked against
        expected = {"full_context": visible, "bm25": top_records(visible, bm25_ranking(visible, row.query_zh), k)}
        for reply in rows:
            if reply["instance_id"] == row.instance_id:
                text = texts[reply["request_sha256"]]
                shown = text.split("<history>\n")[1].split("\n</history>")[0]
                turns = [int(t) for t in re.findall(r"^#(\d+) \[", shown, re.M)]
                assert turns == expected[reply["condition"]]["turn"].tolist()
                assert max(turns) < row.cutoff_turn and row.requester in text
    assert main(["respond", str(tiny), "--condition", "dense", "--endpoint", server, "--model", "m", "--out",
                 str(tmp_path / "d.jsonl")]) == 2
    assert "--condition dense needs --dense-endpoint" in capsys.readouterr().err


def test_evaluate_that_ends_before_any_answer_writes_nothing(repo, tmp_path, server, capsys):
    """A run whose first stage is refused (RealCompanion without --track) left a folder holding only a manifest of
    nothing."""
    out = tmp_path / "eval"
    assert main(["evaluate", str(repo), "--endpoint", server, "--model", "m", "--judge-endpoint", server,
                 "--judge-model", "j", "--out", str(out)]) == 2
    assert "--track" in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("release", ["tiny", "repo"])
def test_evaluate_writes_each_stage_and_every_figure_traces_to_its_files(release, tiny, repo, tmp_path, server,
                                                                         capsys):
    path = tiny if release == "tiny" else repo
    out = tmp_path / "eval"
    args = ["evaluate", str(path), "--endpoint", server, "--model", "m", "--judge-endpoint", server, "--judge-model",
            "j", "--out", str(out), "--resamples", "20", "--json", "-", "--concurrency", "2"]
    if release == "repo":
        args += ["--track", "chat", "--condition", "C0", "--condition", "C1", "--limit", "4"]
    assert main(args) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)  # stdout holds the JSON report alone
    assert all(f"== {stage}" in captured.err for stage in ("respond", "judge", "score"))
    files = report["evaluation"]["files"]
    assert set(files) == {"replies.jsonl", "verdicts.jsonl", "score.json"}
    for name, entry in files.items():
        assert entry["sha256"] == hashlib.sha256((out / name).read_bytes()).hexdigest()
    assert report["score"]["parameters"]["inputs"]["verdicts"]["sha256"] == files["verdicts.jsonl"]["sha256"]
    assert json.loads((out / "evaluation.json").read_text()) == report["evaluation"]
    replies = {r["reply_sha256"] if "reply_sha256" in r else None
               for r in map(json.loads, (out / "verdicts.jsonl").read_text().splitlines())}
    texts = [r.get("reply", r.get("response")) for r in map(json.loads, (out / "replies.jsonl").read_text().splitlines())]
    assert replies == {hashlib.sha256(t.encode()).hexdigest() for t in texts}
    assert report["score"]["judged"]["conditions"]
