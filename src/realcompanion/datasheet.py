"""DATASHEET.md: hand-written answers to the datasheet questions, with every number generated.

A datasheet that restates counts by hand goes wrong the first time the files
change. Here the prose never carries a count, a parameter or a vocabulary:
those live in blocks between `<!-- generated:NAME -->` markers, rendered from
the files, datapackage.json, schemas/vocabulary.json and the rule catalogue.
`stale()` is what `datasheet --check` and `publish` call.
"""
from __future__ import annotations

import json
from functools import partial
from typing import Callable

from .card import licences, members, status
from .files import read_text, write_own
from .formats import constants
from .generated import fill_blocks, markdown_table
from .names import DATASHEET
from .release import Release
from .schemas import enum_of
from .stamp import declared

NULL = "null"


def counts(release: Release, stamped: dict) -> str:
    """Records per participant and resource, with totals: what `realcompanion stamp` records, from the files."""
    rows = [{"participant": pid, **{name: per.get(name, 0) for name in release.resources}}
            for pid, per in sorted(stamped["participants"].items())]
    rows.append({"participant": "**total**", **{name: stamped["rows"][name] for name in release.resources}})
    return markdown_table(rows)


def spans(release: Release) -> str:
    """Per participant: first and last local day, span, active days, sessions, messages by sender, media messages."""
    import pandas as pd

    source = release.table("source").select(["participant_id", "timestamp", "session", "sender", "media"]).to_pandas()
    source["day"] = pd.to_datetime(source["timestamp"].str.slice(0, 10))
    rows = []
    for pid, messages in source.groupby("participant_id", sort=True):
        first, last = messages["day"].min(), messages["day"].max()
        senders = messages["sender"].value_counts()
        rows.append({"participant": pid, "first day": first.date().isoformat(), "last day": last.date().isoformat(),
                     "span (days)": (last - first).days + 1, "active days": messages["day"].nunique(),
                     "sessions": messages["session"].nunique(),
                     **{f"{s} messages": int(senders.get(s, 0)) for s in release.schemas.vocabulary["sender"]},
                     "media messages": int(messages["media"].notna().sum())})
    return markdown_table(rows)


def _member(table, dotted: str):
    """A column or struct member by dotted name (`trace.C.relabeled`), a struct kept whole."""
    import pyarrow.compute as pc

    head, *rest = dotted.split(".")
    column = table.column(head)
    for part in rest:
        column = pc.struct_field(column, part)
    return column


def _label(value) -> str:
    """A value as it is written in the JSON files (`true`, `[0.5, 0.8]`), strings as they are."""
    return value if isinstance(value, str) else json.dumps(value)


def _distribution(column, values: list | None, nullable: bool) -> str:
    """`value count` for each allowed value (or present/null when the field has no closed set), nulls last."""
    nulls = column.null_count
    if values is None:
        return f"present {len(column) - nulls} · {NULL} {nulls}"
    counts = column.to_pandas().value_counts()
    parts = [f"`{_label(value)}` {int(counts.get(value, 0))}" for value in values]
    return " · ".join(parts + ([f"{NULL} {nulls}"] if nullable else []))


def distributions(release: Release) -> str:
    """For every closed-vocabulary, boolean or nullable field and struct member: how many rows take each value."""
    vocabulary = release.schemas.vocabulary
    parts = []
    for name in release.resources:
        table, rows = release.table(name), []
        for dotted, node, nullable in members(release, name):
            kind = node.get("type")
            if "vocabulary" in node:
                values = enum_of(vocabulary, node["vocabulary"])
            elif "boolean" in (kind if isinstance(kind, list) else [kind]):
                values = [True, False]
            elif nullable:
                values = None
            else:
                continue
            rows.append({"field": f"`{dotted}`", "rows by value": _distribution(_member(table, dotted), values, nullable)})
        parts.append(f"#### `{name}`\n\n{markdown_table(rows)}\n")
    return "\n".join(parts)


def tiers(release: Release) -> str:
    """Sampling bucket against the tier the context shape gives, on scoreable chat rows other than cold opens
    (paper Table 17); a release without `chat` says so, rather than cross nothing into a table of zeros."""
    import pandas as pd

    if "chat" in release.absent:
        return "The release leaves out `chat`: no sampled rows."
    chat = release.table("chat").select(["sampled_as", "tier", "scoreable", "cold_open"]).to_pandas()
    chat = chat[chat["scoreable"] & ~chat["cold_open"]]  # Table 17's 1,533: cold opens are not sampled by tier
    tier = release.schemas.vocabulary["tier"]
    table = pd.crosstab(chat["sampled_as"], chat["tier"]).reindex(index=tier, columns=tier, fill_value=0)
    return markdown_table([{"sampled as": f"`{bucket}`", **{f"`{t}`": int(table.loc[bucket, t]) for t in tier}}
                           for bucket in tier])


