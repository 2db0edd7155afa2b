"""`realcompanion synth OUT`: write a deterministic synthetic release."""
from __future__ import annotations

import sys
from pathlib import Path

from .. import formats
from ..argtypes import MAX_PAPER_COPIES, MAX_PARTICIPANTS, scale, whole


def register(sub):
    p = sub.add_parser("synth", help="write a deterministic synthetic release to OUT")
    p.add_argument("out", type=Path)
    p.add_argument("--participants", type=whole(1, MAX_PARTICIPANTS), default=4,
                   help=f"specimen participants (default 4, at most {MAX_PARTICIPANTS:,})")
    p.add_argument("--scale", type=scale, default=1.0,
                   help="specimen: multiply each participant's counts; with --paper-scale: copies of the ten participants "
                        f"(at most {MAX_PAPER_COPIES})")
    p.add_argument("--paper-scale", action="store_true", help="the real release's counts (paper Tables 2, 11)")
    p.add_argument("--seed", type=whole(0), default=0)
    p.add_argument("--format", choices=formats.FORMATS, default=formats.FORMATS[0],
                   help=f"release format to write (default {formats.FORMATS[0]})")
    p.add_argument("--template", type=Path, default=None,
                   help="release whose descriptor, parameters and schemas to use (default: this repository)")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..files import empty_folder
    from ..formats import part

    if args.template is not None:  # the default is the package's own
        template(args.template, args.format)
    empty_folder(args.out)
    return part(args.format, "synth")(args)


def template(path: Path, fmt: str) -> None:
    """The template folder is a release of the format written (its block, its resources), none of whose paths leaves
    it, checked before anything is written: its descriptor and schemas/ are copied into the new release. A template of
    the other format was a KeyError traceback once part of the release was written, and a schema linked from outside
    the template was copied in."""
    from ..formats import part

    part(fmt, "release")(path, check=False).refuse_escapes("a template's files are copied only when none leaves it")


def scale_refused(args, fits: bool, wanted: str) -> bool:
    """True (after argparse's kind of line) when --paper-scale was given with a --scale the format's generator
    cannot honour (`fits` false): 0.5 made no copy (a traceback) and 1.7 one copy, and a release written once
    ignored it."""
    if args.paper_scale and not fits:
        print(f"error: argument --scale: with --paper-scale, {wanted}, not '{args.scale:g}'", file=sys.stderr)
    return args.paper_scale and not fits
