"""The registry of formats: which format a release is in, where each format keeps its parts, and what each
RealCompanion format version fixes.

The package carries two formats (FORMATS); a release's descriptor names its format by
the parameter block it carries (`realcompanion` or `groupassist`). Each format is one folder
of Python (formats/<name>/) and one of rules (validators/<name>/); the shared engine reaches
a format's parts only through `part`, never by importing the format. Adding a format is a
folder of each kind and one entry in PARTS (docs/design.md).

A RealCompanion release declares its `realcompanion.format_version` and carries copies
of that version's constants (VERSIONS) in `datapackage.json`, for tools that read the
descriptor alone. The copies are not knobs: a release that could set its own recent
window or session gap could make gate E or the Structural family pass by declaration.
The validator therefore reads the constants of the declared version from here, and
rule FMT1 fails a release whose copies differ. Parameters that do not decide VALID
(the personal-data screen's `pii_digit_run`, which only warns) stay the release's own.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import ReadError
from ..files import read_json

FORMATS = ("realcompanion", "groupassist")
DEFAULT = FORMATS[0]  # the format the package is named after: the engine's where it must assume one
TITLES = {"realcompanion": "RealCompanion", "groupassist": "GroupAssistBench"}  # as the cards and messages name them
GENERIC = "`frictionless validate datapackage.json` checks a generic data package"
# Where each format keeps the parts the commands share, as module:attribute (or a module, or a JSON file), imported
# only when asked for (`release`: the class that opens one; `runner`: what the one validation pass needs of it
# (validators/run.py); `stamp`: its declared counts and hashes; `renderers`: its datasheet's generated blocks;
# `status`: the card's opening notice; `catalogue`: its coded rules; `format_rules`, `format_schemas`: the declared
# rules and core definitions every release of it keeps; `tracks`: the resources of the default format, which
# `schemas.TRACKS` names; `block_schema`: the JSON Schema of its descriptor block, where `Release.check_block` reads
# it; `synth`: its generator's command; `score`, `judge`, `baselines`, `respond`: its part of the scoring commands
# of those names; `options`: its pieces of those commands' options, their help and defaults (`said`); `settings`:
# its scorer's fixed settings; `commands`: the package of its own subcommands, one module each (`cli.py`); `view`:
# what the explorer shows)
PARTS = {
    "realcompanion": {"release": "realcompanion.release:Release", "stamp": "realcompanion.stamp:stamp",
                      "renderers": "realcompanion.datasheet:renderers",
                      "status": "realcompanion.formats.realcompanion.card:status",
                      "runner": "realcompanion.validators.realcompanion.run:REALCOMPANION",
                      "catalogue": "realcompanion.validators.realcompanion.catalogue:CATALOGUE",
                      "format_rules": "realcompanion.validators.realcompanion:FORMAT_RULES",
                      "format_schemas": "realcompanion.validators.realcompanion:FORMAT_SCHEMAS",
                      "block_schema": "realcompanion.formats.realcompanion:SCHEMA_FILE",
                      "tracks": "realcompanion.formats.realcompanion:TRACKS",
                      "synth": "realcompanion.formats.realcompanion.synth.command:run",
                      "score": "realcompanion.formats.realcompanion.score:run",
                      "judge": "realcompanion.formats.realcompanion.judge:run",
                      "baselines": "realcompanion.formats.realcompanion.baselines:run",
                      "respond": "realcompanion.formats.realcompanion.respond:run",
                      "options": "realcompanion.formats.realcompanion.options:OPTIONS",
                      "settings": "realcompanion.formats.realcompanion.scoring.settings",
                      "commands": "realcompanion.formats.realcompanion.commands",
                      "view": "realcompanion.formats.realcompanion.view:VIEW"},
    "groupassist": {"release": "realcompanion.formats.groupassist:GroupAssistRelease",
                    "stamp": "realcompanion.formats.groupassist.synth:stamp",
                    "renderers": "realcompanion.formats.groupassist.datasheet:renderers",
                    "status": "realcompanion.formats.groupassist.card:status",
                    "runner": "realcompanion.validators.groupassist.run:GROUPASSIST",
                    "catalogue": "realcompanion.validators.groupassist.catalogue:CATALOGUE",
                    "format_rules": "realcompanion.validators.groupassist:FORMAT_RULES",
                    "format_schemas": "realcompanion.validators.groupassist:FORMAT_SCHEMAS",
                    "synth": "realcompanion.formats.groupassist.synth:run",
                    "score": "realcompanion.formats.groupassist.judged:run",
                    "judge": "realcompanion.formats.groupassist.judging:run",
                    "baselines": "realcompanion.formats.groupassist.baselines:run",
                    "respond": "realcompanion.formats.groupassist.respond:run",
                    "options": "groupassist/options.json",
                    "view": "realcompanion.formats.groupassist.view:VIEW"},
}
# Formats whose releases carry a participant's message stream, which declared rules of the stream kinds read
STREAMS = ("realcompanion",)

VERSIONS: dict[str, dict] = {
    "2.0.0": {
        "recent_window": 10,  # messages before the probe (gate E, Table 24 row E; Table 34's first window)
        "session_gap_minutes": 30,  # a new session after a longer gap (ARI9, STR1)
        "long_range_min_days": 30,  # long_range span (STR3)
        "confidence_bands": [0.5, 0.8],  # cut points of confidence_label (ARI5)
    },
}
LATEST = max(VERSIONS, key=lambda v: tuple(int(p) for p in v.split(".")))


def constants(format_version) -> dict:
    """The constants of a format version; of the latest version when it is unknown (FMT1 reports that)."""
    return VERSIONS.get(format_version, VERSIONS[LATEST])


def part(format_name: str, name: str):
    """The part `name` of a format (PARTS), imported on first use: `module:attribute`, a whole module, or a JSON
    file of the formats' folder (`<format>/<file>.json`), read without importing the format."""
    from importlib import import_module

    entry = PARTS[format_name][name]
    if entry.endswith(".json"):
        return read_json(Path(__file__).parent / entry)
    module, _, attribute = entry.partition(":")
    found = import_module(module)
    return getattr(found, attribute) if attribute else found


