"""`realcompanion publish [PATH] --repo-id ORG/NAME --version X.Y.Z [--dry-run]`: gated, versioned Hub release."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _version(text: str) -> str:
    from ..versions import problem

    found = problem(text)
    if found:
        raise argparse.ArgumentTypeError(found)
    return text


def _repo_id(text: str) -> str:
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).splitlines()[0]) from None
    if "/" not in text:
        raise argparse.ArgumentTypeError(f"'{text}' is not ORG/NAME")
    return text


def register(sub):
    p = sub.add_parser("publish", help="validate, then upload PATH to a Hub dataset repo and tag vX.Y.Z")
    p.add_argument("path", type=Path, nargs="?", default=Path("."))
    p.add_argument("--repo-id", required=True, type=_repo_id, help="Hub dataset repository ORG/NAME")
    p.add_argument("--version", required=True, type=_version, help="the version being published (X.Y.Z)")
    p.add_argument("--dry-run", action="store_true", help="print the plan; upload nothing")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..errors import visible, visible_lines
    from ..publish.gate import refusal
    from ..publish.plan import plan
    from ..publish.upload import TagExists, upload

    reason = refusal(args.path, args.version)
    if reason:
        print(f"refused: {visible(reason)}", file=sys.stderr)
        return 1
    planned = plan(args.path, args.repo_id, args.version)
    print(visible_lines(planned.render()))
    if args.dry_run:
        print("dry run: nothing uploaded")
        return 0
    try:
        published = upload(planned)
    except TagExists as exc:
        print(f"refused: {visible(exc)}", file=sys.stderr)
        return 1
    except Exception as exc:  # the Hub's refusal or a network failure, raised by whichever HTTP client it uses
        print(f"error: upload failed ({type(exc).__name__}): {str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    print(visible_lines(published.render()))
    return 0
