"""`respond` and `judge` against a local OpenAI-compatible server (127.0.0.1 only) that answers slowly, fails,
rate-limits and dies mid-run; `--resume` after a crash that tore the last line. Every run is a few requests."""
from __future__ import annotations

import json
import re
import threading
import time

import pytest
from local_server import JSONHandler, serving

from realcompanion.cli import main

ITEMS = 8  # items asked per run: --limit ITEMS under one condition


class Companion(JSONHandler):
    """A chat-completions server. `delay`: seconds before each answer; `mode`: "ok", "flaky" (each request's first
    attempt is a 503), "limited" (each first attempt is a 429 asking to wait `RETRY_AFTER` s), "broken" (every
    answer a 500), "dies" (after `dies_after` requests, connections close unanswered), "refuse_first" (HTTP 400 for
    the first request)."""

    RETRY_AFTER = 0.3
    delay, mode, dies_after, seen, in_flight, most, times, keys = 0.0, "ok", 0, set(), 0, 0, [], []
    lock = threading.Lock()

    def reply(self, body):
        text = body["messages"][0]["content"]
        with self.lock:
            self.keys.append(self.headers.get_all("Authorization"))
            type(self).in_flight += 1
            type(self).most = max(self.most, self.in_flight)
            first = text not in self.seen
            self.seen.add(text)
            self.times.append((text, time.monotonic()))
        try:
            time.sleep(self.delay)
            if self.mode == "dies" and len(self.requests) > self.dies_after:
                return None
            if self.mode == "broken" or self.mode == "flaky" and first:
                return 503 if first else 500, b'{"error": {"message": "overloaded"}}'
            if self.mode == "limited" and first:
                return 429, b'{"error": {"message": "slow down"}}', {"Retry-After": str(self.RETRY_AFTER)}
            if self.mode == "refuse_first" and len(self.requests) == 1:
                return 400, b'{"error": {"message": "prompt too long"}}'
            content = '{"content_match": 1, "used_memory": false}' if "<reply>" in text else "Sounds good."
            return 200, json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                                    "usage": {"prompt_tokens": len(text), "completion_tokens": 2}}).encode()
        finally:
            with self.lock:
                type(self).in_flight -= 1


@pytest.fixture
def server():
    Companion.requests, Companion.seen, Companion.times, Companion.keys = [], set(), [], []
    Companion.delay, Companion.mode, Companion.in_flight, Companion.most = 0.0, "ok", 0, 0
    with serving(Companion) as url:
        yield url


def respond(repo, url, out, *more):
    return main(["respond", str(repo), "--track", "chat", "--condition", "C1", "--limit", str(ITEMS), "--endpoint",
                 url, "--model", "m", "--out", str(out), "--retries", "1", "--timeout", "5", *more])


def rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def same(path):
    """What does not depend on timing: item, condition, reply, system and request."""
    return sorted((r["item_id"], r["condition"], r["reply"], json.dumps(r["system"]), r["request_sha256"])
                  for r in rows(path))


def test_requests_run_concurrently_and_each_reply_is_stamped(repo, tmp_path, server):
    Companion.delay = 0.2
    out = tmp_path / "r.jsonl"
    assert respond(repo, server, out, "--concurrency", "4") == 0
    assert Companion.most == 4  # four under way at once, never more
    written = rows(out)
    assert len(written) == ITEMS and all(r["reply"] == "Sounds good." for r in written)
    assert all(set(r["usage"]) == {"tokens_in", "tokens_out", "latency_s"} and r["usage"]["tokens_out"] == 2
               and r["usage"]["latency_s"] >= 0.2 and r["system"]["model"] == "m" and r["system"]["temperature"] == 0
               for r in written)
    Companion.most = 0
    assert respond(repo, server, tmp_path / "one.jsonl") == 0
    assert Companion.most == 1  # the default: one at a time
    assert same(out) == same(tmp_path / "one.jsonl")


def test_each_request_sends_the_systems_key_alone_and_the_body_the_api_defines(repo, tmp_path, server, monkeypatch):
    """The requests go through the client's request of a path (not `chat.completions.create`): the key named by
    --api-key-env is the one bearer sent, never an admin key the client could read from the environment, and the
    body holds the model, the messages and the temperature."""
    monkeypatch.setenv("REALCOMPANION_TEST_KEY", "sk-system")
    monkeypatch.setenv("OPENAI_ADMIN_KEY", "sk-admin")
    assert respond(repo, server, tmp_path / "r.jsonl", "--api-key-env", "REALCOMPANION_TEST_KEY") == 0
    assert Companion.keys == [["Bearer sk-system"]] * ITEMS
    assert all(path == "/v1/chat/completions" and set(body) == {"model", "messages", "temperature"}
               and body["model"] == "m" and body["temperature"] == 0 and body["messages"][0]["role"] == "user"
               for path, body in Companion.requests)


def test_a_429_is_retried_after_the_wait_it_asks(repo, tmp_path, server):
    Companion.mode = "limited"
    assert respond(repo, server, tmp_path / "r.jsonl", "--concurrency", "2") == 0
    attempts = {}
    for text, at in Companion.times:
        attempts.setdefault(text, []).append(at)
    assert len(attempts) == ITEMS and all(len(a) == 2 for a in attempts.values())
    assert all(a[1] - a[0] >= Companion.RETRY_AFTER * 0.9 for a in attempts.values())  # Retry-After honoured


