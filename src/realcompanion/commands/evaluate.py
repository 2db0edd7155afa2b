"""`realcompanion evaluate [PATH] --endpoint URL --model NAME --judge-endpoint URL --judge-model NAME --out DIR`:
respond, judge and score in one run.

Each stage is the command of its name, run on the files the one before wrote, with its own progress bar:

  DIR/replies.jsonl    `respond`: the system's reply to every item under every condition
  DIR/verdicts.jsonl   `judge`: a verdict on every reply (each carrying the reply's sha256)
  DIR/score.json       `score --verdicts`: the report, naming the verdicts file and its sha256
  DIR/evaluation.json  what was run: the release, the system, the judge, each stage's exit code, and every file
                       above with its sha256 and row count

so every figure of the report traces to a verdict, and each verdict to its reply. A stage that leaves some items
unanswered or unjudged (exit 1) is followed by the next on the rest; one that cannot go on (exit 2) ends the run.
`--resume` resumes both files. The exit code is the worst of the stages'.
"""
from __future__ import annotations

STAGES = ("respond", "judge", "score")


def register(sub):
    from ..scoring import options
    from .respond import add_respond

    p = sub.add_parser("evaluate", help="respond, judge and score: a system's replies to PATH judged and scored, "
                                        "every figure traceable to the files written")
    add_respond(p, "DIR: folder to write replies.jsonl, verdicts.jsonl, score.json and evaluation.json into")
    options.add_judge(p, timeout=True, prefix="judge-")
    options.add_seed(p)
    options.add_resamples(p)
    p.add_argument("--json", metavar="OUT", help="write the score report with the evaluation's files to OUT "
                                                 "('-' for stdout)")
    p.set_defaults(run=run)


def run(args) -> int:
    import contextlib
    import json
    import sys
    from argparse import Namespace
    from contextlib import redirect_stdout
    from pathlib import Path

    from ..files import output_folder
    from ..formats import format_of
    from ..schemas import dump_json
    from ..stamp import sha256_of
    from ..writing import write_text
    from . import judge, respond, score

    folder = output_folder(args.out, Path(args.path))
    made = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    files = {name: folder / name for name in ("replies.jsonl", "verdicts.jsonl", "score.json", "evaluation.json")}
    common = vars(args) | {"plot": None, "run_file": None, "detector": None, "reading": None,
                           "dependent_reading": None, "prompt": None}
    stage_args = {
        "respond": Namespace(**common | {"out": files["replies.jsonl"]}),
        "judge": Namespace(**common | {"endpoint": args.judge_endpoint, "model": args.judge_model,
                                       "api_key_env": args.judge_api_key_env, "replies": files["replies.jsonl"],
                                       "out": files["verdicts.jsonl"]}),
        "score": Namespace(**common | {"verdicts": files["verdicts.jsonl"], "json": files["score.json"]})}
    codes = {}
    with redirect_stdout(sys.stderr if args.json == "-" else sys.stdout):  # stdout: the JSON report alone
        for name, module in zip(STAGES, (respond, judge, score)):
            print(f"== {name}", flush=True)
            codes[name] = int(module.run(stage_args[name]) or 0)
            if codes[name] >= 2:
                break
    if not any(path.is_file() for path in files.values()):  # the first stage ended before any answer (a missing
        if made:  # --track, an endpoint that never answered): nothing to trace, so no manifest and no new folder
            with contextlib.suppress(OSError):
                folder.rmdir()
        return max(codes.values())
    manifest = {"release": str(args.path), "format": format_of(args.path), "track": args.track,
                "conditions": args.condition or "all", "limit": args.limit,
                "system": {"endpoint": args.endpoint, "model": args.model, "temperature": args.temperature},
                "judge": {"endpoint": args.judge_endpoint, "model": args.judge_model}, "exit_codes": codes,
                "files": {name: {"file": str(path), "sha256": sha256_of(path),
                                 **({"rows": _lines(path)} if name.endswith(".jsonl") else {})}
                          for name, path in files.items() if name != "evaluation.json" and path.is_file()}}
    write_text(files["evaluation.json"], dump_json(manifest))
    if args.json and "score" in codes and codes["score"] < 2:
        report = {"evaluation": manifest, "score": json.loads(files["score.json"].read_text(encoding="utf-8"))}
        if args.json == "-":
            print(dump_json(report), end="")
        else:
            from ..files import output_file

            write_text(output_file(args.json, Path(args.path), tuple(files.values())), dump_json(report))
    print(f"wrote {folder}: " + ", ".join(f"{name} (sha256 {manifest['files'][name]['sha256'][:12]})"
                                          for name in manifest["files"]) + "; evaluation.json; exit codes "
          + ", ".join(f"{k} {v}" for k, v in codes.items()), file=sys.stderr if args.json == "-" else sys.stdout)
    return max(codes.values())


def _lines(path) -> int:
    with open(path, "rb") as handle:
        return sum(1 for line in handle if line.strip())
