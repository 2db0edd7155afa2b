"""RealCompanion's part of `realcompanion judge`: a system's replies on a track judged, the verdicts written."""
from __future__ import annotations

from .options import track_missing


def run(args) -> int:
    from tqdm import tqdm

    if track_missing(args):
        return 2

    from ...files import output_file
    from ...release import Release
    from ...scoring.checked import opened
    from ...scoring.judge_client import judge_from, load_prompt
    from ...scoring.verdicts import VerdictsOut, read_verdicts
    from .scoring.gold import load_track
    from .scoring.replies import judge_replies, read_replies

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
    from ...scoring.report import exclusions_line, invalid_rows

    _, warning = invalid_rows(release)
    print("\n".join(filter(None, [warning, exclusions_line(track)])))
    print(f"wrote {out}: {verdicts.summary()} by {args.model} (prompt {prompt.path.name} "
          f"sha256 {prompt.sha256[:12]}); {len(failures)} replies unjudged")
    return 1 if failures else 0
