"""`realcompanion judge [PATH] --track chat|qa --replies R.jsonl --endpoint URL --model NAME --out V.jsonl`."""
from __future__ import annotations


def register(sub):
    from ..scoring import options

    p = sub.add_parser("judge", help="judge a system's replies with an OpenAI-compatible endpoint; write verdicts")
    options.add_release(p)
    options.add_track(p, required=False)  # a GroupAssistBench release has no tracks
    p.add_argument("--replies", required=True, metavar="R.jsonl",
                   help='{"item_id", "condition", "reply"} (chat) or {..., "answer"} (qa) per line; GroupAssistBench: '
                        '{"instance_id", "condition", "response"}')
    options.add_judge(p, timeout=True)
    options.add_concurrency(p)
    p.add_argument("--out", required=True, metavar="V.jsonl",
                   help="verdicts file to write, a verdict at a time (a run that stops keeps those given)")
    p.add_argument("--resume", action="store_true",
                   help="keep the verdicts --out holds for replies unchanged since, by this judge; ask only for "
                        "the rest")
    p.add_argument("--prompt", metavar="FILE",
                   help="prompt template (default: the versioned one in prompts/; RealCompanion releases only)")
    p.set_defaults(run=run)


def run(args) -> int:
    from tqdm import tqdm

    from ..scoring.options import before_realcompanion

    code = before_realcompanion(args, ("track", "prompt"), "judge")
    if code is not None:
        return code

    from ..files import output_file
    from ..formats.realcompanion.scoring.gold import load_track
    from ..formats.realcompanion.scoring.replies import judge_replies, read_replies
    from ..release import Release
    from ..scoring.checked import opened
    from ..scoring.judge_client import judge_from, load_prompt
    from ..scoring.verdicts import VerdictsOut, read_verdicts

    release = opened(Release, args)
    track = load_track(release, args.track)
    out = output_file(args.out, release.root, (args.replies, args.prompt))
    replies = read_replies(args.replies, track)
    prompt = load_prompt(args.track, args.prompt)
    judge = judge_from(args)
    verdicts = VerdictsOut(out, "item_id", replies, lambda reply: judge.stamp(prompt),
                           (lambda path, data: read_verdicts(path, track, data)) if args.resume else None)
    with verdicts, tqdm(total=len(verdicts.pending), unit="reply", desc="judge", disable=None) as bar:
        failures = judge_replies(track, verdicts, judge, prompt, args.concurrency, progress=bar.update)
    verdicts.list_unjudged(failures)
    from ..scoring.report import exclusions_line, invalid_rows

    _, warning = invalid_rows(release)
    print("\n".join(filter(None, [warning, exclusions_line(track)])))
    print(f"wrote {out}: {verdicts.summary()} by {args.model} (prompt {prompt.path.name} "
          f"sha256 {prompt.sha256[:12]}); {len(failures)} replies unjudged")
    return 1 if failures else 0