def parameters(release: Release) -> str:
    """The release's identity and every parameter of its `realcompanion` block that is not a per-file declaration."""
    params, vocabulary = release.params, release.schemas.vocabulary
    rows = [{"parameter": "version", "value": release.version},
            {"parameter": "created", "value": release.descriptor.get("created", "")},
            {"parameter": "licenses", "value": ", ".join(licences(release))}]
    fixed = constants(params.get("format_version"))
    rows = [dict(row, fixed="") for row in rows]
    rows += [{"parameter": f"realcompanion.{key}", "value": _label(value),
              "fixed": f"format {params.get('format_version')}" if key in fixed else ""}
             for key, value in params.items() if not isinstance(value, dict)]
    labels, cuts = vocabulary["confidence_label"], params["confidence_bands"]
    bands = " ≤ ".join(f"{label} < {cut}" for label, cut in zip(labels, cuts)) + f" ≤ {labels[-1]}"
    return (markdown_table(rows)
            + "\n\nA parameter marked *fixed* decides what VALID means: it is a constant of the format version "
              "(`src/realcompanion/formats.py`), the descriptor carries a copy, and rule FMT1 fails a release whose "
              "copy differs. The others describe this release."
            + f"\n\nConfidence bands: `{bands}` (a value equal to a cut point takes the upper band).")


def vocabulary(release: Release) -> str:
    """The tier rule with each tier's chat categories, and the sizes of the other closed vocabularies. A tier the
    format does not have (INT7 fails it) has no rule to print: the datasheet of an invalid release still renders."""
    vocab = release.schemas.vocabulary
    rows = [{"tier": f"`{tier}`", "rule": vocab["tier_rule"].get(tier, "(none: rule INT7 fails this vocabulary)"),
             "categories": ", ".join(f"`{c}`" for c in vocab["chat_category"].get(tier, []))} for tier in vocab["tier"]]
    slots = vocab["persona_slot"]
    by_category = ", ".join(f"{category} {list(slots.values()).count(category)}"
                            for category in vocab["persona_category"])
    return (markdown_table(rows)
            + f"\n\nProfile fields: {len(vocab['profile_field'])}. Persona slots per participant: {len(slots)} "
              f"({by_category}). Question categories: {len(vocab['qa_category'])}. "
              f"Withdrawal codes: {len(vocab['withdrawn'])}.")


def files(release: Release) -> str:
    """Each data file's size and sha256, computed from the file (the format's `declared` has read every table, so
    every digest is known)."""
    return markdown_table([{"resource": f"`{name}`", "path": f"`{release.resource(name)['path']}`",
                            "bytes": release.path(name).stat().st_size, "sha256": f"`{release.sha256[name]}`"}
                           for name in release.resources])


def rules(release: Release) -> str:
    """The validation rules the validator runs on this release: its format's catalogue and its declared rules, those
    that judge a resource it carries."""
    from .formats import part
    from .tracks import judged_by
    from .validators.declared import declared_rules

    every = part(release.BLOCK, "catalogue").select(None, declared_rules(release))
    return markdown_table([{"id": f"`{rule.id}`", "severity": rule.severity, "family": rule.family,
                            "statement": rule.statement, "paper": rule.paper} for rule in judged_by(every, release)])


def renderers(release: Release) -> dict[str, Callable[[], str]]:
    """One renderer per block; `counts` reads `stamp.declared`, which hashes every data file `files` lists."""
    stamped = declared(release)
    blocks = {"status": status, "counts": partial(counts, stamped=stamped), "spans": spans,
              "distributions": distributions, "tiers": tiers, "parameters": parameters, "vocabulary": vocabulary,
              "files": files, "rules": rules}
    return {name: partial(render, release) for name, render in blocks.items()}


def _render(release: Release) -> tuple[str, list[str]]:
    """DATASHEET.md with its generated blocks filled by the renderers of the release's format."""
    from .formats import part

    return fill_blocks(read_text(release.root / DATASHEET), part(release.BLOCK, "renderers")(release))


def check(release: Release) -> list[str]:
    """Names of the generated blocks of DATASHEET.md that disagree with the files of an open release (empty = current)."""
    return _render(release)[1]


def stale(root) -> list[str]:
    """`check` of the release at `root` (either format)."""
    from .formats import open_release

    return check(open_release(root))


def write(root) -> list[str]:
    """Re-render every generated block of DATASHEET.md (either format); returns the blocks that were stale."""
    from .formats import open_release

    release = open_release(root)
    text, changed = _render(release)
    write_own(release.root, DATASHEET, text)
    return changed
