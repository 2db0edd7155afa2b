"""`realcompanion` command line.

Each subcommand lives in its own module, under `realcompanion.commands` when
every format has it, else in its format's `commands` part (formats.PARTS), with
a `register(subparsers)` function that adds its parser and sets `run`; this file
only discovers them, so start-up imports nothing a command does not need.
Exit codes: 0 done / valid, 1 checked and found wanting, 2 could not read or
bad usage. A `ReadError`, an operating-system refusal to open or write a
path, or an optional extra the command needs and that is not installed, is
printed as one line, never a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from . import __version__, commands, formats
from .errors import ReadError, visible


def command_modules() -> dict[str, str]:
    """Every subcommand's module by its name: the shared ones, then each format's own, in the order of names."""
    packages = [commands] + [formats.part(name, "commands") for name in formats.FORMATS
                             if "commands" in formats.PARTS[name]]
    found = {info.name: f"{package.__name__}.{info.name}" for package in packages
             for info in pkgutil.iter_modules(package.__path__)}
    return dict(sorted(found.items()))


class Parser(argparse.ArgumentParser):
    """argparse's parser, each command's too (`add_subparsers` makes them of its class), whose usage error prints
    what it echoes from the command line as `visible` shows it: an option's value, or an argument it does not
    know, holding an escape sequence or a line break was printed raw, drawing on the terminal."""

    def error(self, message):
        super().error(visible(message))


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line; given the `command` a run names, only that command's module is imported (every other
    module's imports cost a run about 0.05 s), else every command's, for the help and the list of choices."""
    top = Parser(prog=__package__, description=__doc__.splitlines()[0])
    top.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules = command_modules()
    own = (command or "").replace("-", "_")
    for name in [own] if own in modules else modules:
        importlib.import_module(modules[name]).register(sub)
    return top


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser(argv[0] if argv else None).parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except ReadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader of the output went away (`| head`): nothing more to say
        return 141  # as a process ended by SIGPIPE
    except OSError as exc:  # a path given on the command line that cannot be opened or written, or the output
        reason = exc.strerror or exc
        print(f"error: {ReadError(exc.filename, reason) if exc.filename else f'writing the output: {reason}'}",
              file=sys.stderr)
        return 2
    except RecursionError:
        print("error: input nested too deeply to read", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # an optional extra not installed (`pip install -e .` alone)
        print(f"error: {missing_extra(exc.name or '')}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def missing_extra(module: str) -> str:
    """The line for a module this command imports that is not installed: the extra of pyproject.toml that provides
    it, read from the package's own metadata."""
    from .requirements import extra_of

    root, extra = module.split(".")[0].lower(), extra_of(module)
    if extra:
        return (f"this command needs '{root}', from the optional extra '{extra}': "
                f"pip install 'realcompanion[{extra}]' (from a clone: pip install -e '.[{extra}]')")
    return f"this command needs the module '{root}', which is not installed"


def entry() -> None:
    """The `realcompanion` program."""
    try:
        code = main()
    except SystemExit as exc:  # argparse ended the run (--help, --version, a usage error): its output still to flush
        code = exc.code if isinstance(exc.code, int) else 2
    end(code)


def end(code: int) -> None:
    """End the process with `code`, its output flushed, without freeing its objects one by one (a validation's
    tables and views took 0.2 s to tear down at 10x paper size, 0.6 s at 100x; the operating system takes the
    memory back at once). Every file a command writes is closed before the command returns. An output that
    cannot be written (a full disk) is one line and exit 2, as when it fails before the end."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # the reader went away (`| head`), or a closed stream: nothing to say
            pass
        except OSError as exc:
            if stream is sys.stdout:
                print(f"error: writing the output: {exc.strerror or exc}", file=sys.stderr)
                code = 2
    os._exit(code)


if __name__ == "__main__":
    entry()
