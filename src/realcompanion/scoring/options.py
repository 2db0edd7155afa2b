"""Command-line options shared by the scoring subcommands, declared once."""
from __future__ import annotations

from pathlib import Path

from ..argtypes import endpoint, seconds, whole
from ..formats.realcompanion.scoring.settings import BOOTSTRAP_RESAMPLES, TRACKS

JUDGE_TIMEOUT = 60.0  # seconds a whole request to the judge's endpoint may take
# options whose default is a value, not None: given at that value they change nothing, so `realcompanion_only`
# lets them pass
VALUE_DEFAULTS = {"seed": 0, "resamples": BOOTSTRAP_RESAMPLES}


def add_release(p) -> None:
    """The release a scorer reads, validated first unless --unvalidated (`checked`)."""
    from .checked import add_unvalidated

    p.add_argument("path", type=Path, nargs="?", default=Path("."), help="release folder (default: .)")
    add_unvalidated(p)


def add_track(p, required: bool = True) -> None:
    p.add_argument("--track", choices=TRACKS, required=required)


def track_missing(args) -> bool:
    """True (after the usage line argparse would print) when a RealCompanion command got no --track."""
    import sys

    if args.track is None:
        print("error: the following arguments are required: --track", file=sys.stderr)
    return args.track is None


def realcompanion_only(args, names) -> bool:
    """True (after one usage line) when a command on a GroupAssistBench release got any of the options
    `names` (argparse dests), which belong to RealCompanion releases, at a value other than its default."""
    import sys

    given = [f"--{n.replace('_', '-')}" for n in names
             if getattr(args, n, None) not in (None, False, VALUE_DEFAULTS.get(n))]
    if given:
        print(f"error: {', '.join(given)}: RealCompanion releases only (this is a GroupAssistBench release)",
              file=sys.stderr)
    return bool(given)


def before_realcompanion(args, realcompanion_options, command):
    """The exit code of a scoring command that ends before its RealCompanion path, else None: a release of a
    format that has its own `command` (`score`, `judge`, `baselines` in formats.PARTS) runs it (refusing the
    RealCompanion-only `realcompanion_options`); a RealCompanion release needs --track."""
    from ..formats import PARTS, format_of, part

    found = format_of(args.path)
    if command in PARTS[found]:
        if realcompanion_only(args, realcompanion_options):
            return 2
        return part(found, command)(args)
    return 2 if track_missing(args) else None


def dense_refused(args) -> bool:
    """True (after one usage line) when a RealCompanion command got --dense-endpoint."""
    import sys

    if args.dense_endpoint:
        print("error: --dense-endpoint applies to GroupAssistBench releases only", file=sys.stderr)
    return bool(args.dense_endpoint)


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
    from ..formats.realcompanion.scoring.settings import BM25_FALLBACKS

    p.add_argument("--bm25-fallback", choices=BM25_FALLBACKS,
                   help="messages sharing no word with the probe (or query): not retrieved (none, default), or "
                        "appended most recent first (recency); applies to the BM25 baseline of both formats, C3 "
                        "and C3m")


def bm25_fallback(args) -> str:
    """The --bm25-fallback of a command: `none` unless given."""
    return args.bm25_fallback or "none"


def add_resamples(p) -> None:
    p.add_argument("--resamples", type=whole(2), default=VALUE_DEFAULTS["resamples"],  # one resample has no spread
                   help=f"bootstrap resamples, over participants (groups on a GroupAssistBench release; "
                        f"default {VALUE_DEFAULTS['resamples']}; at least 2)")


def add_outputs(p, plot_help: str) -> None:
    p.add_argument("--json", metavar="OUT", help="write the JSON report to OUT ('-' for stdout)")
    p.add_argument("--plot", metavar="PNG", help=plot_help)


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


def check_reading(release, reading: str | None, default_index: int = 0) -> str:
    """`reading`, or the release's declared reading at `default_index` (the last one when fewer are declared)
    when None; an undeclared one is a one-line error."""
    from ..formats.realcompanion.scoring.gold import readings
    from ..release import ReadError

    declared = readings(release)
    if reading is None:
        return declared[min(default_index, len(declared) - 1)]
    if reading not in declared:
        raise ReadError(release.root / "schemas" / "nested" / "memory_bearing.schema.json",
                        f"unknown reading '{reading}' (declared: {', '.join(declared)})", field="reading")
    return reading
