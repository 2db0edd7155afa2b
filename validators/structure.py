"""Structure: fields, types and constraints, straight from the schemas in `schemas/`.

A resource that fails one of the STRUCTURE_RULES blocks the rules that read it
(they are reported as skipped), so a type error is reported once, as itself,
and not as a cascade of downstream failures.
"""
from __future__ import annotations

import pandas as pd

from realcompanion.nested import column_validators
from realcompanion.schemas import RESOURCES

from .catalogue import combined, failures, frame_rule, release_rule

STRUCTURE_RULES = ("SCH1", "SCH2", "SCH3", "FLD2")
# RFC 3339 with an explicit offset; Table Schema has no pattern for datetime fields, so the rule carries it
RFC3339 = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"


@release_rule("SCH1", "error", "structure", RESOURCES,
              "every record has exactly the declared fields, each of its declared type")
def declared_fields(ctx) -> pd.DataFrame:
    parts = []
    for name, bad in ctx.release.invalid_rows.items():
        key = ctx.release.primary_key(name)
        for item in bad:
            row, field = item["row"], item["field"]
            value = str(row.get(field, ""))[:80].encode("utf-8", "backslashreplace").decode()
            named = ":".join(str(row[k]) for k in key) if key and all(row.get(k) for k in key) else None
            parts.append(failures(name, [named or f"line {item['line']}"], field, [value],
                                  f"line {item['line']}: {item['message'][:160]}"))
    return combined(parts)


def table_model(release, name: str):
    """The pandera model of a resource, built from its Table Schema; Arrow already enforced the types."""
    from pandera.io.pandas_io import from_frictionless_schema

    schema = from_frictionless_schema(release.table_schema(name))
    schema = schema.update_columns({c: {"dtype": None, "coerce": False} for c in schema.columns})
    schema.coerce = False
    return schema


@release_rule("SCH2", "error", "structure", RESOURCES,
              "every field meets its Table Schema constraints: required, enum, pattern, range, unique, primary key")
def table_constraints(ctx) -> pd.DataFrame:
    return constraint_failures(ctx, RESOURCES)


def constraint_failures(ctx, resources) -> pd.DataFrame:
    """Each resource's rows that break its Table Schema constraints, checked by pandera."""
    from pandera.errors import SchemaErrors

    parts = []
    for name in resources:
        frame = ctx.frame(name)
        try:
            table_model(ctx.release, name).validate(frame, lazy=True)
        except SchemaErrors as exc:
            cases = exc.failure_cases
            ids = ctx.row_ids(name)
            index = pd.to_numeric(cases["index"], errors="coerce")
            rows = [ids.iloc[int(i)] if pd.notna(i) else "(table)" for i in index]
            parts.append(failures(name, rows, cases["column"].fillna("").astype(str),
                                  cases["failure_case"].astype(str), "violates " + cases["check"].astype(str)))
    return combined(parts)


@release_rule("SCH3", "error", "structure", RESOURCES,
              "every nested field (lists, required_context, memory_bearing, trace) matches its JSON Schema")
def nested_fields(ctx) -> pd.DataFrame:
    parts = []
    for name in RESOURCES:
        ids = ctx.row_ids(name)
        for field, validator in column_validators(ctx.release, name).items():
            for error in validator.iter_errors(ctx.table(name).column(field).to_pylist()):
                position, *path = error.instance_path
                where = ".".join(str(p) for p in [field, *path])
                parts.append(failures(name, [ids.iloc[position]], where, [str(error.instance)[:80]],
                                      error.message[:160]))
    return combined(parts)


@release_rule("ID1", "error", "structure", RESOURCES,
              "every record's own identifier carries its participant_id as prefix")
def own_participant(ctx) -> pd.DataFrame:
    import pyarrow.compute as pc

    parts = []
    for name in RESOURCES:
        key, *rest = ctx.release.primary_key(name)
        if rest:  # a composite key holds participant_id itself
            continue
        ids = ctx.table(name).column(key)
        prefix = pc.list_element(pc.split_pattern(ids, ":", max_splits=1), 0)
        bad = pc.not_equal(prefix, ctx.table(name).column("participant_id")).to_numpy(zero_copy_only=False)
        frame = ctx.frame(name)
        parts.append(failures(name, frame[key][bad], key, frame["participant_id"][bad].astype(str),
                              "identifier prefix differs from participant_id"))
    return pd.concat(parts)


@frame_rule("FLD1", "error", "structure", "source", "text",
            "a message's text is empty only when it carries a media marker")
def text_or_media(ctx, frame):
    return (frame["text"].str.len() > 0) | frame["media"].notna()


@frame_rule("FLD2", "error", "structure", "source", "timestamp",
            "a timestamp is RFC 3339 with an explicit UTC offset (its date is the participant's local day)")
def rfc3339(ctx, frame):
    return frame["timestamp"].str.match(RFC3339)
