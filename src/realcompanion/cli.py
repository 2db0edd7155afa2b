"""`realcompanion` command line.

Each subcommand lives in its own module under `realcompanion.commands` with a
`register(subparsers)` function that adds its parser and sets `run`; this file
only discovers them, so start-up imports nothing a command does not need.
Exit codes: 0 done / valid, 1 checked and found wanting, 2 could not read or
bad usage. A `ReadError`, or an operating-system refusal to open or write a
path, is printed as one line, never a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from . import commands
from .errors import ReadError


def parser() -> argparse.ArgumentParser:
    from importlib.metadata import version

    top = argparse.ArgumentParser(prog="realcompanion", description=__doc__.splitlines()[0])
    top.add_argument("--version", action="version", version=f"%(prog)s {version('realcompanion')}")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        importlib.import_module(f"{commands.__name__}.{info.name}").register(sub)
    return top


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except ReadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a path given on the command line that cannot be opened or written
        print(f"error: {ReadError(exc.filename or '', exc.strerror or exc)}", file=sys.stderr)
        return 2
    except RecursionError:
        print("error: input nested too deeply to read", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
