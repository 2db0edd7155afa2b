"""`realcompanion judge` against a local OpenAI-compatible server (127.0.0.1 only), then `score`."""
from __future__ import annotations

import hashlib
import json

import pytest
from local_server import JSONHandler, serving

from realcompanion.cli import main
from realcompanion.formats.realcompanion.scoring.gold import load_track
from realcompanion.release import Release
from realcompanion.scoring.judge_client import PROMPTS_DIR


class Endpoint(JSONHandler):
    """Answers /v1/chat/completions like a chat-completions API; the verdict depends on the prompt. From the
    request after `refuse_after` on, it refuses (HTTP 400), as an endpoint that went away mid-run."""

    status, refuse_after = 200, None

    def reply(self, body):
        if self.refuse_after is not None and len(self.requests) > self.refuse_after:
            return 400, json.dumps({"error": {"message": "gone", "type": "invalid_request_error"}}).encode()
        prompt = body["messages"][0]["content"]
        if "UNREADABLE" in prompt:
            content = "I would rather not say."
        elif "<prediction>" in prompt:
            content = '{"match": true}'
        elif "<reply>" in prompt:
            reply = prompt.split("<reply>")[1]
            match = 2 if "remember" in reply else 0
            table_7 = ', "attributed": true, "locus": "earlier_exchange", "consistent": true' if match else ""
            if "ELSEWHERE" in reply:
                table_7 = ', "locus": "elsewhere"'
            content = f'Verdict: {{"content_match": {match}, "used_memory": {str(match == 2).lower()}{table_7}}}'
        else:
            content = '{"answer_correct": true, "abstained": false}'
        payload = {"error": {"message": "bad model", "type": "invalid_request_error"}} if self.status != 200 else {
            "id": "cmpl-1", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
        return self.status, json.dumps(payload).encode()


@pytest.fixture
def endpoint():
    Endpoint.requests, Endpoint.status, Endpoint.refuse_after = [], 200, None
    with serving(Endpoint) as url:
        yield url


def replies(track, tmp_path, special=None):
    rows = [{"item_id": i.item_id, "condition": "C1", "reply": "I remember that." if k % 2 else "Okay."}
            for k, i in enumerate(i for i in track.items if i.posed)][:12]
    if special:
        rows[0]["reply"] = special
    path = tmp_path / "replies.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path, rows


def test_judge_writes_stamped_verdicts_that_score(repo, tmp_path, endpoint, capsys):
    track = load_track(Release(repo), "chat")
    path, rows = replies(track, tmp_path)
    out = tmp_path / "verdicts.jsonl"
    args = ["judge", str(repo), "--track", "chat", "--replies", str(path), "--endpoint", endpoint,
            "--model", "local-judge", "--out", str(out), "--api-key-env", "REALCOMPANION_TEST_UNSET_KEY"]
    assert main(args) == 0
    verdicts = [json.loads(line) for line in out.read_text().splitlines()]
    sha = hashlib.sha256((PROMPTS_DIR / "judge-chat.v2.txt").read_bytes()).hexdigest()
    assert len(verdicts) == len(rows)
    assert all(v["judge"] == {"model": "local-judge", "prompt_sha256": sha, "temperature": 0} for v in verdicts)
    assert [v["content_match"] for v in verdicts] == [2 if "remember" in r["reply"] else 0 for r in rows]
    # Table 7's fields are kept when the answer gives them, and absent when it does not
    assert [v.get("locus") for v in verdicts] == ["earlier_exchange" if "remember" in r["reply"] else None
                                                  for r in rows]
    assert all(path_ == "/v1/chat/completions" and body["temperature"] == 0 and body["model"] == "local-judge"
               for path_, body in Endpoint.requests)
    first_prompt = Endpoint.requests[0][1]["messages"][0]["content"]
    assert track.by_id[rows[0]["item_id"]].query in first_prompt
    report = tmp_path / "score.json"
    assert main(["score", str(repo), "--track", "chat", "--verdicts", str(out), "--resamples", "20",
                 "--json", str(report)]) == 0
    assert json.loads(report.read_text())["judged"]["judge"]["prompt_sha256"] == sha


@pytest.mark.parametrize(("special", "reason"), [("UNREADABLE", "no JSON object"), ("ELSEWHERE", "field 'locus'")])
def test_an_answer_that_cannot_be_read_is_counted_never_guessed(repo, tmp_path, endpoint, capsys, special, reason):
    """No JSON at all, or a Table 7 locus outside the vocabulary: that reply stays unjudged."""
    track = load_track(Release(repo), "chat")
    path, rows = replies(track, tmp_path, special=special)
    out = tmp_path / "verdicts.jsonl"
    assert main(["judge", str(repo), "--track", "chat", "--replies", str(path), "--endpoint", endpoint,
                 "--model", "m", "--out", str(out)]) == 1
    assert len(out.read_text().splitlines()) == len(rows) - 1
    captured = capsys.readouterr()
    assert f"unjudged: {rows[0]['item_id']}" in captured.err and reason in captured.err
    assert "1 replies unjudged" in captured.out


class Malformed(JSONHandler):
    """A server whose 200 answer is not a chat completion: `body` as it is."""

    body = b""

    def reply(self, body):
        return 200, self.body


VERDICT = '{"answer_correct": false, "abstained": false}'


def completion(message) -> bytes:
    return json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                       "choices": [{"index": 0, "finish_reason": "stop", "message": message}]}).encode()