def test_a_5xx_is_retried_within_the_bound_then_ends_the_run_in_one_line(repo, tmp_path, server, capsys):
    Companion.mode = "flaky"
    assert respond(repo, server, tmp_path / "r.jsonl") == 0
    assert len(Companion.requests) == 2 * ITEMS
    Companion.mode, Companion.requests = "broken", []
    out = tmp_path / "broken.jsonl"
    assert respond(repo, server, out) == 2
    err = capsys.readouterr().err.strip()
    assert "the endpoint answered HTTP 500" in err and "overloaded" in err and "\n" not in err
    assert len(Companion.requests) == 2  # one request, retried once: then the run ends


def test_a_request_that_outlasts_its_timeout_ends_the_run_in_one_line(repo, tmp_path, server, capsys):
    Companion.delay = 1.0
    assert respond(repo, server, tmp_path / "r.jsonl", "--timeout", "0.2", "--retries", "0") == 2
    err = capsys.readouterr().err.strip()
    # the client's bound on each read and the bound on the whole request are the same 0.2 s: either ends it
    assert re.search(r"cannot reach the endpoint \(APITimeoutError|no whole answer within 0.2 s", err), err
    assert "\n" not in err


def test_a_request_the_endpoint_refuses_is_named_and_the_rest_answered(repo, tmp_path, server, capsys):
    Companion.mode = "refuse_first"
    out = tmp_path / "r.jsonl"
    assert respond(repo, server, out) == 1
    err = capsys.readouterr().err
    assert err.count("unanswered: ") == 1 and "HTTP 400" in err and "prompt too long" in err
    assert len(rows(out)) == ITEMS - 1 and len(Companion.requests) == ITEMS  # a 400 is not retried


def test_a_server_that_dies_mid_run_then_resume_asks_only_for_the_rest(repo, tmp_path, server, capsys):
    out = tmp_path / "r.jsonl"
    Companion.mode, Companion.dies_after = "dies", 5
    assert respond(repo, server, out) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {out}: holds 5 replies, the rest unasked (--resume asks only for them): ")
    assert "\n" not in err and len(rows(out)) == 5
    Companion.mode, Companion.requests = "ok", []
    assert respond(repo, server, out, "--resume") == 0
    assert len(Companion.requests) == ITEMS - 5
    assert f"{ITEMS} replies (5 kept, 0 dropped, {ITEMS - 5} asked now)" in capsys.readouterr().out
    assert respond(repo, server, tmp_path / "whole.jsonl") == 0
    assert same(out) == same(tmp_path / "whole.jsonl")


TORN = {
    "cut mid-line": lambda data: data[:-25],
    "zero bytes in place of the last line": lambda data: data[:data.rindex(b"\n", 0, len(data) - 1) + 1] + b"\x00" * 64,
    "a line of zero bytes": lambda data: data[:data.rindex(b"\n", 0, len(data) - 1) + 1] + b"\x00" * 40 + b"\n",
    "cut mid-line, then zero bytes": lambda data: data[:-25] + b"\x00" * 64,
}


@pytest.mark.parametrize("how", TORN)
def test_resume_continues_a_file_a_crash_tore_with_one_warning(repo, tmp_path, server, capsys, how):
    out = tmp_path / "r.jsonl"
    assert respond(repo, server, out) == 0
    out.write_bytes(TORN[how](out.read_bytes()))
    capsys.readouterr()
    Companion.requests = []
    assert respond(repo, server, out, "--resume") == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{out}:{ITEMS}: the last line is torn" in err
    assert len(Companion.requests) == 1  # the torn line's request, asked again
    assert len(rows(out)) == ITEMS


def test_resume_keeps_a_whole_last_line_without_its_newline_and_refuses_a_bad_line_before_it(repo, tmp_path, server,
                                                                                             capsys):
    out = tmp_path / "r.jsonl"
    assert respond(repo, server, out) == 0
    out.write_bytes(out.read_bytes().rstrip(b"\n"))  # written by hand: no newline at the end, nothing torn
    Companion.requests = []
    assert respond(repo, server, out, "--resume") == 0
    assert Companion.requests == [] and "torn" not in capsys.readouterr().err
    lines = out.read_bytes().split(b"\n")
    lines[2] = lines[2][:-10]  # a bad line before the last: no crash's doing
    out.write_bytes(b"\n".join(lines))
    assert respond(repo, server, out, "--resume") == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {out}:3: malformed JSON") and "\n" not in err


def test_judge_resumes_a_torn_verdicts_file_and_asks_concurrently(repo, tmp_path, server, capsys):
    replies = tmp_path / "r.jsonl"
    assert respond(repo, server, replies) == 0
    out = tmp_path / "v.jsonl"
    judge = ["judge", str(repo), "--track", "chat", "--replies", str(replies), "--endpoint", server, "--model", "j",
             "--out", str(out), "--concurrency", "3"]
    Companion.delay, Companion.most = 0.1, 0
    assert main(judge) == 0
    assert Companion.most == 3 and len(rows(out)) == ITEMS
    out.write_bytes(out.read_bytes()[:-30])
    capsys.readouterr()
    Companion.requests = []
    assert main([*judge, "--resume"]) == 0
    assert "the last line is torn" in capsys.readouterr().err and len(Companion.requests) == 1
    assert len(rows(out)) == ITEMS
