"""RealCompanion's part of `realcompanion respond`: a system's replies to every item of a track under each
condition."""
from __future__ import annotations

from .options import dense_refused, track_missing


def run(args) -> int:
    if track_missing(args) or dense_refused(args):
        return 2

    from ...files import output_file
    from ...release import Release
    from ...scoring.report import exclusions_line, invalid_rows
    from .scoring.gold import load_track
    from .scoring.respond import realcompanion_replies

    release = Release(args.path)
    track = load_track(release, args.track)
    out = output_file(args.out, release.root)
    _, warning = invalid_rows(release)
    file, failures = realcompanion_replies(track, args, out)
    if file is None:
        return 2
    print("\n".join(filter(None, [warning, exclusions_line(track)])))
    print(f"wrote {out}: {file.summary()} by {args.model}; {len(failures)} unanswered")
    return 1 if failures else 0