@pytest.mark.parametrize(("body", "reason"), [
    (b"hello", "the endpoint's answer is not JSON (Expecting value): 'hello'"),
    (b"[1, 2]", "the endpoint returned no choices"),
    (b'{"choices": "abc"}', "the endpoint returned no choices"),
    (completion(None), "no JSON object in the answer: ''"),
    (completion({"role": "assistant", "content": 5}), "the answer's content is not text: 5"),
    (b'{"choices": [], "choices": []}', "the endpoint's answer is not JSON (duplicate key 'choices' in one object)"),
    (completion({"role": "assistant", "content": VERDICT.replace("false", "true, \"answer_correct\": false", 1)}),
     "unreadable JSON in the answer (duplicate key 'answer_correct' in one object)"),
    (completion({"role": "assistant", "content": VERDICT[:-1] + ', "x": ' + "1" * 5000 + "}"}),
     "unreadable JSON in the answer (Exceeds the limit (4300 digits) for integer string conversion"),
    (completion({"role": "assistant", "content": VERDICT[:-1] + ', "x": ' + "[" * 100000 + "]" * 100000 + "}"}),
     "unreadable JSON in the answer (nested too deeply to read)"),
], ids=["not-json", "array", "choices-text", "message-null", "content-number", "body-key-twice", "verdict-key-twice",
        "verdict-integer-too-long", "verdict-too-deep"])
def test_a_body_that_is_not_a_chat_completion_leaves_each_reply_unjudged(repo, tmp_path, capsys, body, reason):
    """The client builds its objects without checking them: each of these was an AttributeError traceback. An
    answer is read as strictly as a file: a key twice was read as its last value (a verdict guessed), an integer
    too long for Python or nesting too deep ended the whole run."""
    Malformed.body = body
    track = load_track(Release(repo), "qa")
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps({"item_id": track.items[0].item_id, "condition": "full", "answer": "x"}) + "\n")
    with serving(Malformed) as url:
        code = main(["judge", str(repo), "--track", "qa", "--replies", str(path), "--endpoint", url, "--model", "m",
                     "--out", str(tmp_path / "v.jsonl")])
    assert code == 1
    err = capsys.readouterr().err
    assert err.startswith(f"unjudged: {track.items[0].item_id} full: {reason}") and err.count("\n") == 1, err


def test_qa_answers_are_judged(repo, tmp_path, endpoint):
    track = load_track(Release(repo), "qa")
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps({"item_id": track.items[0].item_id, "condition": "full", "answer": "baking"}) + "\n")
    out = tmp_path / "verdicts.jsonl"
    assert main(["judge", str(repo), "--track", "qa", "--replies", str(path), "--endpoint", endpoint,
                 "--model", "m", "--out", str(out)]) == 0
    verdict = json.loads(out.read_text())
    assert verdict["answer_correct"] is True and verdict["abstained"] is False
    assert track.items[0].reference in Endpoint.requests[0][1]["messages"][0]["content"]


