"""Benchmarks of evaluating a system: `score`, `baselines`, `respond` and `judge`, each against a floor measured in
the same run.

    python benchmarks/evaluate.py [score] [baselines] [client] [--workdir DIR]

score      `realcompanion score` on the paper-scale GroupAssistBench release (`synth --format groupassist
           --paper-scale`) with 45 conditions' verdicts on its 2,395 eval instances (107,775 rows, made here,
           seeded). Floor: one process that opens the release and reads every verdict line as JSON.
baselines  `realcompanion baselines` on the same release (no dense retrieval). Floor: one process that reads the
           messages, segments each distinct text once and counts each record's line once, in both languages: the
           reading and tokenising any scorer of the histories must do.
client     `respond` (chat track, C0-C4 and C3m, 1,667 items each: about 10,000 requests) and then `judge` on its replies, both at
           --concurrency 16, against a local server (127.0.0.1) that answers each request after 100 ms. Floor:
           concurrency / latency = 160 requests a second; also measured, the same server driven by the `openai`
           client alone at the same concurrency. The client's resident memory is read when the server has
           received 1,000 and 10,000 requests: flat memory keeps them close.

Whole processes are timed as a user runs them (start-up included) with `run.measure`: wall and CPU seconds and
peak memory. The load average is printed before each part. Nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from run import measure

HERE = Path(__file__).resolve().parent
CONDITIONS, LATENCY, CONCURRENCY, REQUESTS = 45, 0.1, 16, 10_000
PYTHON = sys.executable


def cli(*args) -> list[str]:
    return [PYTHON, str(HERE / "peak.py"), *map(str, args)]


def load() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def synthesized(workdir: Path, name: str, *args) -> Path:
    out = workdir / name
    if not out.exists():
        subprocess.run([PYTHON, "-m", "realcompanion.cli", "synth", str(out), *args], check=True,
                       stdout=subprocess.DEVNULL)
    return out


def verdicts(release: Path, out: Path) -> Path:
    """CONDITIONS conditions' verdicts on every eval instance: random atoms named, random criteria met (seeded)."""
    from realcompanion.formats.groupassist import GroupAssistRelease
    from realcompanion.formats.groupassist.judging import Instances

    if out.exists():
        return out
    instances, rng = Instances(GroupAssistRelease(release)), random.Random(0)
    stamp = {"model": "judge", "prompt_sha256": "0" * 64, "temperature": 0}
    with open(out, "w", encoding="utf-8") as handle:
        for condition in range(CONDITIONS):
            for instance_id in instances.eval:
                if instances.rows[instance_id]["level"] == "L1":
                    atoms = [*instances.atoms[instance_id]["atom_id"], None]
                    verdict = {"facts": [{"fact": "f", "atom": rng.choice(atoms)} for _ in range(rng.randint(0, 3))]}
                else:
                    verdict = {"criteria": {c: rng.random() < 0.5 for c in instances.criteria[instance_id]["criterion_id"]}}
                handle.write(json.dumps({"instance_id": instance_id, "condition": f"system{condition:02d}", **verdict,
                                         "judge": stamp}) + "\n")
    return out


SCORE_FLOOR = """
import json, sys
from realcompanion.formats.groupassist import GroupAssistRelease
release = GroupAssistRelease(sys.argv[1])
frames = [release.frame(name) for name in ("instances", "atoms", "criteria")]
with open(sys.argv[2], encoding="utf-8") as handle:
    rows = [json.loads(line) for line in handle]
"""

BASELINES_FLOOR = """
import sys
from realcompanion.formats.groupassist import GroupAssistRelease
from realcompanion.formats.groupassist.scoring import ContextTokens, Terms, lines
release = GroupAssistRelease(sys.argv[1])
messages = release.frame("messages")
for lang in ("zh", "en"):
    Terms(lang)(list(dict.fromkeys(messages[f"text_{lang}"])))
    count = ContextTokens(release.params["tokenizer"], lang)
    for line in lines(messages, lang):
        count.line(line)
"""


def row(name: str, run: dict, floor: dict) -> str:
    return (f"| {name} | {run['wall']:.1f} | {run['cpu']:.1f} | {run['peak_mb']:.0f} | {floor['wall']:.1f} | "
            f"{floor['cpu']:.1f} | {run['wall'] / floor['wall']:.2f} | {run['cpu'] / floor['cpu']:.2f} | {run['exit']} |")


HEADER = ("| run | wall s | CPU s | peak MB | floor wall s | floor CPU s | wall ÷ floor | CPU ÷ floor | exit |\n"
          "|---|---|---|---|---|---|---|---|---|")


def score(workdir: Path) -> str:
    release = synthesized(workdir, "groupassist", "--format", "groupassist", "--paper-scale")
    rows = verdicts(release, workdir / "verdicts.jsonl")
    print(f"score: load {load()}", flush=True)
    floor = measure([PYTHON, "-c", SCORE_FLOOR, str(release), str(rows)])
    run = measure(cli("score", release, "--verdicts", rows, "--json", workdir / "score.json"))
    return row(f"score, {sum(1 for _ in open(rows)):,} verdict rows", run, floor)