def said(key: str) -> list:
    """What each format's `options` part says of `key`, in the order of FORMATS; a format that says nothing of it
    is left out."""
    return [found[key] for name in FORMATS if "options" in PARTS[name] and key in (found := part(name, "options"))]


def open_release(root, **options):
    """The release at `root`, opened as the format its descriptor names (`options`: those of `Release`)."""
    return part(format_of(root), "release")(root, **options)


def format_of(root) -> str:
    """The format whose block the descriptor carries; a descriptor with a format's key that is not an object, with
    two blocks, or with none (a generic data package) is a ReadError saying which formats there are."""
    descriptor = Path(root) / "datapackage.json"
    if not descriptor.exists():
        raise ReadError(descriptor, "no such file: not a release folder")
    found = read_json(descriptor)
    if not isinstance(found, dict):
        raise ReadError(descriptor, "must be an object (a Data Package descriptor)")
    for name in FORMATS:
        if name in found and not isinstance(found[name], dict):
            raise ReadError(descriptor, f"'{name}' must be an object: the {TITLES[name]} format's block", field=name)
    blocks = [name for name in FORMATS if name in found]
    if len(blocks) > 1:
        raise ReadError(descriptor, f"carries more than one format block ({', '.join(blocks)})")
    if not blocks:
        raise ReadError(descriptor, no_block())
    return blocks[0]


def no_block(wanted: str | None = None) -> str:
    """The refusal of a descriptor without the format block a command reads (`wanted`, or any): the formats there
    are, by their blocks, and what checks a data package of none of them."""
    known = "; ".join(f"{title}: a '{name}' block" for name, title in TITLES.items())
    head = f"no '{wanted}' block" if wanted else "no format block"
    return f"{head}, so not a release this package reads ({known}); {GENERIC}"
