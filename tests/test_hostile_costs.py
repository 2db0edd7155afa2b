"""Inputs of unbounded cost meet a documented limit, checked before the work, and one line: a descriptor of ten
thousand resources, an endpoint's answer of a hundred megabytes, a server that trickles its answer past the
timeout, and `baselines --dense-endpoint` without a `--timeout`."""
from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler

import pytest
from local_server import serving
from test_fuzz import check_contract, restamp, run_quietly

from realcompanion.errors import ReadError
from realcompanion.formats.groupassist import SPECIMEN
from realcompanion.scoring.embeddings import Embedder

ANSWER = json.dumps({"data": [{"index": 0, "embedding": [0.5, 0.25]}]}).encode()


def test_ten_thousand_resources_is_one_line(specimen):
    path = specimen / "datapackage.json"
    descriptor = json.loads(path.read_text(encoding="utf-8"))
    descriptor["resources"] += [dict(descriptor["resources"][0], name=f"r{n}") for n in range(10_000)]
    path.write_text(json.dumps(descriptor), encoding="utf-8")
    start = time.monotonic()
    code, out, err = run_quietly(["validate", str(specimen)])
    assert time.monotonic() - start < 20
    check_contract(code, out, err, "datapackage.json field 'resources'")
    assert code == 2 and "10,005 resources, more than the 100 a release may" in err, err


class Trickle(BaseHTTPRequestHandler):
    """A whole, valid answer, one byte every `pause` seconds: each read is quick, the request is not."""

    pause = 0.1

    def do_POST(self):  # noqa: N802 (http.server API)
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(ANSWER)))
        self.end_headers()
        try:
            for byte in ANSWER:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(self.pause)
        except (BrokenPipeError, ConnectionResetError):  # the client stopped reading at its bound
            pass

    def log_message(self, *args):
        pass


def huge(declared: bool):
    class Huge(BaseHTTPRequestHandler):
        """An answer of 100 MB, its length declared or not (sent in chunks)."""

        protocol_version = "HTTP/1.1"

        def do_POST(self):  # noqa: N802 (http.server API)
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length" if declared else "Transfer-Encoding",
                             str(100 << 20) if declared else "chunked")
            self.end_headers()
            block = b" " * (1 << 20)
            try:
                for _ in range(100):
                    self.wfile.write(block if declared else b"%x\r\n%s\r\n" % (len(block), block))
                if not declared:
                    self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args):
            pass
    return Huge


def test_the_timeout_bounds_the_whole_request():
    with serving(Trickle) as url:
        embedder = Embedder(url, timeout=1)
        start = time.monotonic()
        with pytest.raises(ReadError, match="no whole answer within 1 s"):
            embedder.embed(["one"])
        assert time.monotonic() - start < 3


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
def test_an_answer_larger_than_the_bound_is_one_line(declared):
    with serving(huge(declared)) as url:
        with pytest.raises(ReadError, match="the answer is larger than 1,179,648 bytes"):
            Embedder(url, timeout=30).embed(["one"])


def test_baselines_bounds_each_dense_request_by_default_and_by_its_timeout(capsys):
    from realcompanion.cli import main
    from realcompanion.scoring.embeddings import TIMEOUT

    with serving(Trickle) as url:
        start = time.monotonic()
        code = main(["baselines", str(SPECIMEN), "--dense-endpoint", url, "--timeout", "1"])
        assert code == 2 and time.monotonic() - start < 20
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no whole answer within 1 s" in err, err
    with pytest.raises(SystemExit):
        main(["baselines", "--help"])
    assert f"(default {TIMEOUT:g})" in capsys.readouterr().out


class SlowTrickle(Trickle):
    pause = 0.5  # the whole answer in 25 s


def respond(repo, url, out, *more):
    from realcompanion.cli import main

    return main(["respond", str(repo), "--track", "chat", "--condition", "C1", "--limit", "8", "--endpoint", url,
                 "--model", "m", "--out", str(out), "--retries", "0", *more])