def baselines(workdir: Path) -> str:
    release = synthesized(workdir, "groupassist", "--format", "groupassist", "--paper-scale")
    print(f"baselines: load {load()}", flush=True)
    floor = measure([PYTHON, "-c", BASELINES_FLOOR, str(release)])
    run = measure(cli("baselines", release, "--json", workdir / "baselines.json"))
    return row("baselines, GroupAssistBench paper scale (zh and en)", run, floor)


class Server:
    """An OpenAI-compatible chat-completions server on 127.0.0.1 (asyncio, HTTP/1.1 keep-alive) answering each
    request after LATENCY seconds: a reply, or a chat verdict to a judge's prompt. It records when each request
    came and reads the client's resident memory (`pid`) at every 1,000th."""

    def __init__(self):
        self.times, self.pid, self.rss = [], None, {}
        self.loop = asyncio.new_event_loop()
        self.server = self.loop.run_until_complete(asyncio.start_server(self.serve, "127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/v1"
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)

    async def serve(self, reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length"))
                body = json.loads(await reader.readexactly(length))
                self.times.append(time.monotonic())
                if len(self.times) % 1_000 == 0 and self.pid:
                    self.rss[len(self.times)] = rss_mb(self.pid)
                await asyncio.sleep(LATENCY)
                text = body["messages"][0]["content"]
                content = '{"content_match": 1, "used_memory": false}' if "<reply>" in text else "Okay."
                data = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                                   "usage": {"prompt_tokens": 1, "completion_tokens": 1}}).encode()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                             + str(len(data)).encode() + b"\r\n\r\n" + data)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    def rate(self) -> float:
        """Requests a second from the first request to the last."""
        return (len(self.times) - 1) / (self.times[-1] - self.times[0])


def rss_mb(pid: int) -> float:
    """Resident memory of `pid` and its children (the console script's process), in MB."""
    total = 0
    for task in [pid, *map(int, Path(f"/proc/{pid}/task/{pid}/children").read_text().split())]:
        for line in Path(f"/proc/{task}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


def driven(server: Server, command: list[str]) -> dict:
    """Run `command` as a child, the server reading its memory; its figures and the server's request rate."""
    server.times, server.rss = [], {}
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server.pid = proc.pid
    start = time.perf_counter()
    _, status, usage = os.wait4(proc.pid, 0)
    return {"wall": time.perf_counter() - start, "cpu": usage.ru_utime + usage.ru_stime,
            "exit": os.waitstatus_to_exitcode(status), "rate": server.rate(), "requests": len(server.times),
            "rss": dict(server.rss)}


BARE_CLIENT = """
import asyncio, sys
from openai import AsyncOpenAI
client = AsyncOpenAI(base_url=sys.argv[1], api_key="none")
async def main():
    todo = iter(range(int(sys.argv[3])))
    async def worker():
        for _ in todo:
            await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    await asyncio.gather(*(worker() for _ in range(int(sys.argv[2]))))
asyncio.run(main())
"""


def client(workdir: Path) -> str:
    release = synthesized(workdir, "realcompanion", "--paper-scale")
    print(f"client: load {load()}", flush=True)
    server = Server()
    replies, verdicts_out = workdir / "replies.jsonl", workdir / "verdicts.jsonl.client"
    for path in (replies, verdicts_out):
        path.unlink(missing_ok=True)
    common = ["--endpoint", server.url, "--model", "m", "--concurrency", CONCURRENCY]
    runs = {
        "bare openai client": driven(server, [PYTHON, "-c", BARE_CLIENT, server.url, str(CONCURRENCY), str(REQUESTS)]),
        "respond": driven(server, cli("respond", release, "--track", "chat", "--limit", -(-REQUESTS // 6), "--out",
                                      replies, *common)),
        "judge": driven(server, cli("judge", release, "--track", "chat", "--replies", replies, "--out", verdicts_out,
                                    *common))}
    server.stop()
    ideal = CONCURRENCY / LATENCY
    lines = [f"| run | requests | requests/s | ÷ {ideal:.0f}/s (concurrency ÷ latency) | ÷ bare client | RSS MB at the "
             "1,000th / last 1,000th request | wall s | CPU s | exit |", "|---|---|---|---|---|---|---|---|---|"]
    bare = runs["bare openai client"]["rate"]
    for name, run in runs.items():
        marks = sorted(run["rss"])
        rss = f"{run['rss'][marks[0]]:.0f} / {run['rss'][marks[-1]]:.0f} ({marks[-1]:,})" if marks else "-"
        lines.append(f"| {name} | {run['requests']:,} | {run['rate']:.1f} | {run['rate'] / ideal:.2f} | "
                     f"{run['rate'] / bare:.2f} | {rss} | {run['wall']:.1f} | {run['cpu']:.1f} | {run['exit']} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", choices=["score", "baselines", "client"], default=[])
    parser.add_argument("--workdir", type=Path, help="keep the generated releases and files here (default: a temp dir)")
    args = parser.parse_args()
    parts = args.parts or ["score", "baselines", "client"]
    with tempfile.TemporaryDirectory() as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        print(f"{os.cpu_count()} cores, load {load()}", flush=True)
        tables = [HEADER] if {"score", "baselines"} & set(parts) else []
        tables += [globals()[part](workdir) for part in parts if part != "client"]
        if "client" in parts:
            tables += ["", client(workdir)]
        print("\n".join(tables))
    return 0


if __name__ == "__main__":
    sys.exit(main())
