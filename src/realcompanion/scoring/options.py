"""Command-line options shared by the scoring subcommands, declared once."""
from __future__ import annotations

from pathlib import Path

from ..argtypes import MAX_RESAMPLES, endpoint, picture, seconds, whole
from ..formats import DEFAULT, part, said

JUDGE_TIMEOUT = 60.0  # seconds a whole request to the judge's endpoint may take
# options whose default is a value, not None: given at that value they change nothing, so `refused` lets them pass
VALUE_DEFAULTS = {"seed": 0, "resamples": part(DEFAULT, "settings").BOOTSTRAP_RESAMPLES}


def add_release(p) -> None:
    """The release a scorer reads, validated first unless --unvalidated (`checked`)."""
    from .checked import add_unvalidated

    p.add_argument("path", type=Path, nargs="?", default=Path("."), help="release folder (default: .)")
    add_unvalidated(p)


def add_track(p, required: bool = True) -> None:
    """--track, among the tracks of the formats that have them (`said("tracks")`)."""
    p.add_argument("--track", choices=tuple(track for tracks in said("tracks") for track in tracks),
                   required=required)


def refused(args, names, owner: str, found: str) -> bool:
    """True (after one usage line) when a command on a release of format `found` got any of the options `names`
    (argparse dests), which belong to format `owner`'s releases, at a value other than its default."""
    import sys

    from ..formats import TITLES

    given = [f"--{n.replace('_', '-')}" for n in names
             if getattr(args, n, None) not in (None, False, VALUE_DEFAULTS.get(n))]
    if given:
        print(f"error: {', '.join(given)}: {TITLES[owner]} releases only (this is a {TITLES[found]} release)",
              file=sys.stderr)
    return bool(given)


def by_format(args, command: str, default_options) -> int:
    """Run `command` on the release at args.path as its format does (its part `command`, formats.PARTS); a release
    of a format other than the default one is refused the options `default_options` (argparse dests), which only
    the default format's part reads."""
    from ..formats import format_of

    found = format_of(args.path)
    if found != DEFAULT and refused(args, default_options, DEFAULT, found):
        return 2
    return part(found, command)(args)


def add_seed(p) -> None:
    p.add_argument("--seed", type=whole(0), default=VALUE_DEFAULTS["seed"],
                   help=f"seed of every random draw (default {VALUE_DEFAULTS['seed']})")


def add_reading(p) -> None:
    p.add_argument("--reading", help="memory-bearing reading that defines dependent items "
                                     "(default: the first the release declares, recorded)")


def add_dependent_reading(p) -> None:
    p.add_argument("--dependent-reading", help="reading that selects Table 4's dependent column among the distant "
                                               "items (default: the second the release declares, strict)")


def add_bm25_fallback(p) -> None:
    p.add_argument("--bm25-fallback", choices=part(DEFAULT, "settings").BM25_FALLBACKS,
                   help="messages sharing no word with the probe (or query): not retrieved (none, default), or "
                        "appended most recent first (recency); applies to the BM25 baseline of both formats, C3 "
                        "and C3m")


def bm25_fallback(args) -> str:
    """The --bm25-fallback of a command: `none` unless given."""
    return args.bm25_fallback or "none"


def add_resamples(p) -> None:
    default = VALUE_DEFAULTS["resamples"]
    p.add_argument("--resamples", type=whole(2, MAX_RESAMPLES), default=default,  # one resample has no spread
                   help=f"bootstrap resamples, over participants "
                        f"({'; '.join([*said('resamples'), f'default {default}', f'from 2 to {MAX_RESAMPLES:,}'])})")


def add_outputs(p, plot_help: str) -> None:
    p.add_argument("--json", metavar="OUT", help="write the JSON report to OUT ('-' for stdout)")
    p.add_argument("--plot", metavar="PNG", type=picture, help=plot_help)


def add_judge(p, only_with: str | None = None, timeout: bool = False, prefix: str = "", who: str = "the judge") -> None:
    """Where the judge (or `who`) is asked: --{prefix}endpoint, --{prefix}model, --{prefix}api-key-env; build it with
    `judge_client.judge_from` (`respond.responder_from`).

    Required unless `only_with` names the option that brings the judge in (each help then says so). Only a
    command given `timeout` exposes --timeout; the others ask at JUDGE_TIMEOUT.
    """
    required = only_with is None
    p.add_argument(f"--{prefix}endpoint", type=endpoint, required=required, metavar="URL",
                   help=f"base URL of {who}'s chat-completions API (.../v1)" if required
                   else f"with {only_with}: OpenAI-compatible base URL")
    p.add_argument(f"--{prefix}model", required=required, metavar="NAME",
                   help=f"{who}'s model" if required else f"with {only_with}: the judge model")
    p.add_argument(f"--{prefix}api-key-env", default="OPENAI_API_KEY", metavar="VAR",
                   help="environment variable holding the API key (default OPENAI_API_KEY; unset: none sent)"
                   if required else None)
    if not timeout:
        p.set_defaults(timeout=JUDGE_TIMEOUT)
    elif not prefix:
        p.add_argument("--timeout", type=seconds, default=JUDGE_TIMEOUT,
                       help=f"seconds each whole request may take (default {JUDGE_TIMEOUT:g})")


def add_concurrency(p) -> None:
    """How many requests are under way at once, and how often the client retries one (`endpoint`)."""
    from .endpoint import RETRIES

    p.add_argument("--concurrency", type=whole(1), default=1, metavar="N",
                   help="requests under way at once (default 1); each answer is written as it comes")
    p.add_argument("--retries", type=whole(0), default=RETRIES, metavar="N",
                   help=f"retries of a request that timed out, could not connect or was answered 408, 409, 429 or 5xx, "
                        f"with exponential backoff, a 429's Retry-After honoured (default {RETRIES})")


def add_embeddings(p, timeout: bool = True) -> None:
    """Where dense retrieval embeds text: --dense-endpoint (none given: dense is not run), --dense-model,
    --dense-api-key-env, --dense-batch, and --timeout unless `timeout` is False (a command that also asks a system
    has its own --timeout, which bounds these requests too); build it with `embeddings.embedder_from`."""
    from .embeddings import DEFAULT_BATCH, DEFAULT_MODEL, TIMEOUT

    p.add_argument("--dense-endpoint", type=endpoint, metavar="URL",
                   help="base URL of an OpenAI-compatible embeddings API (.../v1); without it dense retrieval is not run")
    p.add_argument("--dense-model", default=DEFAULT_MODEL, metavar="NAME", help=f"embedding model (default {DEFAULT_MODEL})")
    if timeout:
        p.add_argument("--timeout", type=seconds, default=TIMEOUT,
                       help=f"seconds each whole request to the embeddings endpoint may take (default {TIMEOUT:g})")
    p.add_argument("--dense-api-key-env", default="OPENAI_API_KEY", metavar="VAR",
                   help="environment variable holding the embeddings API key (default OPENAI_API_KEY; unset: none sent)")
    p.add_argument("--dense-batch", type=whole(1), default=DEFAULT_BATCH, metavar="N",
                   help=f"texts per embeddings request (default {DEFAULT_BATCH})")