def test_endpoint_refusal_is_a_one_line_error(repo, tmp_path, endpoint, capsys):
    Endpoint.status = 400
    track = load_track(Release(repo), "chat")
    path, _ = replies(track, tmp_path)
    assert main(["judge", str(repo), "--track", "chat", "--replies", str(path), "--endpoint", endpoint,
                 "--model", "m", "--out", str(tmp_path / "v.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert "HTTP 400" in err and "\n" not in err


def judging(repo, path, out, endpoint, *more):
    return main(["judge", str(repo), "--track", "chat", "--replies", str(path), "--endpoint", endpoint, "--model",
                 "m", "--out", str(out), *more])


def test_a_run_the_endpoint_stops_keeps_its_verdicts_and_resume_asks_only_for_the_rest(repo, tmp_path, endpoint,
                                                                                        capsys):
    """Verdicts were written once every reply was judged: an endpoint that went away at the 12th of 1,000
    replies lost the 11 verdicts given, and a rerun asked for all of them again."""
    track = load_track(Release(repo), "chat")
    path, rows = replies(track, tmp_path)
    out = tmp_path / "v.jsonl"
    Endpoint.refuse_after = 5
    assert judging(repo, path, out, endpoint) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {out}: holds 5 verdicts, the rest unasked (--resume asks only for them): "
                          f"{endpoint}: the endpoint answered HTTP 400") and err.count("\n") == 1
    given = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(v["item_id"], v["reply_sha256"]) for v in given] == [
        (r["item_id"], hashlib.sha256(r["reply"].encode()).hexdigest()) for r in rows[:5]]

    Endpoint.requests, Endpoint.refuse_after = [], None
    assert judging(repo, path, out, endpoint, "--resume") == 0
    assert len(Endpoint.requests) == len(rows) - 5
    assert "12 verdicts (5 kept, 0 dropped, 7 judged now)" in capsys.readouterr().out
    resumed = sorted(out.read_text().splitlines())
    assert judging(repo, path, tmp_path / "whole.jsonl", endpoint) == 0  # one uninterrupted run writes the same
    assert resumed == sorted((tmp_path / "whole.jsonl").read_text().splitlines())


def test_resume_judges_again_only_the_replies_that_changed(repo, tmp_path, endpoint, capsys):
    track = load_track(Release(repo), "chat")
    path, rows = replies(track, tmp_path)
    out = tmp_path / "v.jsonl"
    assert judging(repo, path, out, endpoint) == 0
    rows[3]["reply"] = "Now I remember." if rows[3]["reply"] == "Okay." else "Okay."
    path.write_text("".join(json.dumps(r) + "\n" for r in rows[1:]), encoding="utf-8")  # the first one left out
    Endpoint.requests = []
    assert judging(repo, path, out, endpoint, "--resume") == 0
    assert [body["messages"][0]["content"].count(rows[3]["reply"]) for _, body in Endpoint.requests] == [1]
    assert "11 verdicts (10 kept, 2 dropped, 1 judged now)" in capsys.readouterr().out
    verdicts = {v["item_id"]: v for v in map(json.loads, out.read_text().splitlines())}
    assert rows[0]["item_id"] not in verdicts
    assert verdicts[rows[3]["item_id"]]["content_match"] == (2 if "remember" in rows[3]["reply"] else 0)


@pytest.mark.parametrize("change, says", [
    (["--model", "another"], '"model": "m"'),
    (["--prompt", "OTHER"], '"prompt_sha256": "'),
])
def test_resume_refuses_a_file_another_judge_wrote_and_leaves_it(repo, tmp_path, endpoint, capsys, change, says):
    track = load_track(Release(repo), "chat")
    path, _ = replies(track, tmp_path)
    out = tmp_path / "v.jsonl"
    assert judging(repo, path, out, endpoint) == 0
    before = out.read_bytes()
    if "OTHER" in change:
        change = ["--prompt", str(tmp_path / "p.txt")]
        (tmp_path / "p.txt").write_text("Judge $reply to $probe against $reference.\n", encoding="utf-8")
    capsys.readouterr()
    args = ["judge", str(repo), "--track", "chat", "--replies", str(path), "--endpoint", endpoint, "--model", "m",
            "--out", str(out), "--resume", *change]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {out}:1 field 'judge': holds verdicts by {{") and says in err
    assert err.count("\n") == 1 and out.read_bytes() == before


def test_resume_reads_the_file_as_scoring_does(repo, tmp_path, endpoint, capsys):
    track = load_track(Release(repo), "chat")
    path, _ = replies(track, tmp_path)
    out = tmp_path / "v.jsonl"
    out.write_text('{"item_id": "nothing"}\n', encoding="utf-8")
    assert judging(repo, path, out, endpoint, "--resume") == 2
    assert capsys.readouterr().err.startswith(f"error: {out}:1 field 'item_id': ")
    assert out.read_text() == '{"item_id": "nothing"}\n' and Endpoint.requests == []
    out.write_text("", encoding="utf-8")  # a run stopped before its first verdict: nothing to keep
    assert judging(repo, path, out, endpoint, "--resume") == 0 and len(out.read_text().splitlines()) == 12


def test_replies_for_withdrawn_rows_are_rejected(repo, tmp_path, capsys):
    track = load_track(Release(repo), "chat")
    withdrawn = next(i for i in track.items if i.status.startswith("withdrawn"))
    path = tmp_path / "replies.jsonl"
    path.write_text(json.dumps({"item_id": withdrawn.item_id, "condition": "C1", "reply": "x"}) + "\n")
    assert main(["judge", str(repo), "--track", "chat", "--replies", str(path), "--endpoint", "http://127.0.0.1:9/v1",
                 "--model", "m", "--out", str(tmp_path / "v.jsonl")]) == 2
    assert "is not put to a system (withdrawn:" in capsys.readouterr().err


def test_reconstruction_with_a_judge_matches_paraphrases(repo, tmp_path, endpoint):
    rows = [json.loads(line) for line in (repo / "data" / "persona.jsonl").read_text().splitlines()]
    for row in rows:
        if row["value"] is not None:
            row["value"] = f"In other words: {row['value']}"
    (tmp_path / "persona.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "r.json"
    base = ["score-reconstruction", str(repo), "--pred", str(tmp_path), "--json", str(out)]
    assert main(base) == 0
    assert json.loads(out.read_text())["runs"][0]["layers"]["persona"]["pooled"]["f1"] == 0.0
    assert main([*base, "--match", "judge", "--endpoint", endpoint, "--model", "matcher"]) == 0
    report = json.loads(out.read_text())
    assert report["runs"][0]["layers"]["persona"]["pooled"]["f1"] == 1.0
    assert report["parameters"]["judge"]["model"] == "matcher"
    assert report["parameters"]["judge"]["prompt_sha256"] == hashlib.sha256(
        (PROMPTS_DIR / "match.v1.txt").read_bytes()).hexdigest()


@pytest.mark.parametrize(("text", "says"), [
    ("$probe $reference $reply; it costs $5", "Invalid placeholder in string: line 1, col 36; write $$ for a dollar sign"),
    ("$probe $refrence $reference $reply", "$refrence is not a placeholder this prompt is filled with ($probe, "
                                           "$reference, $reply)"),
    ("$probe $reply", "never shows $reference: the model would answer without it"),
])
def test_a_prompt_that_cannot_be_filled_is_one_line(repo, tmp_path, endpoint, capsys, text, says):
    """Found before a verdict is asked for, and before --out is written: an earlier run's verdicts stay whole."""
    track = load_track(Release(repo), "chat")
    path, _ = replies(track, tmp_path)
    prompt, out = tmp_path / "prompt.txt", tmp_path / "v.jsonl"
    prompt.write_text(text + "\n")
    out.write_text('{"earlier": "verdicts"}\n')
    assert main(["judge", str(repo), "--track", "chat", "--replies", str(path), "--endpoint", endpoint,
                 "--model", "m", "--out", str(out), "--prompt", str(prompt)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {prompt}: {says}" and not Endpoint.requests
    assert out.read_text() == '{"earlier": "verdicts"}\n'


@pytest.mark.parametrize(("make", "says"), [
    (lambda prompt: prompt.write_bytes(b"$probe $reference $reply \xe9\n"), ":1 field 'encoding': not UTF-8"),
    (lambda prompt: prompt.mkdir(), ": is a directory, not a regular file"),
], ids=["latin-1", "folder"])
def test_a_prompt_that_cannot_be_read_is_one_line(repo, tmp_path, endpoint, capsys, make, says):
    """A prompt is read as every file the package reads: Latin-1 bytes were a UnicodeDecodeError traceback, and a
    folder was "no such prompt file"."""
    track = load_track(Release(repo), "chat")
    path, _ = replies(track, tmp_path)
    make(tmp_path / "prompt.txt")
    assert main(["judge", str(repo), "--track", "chat", "--replies", str(path), "--endpoint", endpoint,
                 "--model", "m", "--out", str(tmp_path / "v.jsonl"), "--prompt", str(tmp_path / "prompt.txt")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {tmp_path / 'prompt.txt'}{says}") and "\n" not in err and not Endpoint.requests