@pytest.mark.parametrize("concurrency", ["1", "4"])
def test_requests_made_many_at_a_time_are_bounded_as_a_whole(repo, tmp_path, capsys, concurrency):
    with serving(SlowTrickle) as url:
        start = time.monotonic()
        code = respond(repo, url, tmp_path / "r.jsonl", "--timeout", "1", "--concurrency", concurrency)
        assert code == 2 and time.monotonic() - start < 15  # not the 25 s the server takes to answer
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"{url}: no whole answer within 1 s (the timeout bounds each request as a whole)"), err
    assert "\n" not in err


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
def test_a_chat_answer_larger_than_the_bound_is_one_line_naming_the_endpoint(repo, tmp_path, capsys, declared):
    with serving(huge(declared)) as url:
        assert respond(repo, url, tmp_path / "r.jsonl", "--timeout", "30", "--concurrency", "2") == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"{url}: the answer is larger than 8,388,608 bytes") and "\n" not in err, err


def with_patterned_field(root, pattern: str, values: dict[int, str]) -> None:
    """A fork's string field `x_code` on qa, of `pattern`: "a" on every row, `values` on the rows they name."""
    schema = root / "schemas" / "qa.schema.json"
    table = json.loads(schema.read_text(encoding="utf-8"))
    table["fields"].append({"name": "x_code", "type": "string", "constraints": {"pattern": pattern}})
    schema.write_text(json.dumps(table, indent=2), encoding="utf-8")
    data = root / "data" / "qa.jsonl"
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()]
    data.write_text("".join(json.dumps({**row, "x_code": values.get(n, "a")}, ensure_ascii=False) + "\n"
                            for n, row in enumerate(rows)), encoding="utf-8")
    restamp(root)


def test_a_pattern_that_backtracks_fails_its_row_at_once(specimen):
    """`(a+\\s?)+` on forty a's and a `!`: pandas matched it with Python's backtracking search (as it does any pattern
    holding `\\s`, or `\\w` once a value holds a character past ASCII), which ran for ever; RE2 answers at once."""
    with_patterned_field(specimen, r"(a+\s?)+", {1: "a" * 40 + "!", 2: "a\u3000a", 3: "ä"})
    code, out, err = run_quietly(["validate", str(specimen), "--json", "-"])
    found = [(f["rule"], f["row"], f["field"]) for f in json.loads(out)["failures"] if f["rule"] != "NUL1"]  # warnings
    assert code == 1 and found == [("SCH2", "U01:Q0002", "x_code"), ("SCH2", "U01:Q0004", "x_code")], found


@pytest.mark.parametrize("pattern", [r"[\w-]+(\s\d+)?", r"[a\u4e00-\u9fff]{,9}(\U0001F600)?\Z"])
def test_a_pattern_keeps_its_unicode_classes_in_linear_time(specimen, pattern):
    """The near miss: `\\w` and `\\d` read Chinese, Arabic-Indic digits and a non-breaking space as Frictionless's
    Python does (RE2's own classes are ASCII), `$` is the end of the value, and Python's escapes of a code point
    (a Chinese field's `[\\u4e00-\\u9fff]`), of the end (`\\Z`) and a bound `{,n}` are RE2's."""
    values = {1: "张三-x", 2: "a\u00a0١٢", 3: "a_b 7"} if "w" in pattern else {1: "张三", 2: "a中😀"}
    with_patterned_field(specimen, pattern, values)
    code, out, err = run_quietly(["validate", str(specimen)])
    assert code == 0, out


@pytest.mark.parametrize("pattern,why", [("(?=(a+)+b)a.*", "invalid perl operator: (?="),
                                         (r"((a+)+)\1c", r"invalid escape sequence: \1"),
                                         (r"[^\W\d]+", r"RE2 has no Unicode \W in a negated set")])
def test_a_pattern_only_a_backtracking_search_matches_is_one_line(specimen, pattern, why):
    with_patterned_field(specimen, pattern, {})
    code, out, err = run_quietly(["validate", str(specimen)])
    check_contract(code, out, err, "qa.schema.json field 'fields.9.constraints.pattern': field 'x_code': pattern")
    assert code == 2 and why in err and "cannot be matched in time linear in the value" in err, err
