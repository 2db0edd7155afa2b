"""Structure: fields, types and constraints, straight from the schemas in `schemas/`.

A row that fails one of the STRUCTURE_RULES is set aside from the rules that
read its resource (the run says how many rows each rule set aside), so a type
error is reported once, as itself, and every other row is still checked.
"""
from __future__ import annotations

import json
from decimal import Decimal
from functools import lru_cache

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from realcompanion.formats import VERSIONS
from realcompanion.names import STALE
from realcompanion.nested import cells, column_validators
from realcompanion.release import FLOAT_EXACT
from realcompanion.schemas import RFC3339, arrow_pattern, missing_values, names, schema_reason

from .catalogue import as_text, combined, failure_rows, failures
from .context import runs

STRUCTURE_RULES = ("SCH1", "SCH2", "SCH3", "FLD2")


def declared_fields(ctx) -> pd.DataFrame:
    rows = []  # one tuple per failing record, one frame at the end: a frame per record costs ms each
    for name, bad in ctx.release.invalid_rows.items():
        ids, lines = ctx.row_ids(name).to_numpy(), ctx.lines(name)
        wanted = np.array([item["line"] for item in bad])
        at = np.minimum(np.searchsorted(lines, wanted), len(lines) - 1)
        kept = lines[at] == wanted if len(lines) else np.zeros(len(bad), bool)
        for item, position, in_place in zip(bad, at.tolist(), kept.tolist()):
            row, field = item["row"], item["field"]
            value = as_text(row.get(field))[:80].encode("utf-8", "backslashreplace").decode()
            # a context that keeps set-aside records in place names them by row
            rows.append((name, ids[position] if in_place else key_of(row, ctx.release.primary_key(name), item["line"]),
                         field, value, f"line {item['line']}: {item['message'][:160]}"))
    return failure_rows(rows)


def key_of(record: dict, key: list[str], line: int) -> str:
    """A record's name in a report: its primary key fields joined by ':', or `line N` when one is missing."""
    parts = [record.get(k) for k in key]
    return ":".join(map(str, parts)) if key and all(p is not None for p in parts) else f"line {line}"


def table_model(release, name: str, exact=()):
    """The pandera model of a resource (`_model`), built once a process for each Table Schema and set of `exact`
    fields: a process that validates again (a test, a scorer, the explorer) meets the same schemas in copy after
    copy, and building one took about a tenth of a specimen's validation."""
    return _model(json.dumps(release.table_schema(name)), tuple(sorted(exact)))


@lru_cache(maxsize=64)
def _model(table_schema: str, exact: tuple[str, ...]):
    """The pandera model of a Table Schema (JSON text), built by pandera's Frictionless reader; Arrow
    already enforced the types. The reader is given names, types, constraints and the key, which are all it reads
    (Frictionless judged the rest in the descriptor's Data Package version; read alone, a v2 schema would be
    refused as v1). It drops a field's `format` and exclusive bounds: a uuid field (the only format besides the
    default a Table Schema of the format may name, descriptor.schema.json) and an exclusive bound get their checks
    here; a datetime's range is `_instants`' to check. The fields named in `exact` hold Frictionless's own values
    (`_exactly`), and their bounds and enum are read as it reads them; a datetime's enum is read as instants."""
    from pandera.io.pandas_io import from_frictionless_schema
    from pandera.pandas import Check

    table_schema = json.loads(table_schema)
    constraints = {f["name"]: _as_compared(f, f["name"] in exact) for f in table_schema["fields"]}
    read = {"fields": [{"name": f["name"], "type": f["type"], "constraints": {
        k: v for k, v in constraints[f["name"]].items()
        if k not in EXCLUSIVE and not (f["type"] == "datetime" and k in RANGE) and not (f["type"] == "string" and
                                                                                         k == "pattern")}}
        for f in table_schema["fields"]]}
    schema = from_frictionless_schema(read | {k: table_schema[k] for k in ("primaryKey",) if k in table_schema})
    added = {f["name"]: [Check.str_matches(UUID)] * (f.get("format") == "uuid") + [
        getattr(Check, check)(constraints[f["name"]][k]) for k, check in EXCLUSIVE.items()
        if k in constraints[f["name"]] and f["type"] != "datetime"] + [
        _matches(pattern) for pattern in [constraints[f["name"]].get("pattern")] if f["type"] == "string" and pattern]
        for f in table_schema["fields"]}
    schema = schema.update_columns({c: {"dtype": None, "coerce": False} | (  # one update: each copies the schema
        {"checks": [*schema.columns[c].checks, *added[c]]} if added.get(c) else {}) for c in schema.columns})
    schema.coerce = False
    return schema


def _matches(pattern: str):
    """The check of a string field's `pattern`, by Arrow (`schemas.arrow_pattern`: in linear time, where pandas's
    `str.match` fell back to Python's backtracking search), named as pandera names its own check of a Frictionless
    pattern, which the report reads (`_declared_patterns`)."""
    from pandera.pandas import Check

    anchored = arrow_pattern(pattern)
    return Check(lambda values: pd.Series(pc.match_substring_regex(pa.array(values, pa.string(), from_pandas=True),
                                                                   anchored).fill_null(True), index=values.index),
                 name=f"str_matches('^{pattern}$')")


def _as_compared(field: dict, exact: bool) -> dict:
    """A field's constraints, the values it compares cells with read as its cells are: a datetime's enum as instants
    (`_instant`), the bounds and enum of a number read exactly as Frictionless reads them (`frictionless_number`)."""
    constraints = dict(field.get("constraints") or {})
    enum = constraints.get("enum")
    if field["type"] == "datetime" and isinstance(enum, list):
        constraints["enum"] = _instant(pd.Series(enum, dtype=object)).tolist()
    if exact and field["type"] == "number":
        constraints.update({k: frictionless_number(v) for k, v in constraints.items() if k in RANGE})
        if isinstance(enum, list):
            constraints["enum"] = list(map(frictionless_number, enum))
    return constraints


def frictionless_number(value):
    """A number as Frictionless reads it: an integer as written, a float as the decimal it prints as."""
    return Decimal(repr(value)) if isinstance(value, float) else value


def _exactly(ctx, name: str) -> dict[str, pd.Series]:
    """The number fields whose values, and the number and integer fields whose bounds or enum, reach ±2^53, where a
    64-bit float holds only some integers (and pandas compares no integer beyond ±2^63), each with its values as
    Frictionless reads them, to compare exactly: an integer as written, a number as the decimal its float prints as
    (Frictionless reads `1.152921504606847e18` as 1152921504606847000, the float is 2^60). A number field holds no
    integer beyond ±2^53 here: the reader set it aside (SCH1)."""
    out = {}
    for field in ctx.release.table_schema(name)["fields"]:
        constraints = field.get("constraints") or {}
        if field.get("type") not in ("number", "integer"):
            continue
        column = ctx.column(name, field["name"])
        limits = [constraints[k] for k in RANGE if k in constraints] + list(constraints.get("enum") or [])
        if (field["type"] == "number" and (pc.max(pc.abs(column)).as_py() or 0) >= FLOAT_EXACT) or any(
                isinstance(v, (int, float)) and abs(v) >= FLOAT_EXACT for v in limits):
            out[field["name"]] = pd.Series(map(frictionless_number, column.to_pylist()), index=ctx.frame(name).index,
                                           dtype=object)
    return out


# a uuid as RFC 4122 writes it; Frictionless's reader (Python's UUID) also takes braces, a urn: prefix or no hyphens
UUID = r"^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$"


def table_constraints(ctx) -> pd.DataFrame:
    """Each resource's rows that break its Table Schema constraints, the core's and a fork's, checked by pandera."""
    from pandera.errors import SchemaErrors

    parts = []
    for name in ctx.release.resources:
        frame, blank = as_frictionless_reads(ctx.frame(name), ctx.release.table_schema(name))
        if blank is not None and blank.any():
            parts.append(failures(name, ctx.row_ids(name)[blank.to_numpy()], "", "", BLANK))
        parts += _instants(ctx, name, frame)
        exact = _exactly(ctx, name)
        checked = frame.assign(**exact)
        try:
            table_model(ctx.release, name, exact).validate(_judged(ctx, name, checked), lazy=True)
        except SchemaErrors as exc:
            cases = exc.failure_cases  # empty where pandera's only finding is a repeated null, which unique allows
            index = pd.to_numeric(cases["index"], errors="coerce")
            key = cases["check"].eq(KEY_REPEATED)  # pandera: a case per field of the key; here one line a row
            one = ~(key & index.where(key).duplicated())
            cases, index = cases[one].assign(column=cases["column"].mask(key, "").fillna("").astype(str),
                                             failure_case=cases["failure_case"].mask(key, "")), index[one]
            repeated = cases["check"].isin([REPEATED, KEY_REPEATED])
            told = pd.Series(None, index=cases.index, dtype=object)  # where another holder lies, among every
            if repeated.any():  # holder, a record the reader set aside included
                told[repeated] = _repeated(ctx, name, checked, cases["column"][repeated], index[repeated])
            kept = ~index.isin(ctx.set_aside_at(name))  # a record the reader set aside is SCH1's to report
            cases, index, told = cases[kept], index[kept], told[kept]
            if cases.empty:
                continue
            named = np.append(ctx.row_ids(name).to_numpy(dtype=object), "(table)")  # a case of no row: last
            rows = named[index.fillna(-1).astype(int).to_numpy()]
            column, check = cases["column"], cases["check"].astype(str)
            said = _named(ctx.release.table_schema(name))  # which vocabulary or identifier the check is a copy of
            shown = _declared_patterns(ctx.release.table_schema(name))
            message = [t if isinstance(t, str) else said.get((c, k.split("(")[0]), "") + "violates " + shown.get((c, k), k)
                       for c, k, t in zip(column.tolist(), check.tolist(), told.tolist())]
            parts.append(failures(name, rows, column, _as_written(ctx, name, index, column, cases["failure_case"]),
                                  message))
    if parts and ctx.release.schemas.stale():  # an enum or pattern may be an old copy of the vocabulary
        parts = [part.assign(message=part["message"] + f" (schema copies are stale: {STALE})") for part in parts]
    return combined(parts)


REPEATED, KEY_REPEATED = "field_uniqueness", "multiple_fields_uniqueness"  # pandera's unique and composite key checks


def _judged(ctx, name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """The rows pandera judges: all but the records the reader set aside that hold no value a `unique` field or the
    primary key compares, one of which stays. Every case on a set-aside record is SCH1's, so only its part as another
    holder of a value counts, and those records hold the same nothing; pandera made a case for each of their
    required fields (fifteen million for a million `{}` lines, 1.7 GB). Rows keep their positions as labels."""
    aside = ctx.set_aside_at(name)
    if len(aside) < 2:
        return frame
    table_schema = ctx.release.table_schema(name)
    compared = list(dict.fromkeys([*ctx.release.primary_key(name), *(
        f["name"] for f in table_schema["fields"] if (f.get("constraints") or {}).get("unique"))]))
    empty = aside[~frame[compared].iloc[aside].notna().any(axis=1).to_numpy()] if compared else aside
    return frame.drop(index=frame.index[empty[1:]]) if len(empty) > 1 else frame


def _repeated(ctx, name: str, frame: pd.DataFrame, column: pd.Series, index: pd.Series) -> list[str]:
    """What a row repeating a unique field's value, or the primary key (`column` ""), is told: the line of another
    row holding it. Each bears the same key, so the rows' names alone did not tell them apart."""
    key = ctx.release.primary_key(name)
    out = pd.Series("", index=column.index, dtype=object)
    for field in column.unique():
        at = (column == field).to_numpy()
        positions = index[at].astype(int).to_numpy()
        fields = [field] if field else key
        what = "value not unique" if field else f"primary key ({', '.join(key)}) not unique"
        out[at] = [f"{what}: also on line {line}" + (f" ({n} rows hold it)" if n > 2 else "")
                   for line, n in zip(*_another_holder(ctx.lines(name)[positions], frame[fields].iloc[positions]))]
    return out.tolist()


def _another_holder(lines: np.ndarray, held: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """For each row of `held` (the rows holding a repeated value, at file `lines`): the line of another row holding
    the same values (the first one, for every row but the first, which is given the second), and how many do."""
    group = held.groupby(list(held.columns), dropna=False, sort=False).ngroup().to_numpy()
    order = np.lexsort((lines, group))
    grouped, at = group[order], lines[order]
    starts, sizes = runs(grouped)
    first = np.repeat(starts, sizes)
    other, count = np.empty(len(order), dtype=int), np.empty(len(order), dtype=int)
    other[order] = np.where(at == at[first], at[np.minimum(first + 1, len(at) - 1)], at[first])
    count[order] = np.repeat(sizes, sizes)
    return other, count


def as_frictionless_reads(frame: pd.DataFrame, table_schema: dict) -> tuple[pd.DataFrame, pd.Series | None]:
    """The frame with each text cell that is one of its field's missing values (`missingValues` of the field, else
    of the schema; Table Schema's default: `""`) read as null, as Frictionless reads it, and which records are then
    blank (every field null), or None where a field is required or a key (a blank record breaks that constraint,
    reported as such). The format's own resources declare no missing values and require fields: they cost nothing
    here. No other type's value can print as a missing value (`schemas.check_read_alike`). A unique, key or enum
    field's values are read as Frictionless compares them (`_compared`)."""
    text = {f["name"]: missing for f in table_schema["fields"]
            if f.get("type") == "string" and (missing := missing_values(table_schema, f))}
    if text:
        frame = frame.assign(**{c: frame[c].mask(frame[c].isin(missing)) for c, missing in text.items()})
    compared = _compared(table_schema)
    if compared:
        frame = frame.assign(**{c: read(frame[c]) for c, read in compared.items()})
    keyed = table_schema.get("primaryKey") or any(f.get("constraints", {}).get("required")
                                                  for f in table_schema["fields"])
    return frame, None if keyed else frame.isna().all(axis=1)


def _compared(table_schema: dict) -> dict:
    """The fields whose values Frictionless compares otherwise than their text or float, each with how it reads
    them: a unique, key or enum datetime as its instant, a unique or key number with -0 as 0."""
    key = names(table_schema.get("primaryKey") or [])
    out = {}
    for field in table_schema["fields"]:
        constraints = field.get("constraints") or {}
        unique = constraints.get("unique") or field["name"] in key
        if field.get("type") == "datetime" and (unique or constraints.get("enum")):
            out[field["name"]] = _instant
        elif field.get("type") == "number" and unique:
            out[field["name"]] = lambda column: column + 0.0  # IEEE: -0.0 + 0.0 is 0.0
    return out


def _instant(column: pd.Series) -> pd.Series:
    """A datetime column (or enum) as the instants it names (to the microsecond, as Frictionless reads them):
    `00:00:00Z` and `01:00:00+01:00` are the same value to Frictionless's enum, unique and primary key checks. A
    value that is not RFC 3339 with an offset stays as written, for FLD2 (and in an enum, Frictionless finds no
    value with an offset equal to one without)."""
    column = column.astype(object)
    parsed = pd.to_datetime(column.where(column.str.fullmatch(RFC3339).eq(True)), utc=True, format="ISO8601",
                            errors="coerce").dt.floor("us")
    return column.where(parsed.isna(), parsed.dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ"))


def _as_written(ctx, name: str, index: pd.Series, column: pd.Series, values: pd.Series) -> list:
    """Each failure's value as the file writes it, where pandera saw it as Frictionless compares it (`_compared`)."""
    out = values.to_numpy(dtype=object, copy=True)
    for c in _compared(ctx.release.table_schema(name)):
        at = (column == c).to_numpy() & index.notna().to_numpy()
        if at.any():  # one take per field: a row at a time took 8 s for 272,180 failures
            out[at] = ctx.frame(name)[c].take(index[at].astype(int).to_numpy()).tolist()
    return out.tolist()


RANGE = {"minimum": "__ge__", "maximum": "__le__", "exclusiveMinimum": "__gt__", "exclusiveMaximum": "__lt__"}
EXCLUSIVE = {"exclusiveMinimum": "greater_than", "exclusiveMaximum": "less_than"}  # pandera's reader drops them


def _instants(ctx, name: str, frame: pd.DataFrame) -> list[pd.DataFrame]:
    """A datetime field's range constraints, compared as instants as Frictionless compares them (text compares
    `00:30:00+01:00`, the day before in UTC, after `00:00:00Z`); a bound without an offset is read as UTC, and a
    value that is not RFC 3339 is FLD2's to report."""
    parts = []
    for field in ctx.release.table_schema(name)["fields"]:
        bounds = {k: v for k, v in (field.get("constraints") or {}).items() if k in RANGE}
        if field.get("type") != "datetime" or not bounds:
            continue
        values = pd.to_datetime(frame[field["name"]].astype(object), utc=True, format="ISO8601", errors="coerce")
        for key, bound in bounds.items():
            limit = pd.Timestamp(bound)
            limit = limit.tz_localize("UTC") if limit.tz is None else limit
            bad = (values.notna() & ~getattr(values, RANGE[key])(limit)).to_numpy()
            parts.append(failures(name, ctx.row_ids(name)[bad], field["name"], frame[field["name"]][bad],
                                  f"violates {key} {bound} (compared as instants)"))
    return parts


BLANK = "a blank record: every field is null or a missing value (Frictionless's blank-row error)"


def _named(table_schema: dict) -> dict:
    """(field, pandera check) -> what the check's values are: a vocabulary's enum copy, an identifier's pattern, or a
    text the schema asks content of (minLength 1 and no maxLength: a failure is then an empty text, nothing else)."""
    out = {}
    for field in table_schema["fields"]:
        if field.get("vocabulary"):
            out[field["name"], "isin"] = f"not in vocabulary {field['vocabulary']} (schemas/vocabulary.json): "
        if field.get("identifier"):
            out[field["name"], "str_matches"] = _not_a(field["identifier"])
        bounds = field.get("constraints") or {}
        if bounds.get("minLength") == 1 and "maxLength" not in bounds:  # pandera's str_length(1, None) alone
            out[field["name"], "str_length"] = "empty, where the schema asks for content (minLength 1): "
    return out


def _not_a(identifier: str) -> str:
    """How a failure of an identifier's pattern opens (SCH2 on a field, SCH3 on a nested list's items)."""
    return f"not a {identifier} (schemas/vocabulary.json): "


def _declared_patterns(table_schema: dict) -> dict:
    """(field, pandera check) -> the field's `pattern` as its schema declares it: pandera's reader anchors the
    pattern again (as Frictionless does), and its check printed an anchored one as `str_matches('^^...$$')`."""
    return {(f["name"], f"str_matches('^{pattern}$')"): f"pattern {pattern}" for f in table_schema["fields"]
            if isinstance(pattern := (f.get("constraints") or {}).get("pattern"), str)}


SLICE_BYTES = 8 << 20  # a column of up to this many bytes (10x: every column) is converted in slices of 65,536 rows


def nested_fields(ctx) -> pd.DataFrame:
    """Only what a schema can reject is turned into Python objects (`nested.checked_part`), a slice of about
    `SLICE_BYTES` of the column at a time: Python's objects take about six times Arrow's bytes (at 100x paper
    size, slices of 65,536 traces held 294 MB)."""
    parts = []
    kinds = {}  # pattern -> every identifier a fork's vocabulary gives it: naming the last one named a wrong kind
    for kind, pattern in ctx.vocab.get("identifier", {}).items():
        kinds.setdefault(pattern, []).append(kind)
    identifiers = {pattern: _not_a(" or ".join(named)) for pattern, named in kinds.items()}
    for name in ctx.release.resources:
        table = ctx.table(name)
        aside = ctx.set_aside_at(name)  # records SCH1 reports: whatever else is wrong with them is not reported
        kept = np.setdiff1d(np.arange(table.num_rows), aside) if len(aside) else None
        for field, (validator, kind) in column_validators(ctx.release, name, table.schema).items():
            column = table.column(field) if kept is None else table.column(field).take(kept)
            rows = max(1, min(1 << 16, SLICE_BYTES * len(column) // max(column.nbytes, 1)))
            for start, values in cells(column.cast(kind), rows):
                if validator.is_valid(values):  # the common case, about twice as fast as collecting no errors
                    continue
                for error in validator.iter_errors(values):
                    message, (position, *path) = schema_reason(error, identifiers)
                    if error.instance is None and not path:
                        continue  # a null where a required field's value belongs: SCH2's not_nullable line, not two
                    where = ".".join(str(p) for p in [field, *path])
                    at = start + position if kept is None else kept[start + position]
                    row = ctx.row_ids(name).iloc[at]  # the rows are named once one fails
                    parts.append(failures(name, [row], where, [as_text(error.instance)[:80]], message[:160]))
    return combined(parts)


def own_participant(ctx) -> pd.DataFrame:
    """Every resource with a participant_id and a one-field text key, a fork's own resources too (a composite
    key holds participant_id itself)."""
    parts = []
    for name in ctx.release.resources:
        bad = prefix_differs(ctx, name)
        if bad is None:
            continue
        key, frame = ctx.release.primary_key(name)[0], ctx.frame(name)
        parts.append(failures(name, frame[key][bad], key, frame[key][bad],
                              [f"identifier prefix differs from its participant_id, {p}"
                               for p in frame["participant_id"][bad]]))
    return combined(parts)


def prefix_differs(ctx, name: str) -> np.ndarray | None:
    """Row by row, whether the record's own identifier's prefix differs from its participant_id (ID1), or None where
    the resource has no such identifier. Such a row's participant is in doubt: ID1's line names it, and a row citing
    by it is not blamed for citing another participant's records."""
    key, *rest = ctx.release.primary_key(name) or [None]
    if key is None or rest or "participant_id" not in ctx.table(name).column_names:
        return None
    ids = ctx.table(name).column(key)
    if not pa.types.is_string(ids.type):
        return None
    prefix = pc.list_element(pc.split_pattern(ids, ":", max_splits=1), 0)
    return pc.fill_null(pc.not_equal(prefix, ctx.table(name).column("participant_id")), False).to_numpy(
        zero_copy_only=False)  # a null id or participant_id is SCH2's


def text_or_media(ctx, frame):
    return (frame["text"].str.len() > 0) | frame["media"].notna()


def not_blank(ctx) -> pd.DataFrame:
    """Text fields whose schema asks for content (`minLength`) hold more than whitespace: Table Schema counts a
    space as a character, so `" "` meets `minLength: 1` while stating nothing, as a placeholder a conversion writes
    for a missing answer does. Which fields is the schemas' say, a fork's own fields included."""
    parts = []
    for name in ctx.release.resources:
        for field in ctx.release.table_schema(name)["fields"]:
            column = ctx.table(name).column(field["name"]) if field["name"] in ctx.table(name).column_names else None
            if (field.get("type") != "string" or not field.get("constraints", {}).get("minLength") or column is None
                    or not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type))):
                continue
            rows = np.flatnonzero(pc.fill_null(pc.utf8_is_space(column), False).to_numpy(zero_copy_only=False))
            parts.append(failures(name, ctx.row_ids(name).iloc[rows], field["name"],
                                  ctx.values(name, field["name"], rows), "blank: whitespace only, where the schema "
                                  "asks for content (minLength): null where there is none and the field allows it"))
    return combined(parts)


def calendar(ctx) -> pd.DataFrame:
    """Vectorised in Arrow (`_dated`). A value typed full-width is named so only when its ASCII form
    passes: a full-width 2025-02-30 is no day in ASCII either."""
    parts = []
    for name in ctx.release.resources:
        for field in ctx.release.table_schema(name)["fields"]:
            if field.get("type") not in ("date", "datetime"):
                continue
            column = ctx.table(name).column(field["name"])
            real, shape, year_zero, passes = _dated(column, field["type"])
            bad = pc.and_(pc.is_valid(column), pc.invert(pc.fill_null(passes, False)))
            mask = bad.to_numpy(zero_copy_only=False)
            if mask.any():
                what = "RFC 3339 with an explicit offset" if field["type"] == "datetime" else "a date"
                message = np.full(int(mask.sum()), f"not {what} on a calendar day", dtype=object)
                values = column.filter(bad)
                on_a_day = pc.fill_null(real.filter(bad), False)
                kinds = SHAPES if field["type"] == "datetime" else {RFC3339: TIMED}
                for pattern, reason in kinds.items():  # the shapes converters write, named so they know what to fix
                    shaped = pc.and_(on_a_day, pc.match_substring_regex(values, pattern, ignore_case=True))
                    message[shaped.to_numpy(zero_copy_only=False)] = reason
                well_formed = pc.fill_null(pc.and_(real, shape).filter(bad), False)
                message[pc.and_(well_formed, year_zero.filter(bad)).to_numpy(zero_copy_only=False)] = YEAR_ZERO
                ascii_form = pc.utf8_normalize(values, "NFKC")  # a full-width form as its ASCII character
                typed = pc.and_(pc.not_equal(ascii_form, values), _dated(ascii_form, field["type"])[3])
                message[pc.fill_null(typed, False).to_numpy(zero_copy_only=False)] = FULL_WIDTH
                parts.append(failures(name, ctx.row_ids(name)[mask], field["name"], values.to_pylist(), message))
    return combined(parts)


def _dated(values, kind: str) -> tuple:
    """Of each value of a `kind` ("date" or "datetime") field: whether its first ten characters are a real day
    (parsing and printing the day gives it back: 2025-02-30 does not; printing costs most, and a release has few
    distinct days, so each is decided once), whether it has its type's shape (RFC 3339; a date's ten characters),
    whether its year is 0000 (Arrow's calendar has it, Python's and Frictionless's do not), and whether it passes."""
    day = pc.utf8_slice_codeunits(values, 0, 10)
    days = pc.unique(day)
    parsed = pc.strptime(days, format="%Y-%m-%d", unit="s", error_is_null=True)
    real = pc.take(pc.equal(pc.strftime(parsed, format="%Y-%m-%d"), days), pc.index_in(day, value_set=days))
    shape = pc.match_substring_regex(values, RFC3339) if kind == "datetime" else pc.equal(pc.utf8_length(values), 10)
    year_zero = pc.starts_with(values, "0000")
    return real, shape, year_zero, pc.and_(pc.and_(real, shape), pc.invert(year_zero))


LOWER_CASE = ("a lower-case t or z, which RFC 3339 allows but pandas and Python's datetime do not read (a lower-case "
              "z parses as no time at all): this format writes T and Z upper-case")
SPACED = ("a space between date and time, as Python's str() of a datetime prints it; RFC 3339's grammar has T there: "
          "this format writes T and Z upper-case (datetime.isoformat())")
LEAP = ("a leap second (:60), which RFC 3339 allows but Python's datetime, pandas and Frictionless do not read: "
        "write :59, as POSIX time does")
YEAR_ZERO = ("year 0000, which RFC 3339 allows but Python's datetime and Frictionless do not read (their calendar "
             "starts at year 1): a date the dataset does not know is null where the field allows it")
FULL_WIDTH = ("full-width characters (＋, ：, digits), as a Chinese or Japanese input method types them, which Python's "
              "datetime does not read: write them in ASCII (unicodedata.normalize('NFKC', value))")
TIMED = "a date and time where the local date belongs (YYYY-MM-DD, the timestamp's first ten characters)"
DAY = ("a date without a time of day: a dataset that dates days, not messages, gives each message its day at "
       "00:00 with the offset it assumes (YYYY-MM-DDT00:00:00+00:00), both stated in the datasheet")
# datetime shapes FLD2 names, matched case-blind on a real day: RFC 3339 read case-blind (so t or z), a space for T,
# a leap second in the seconds' place, a day alone
SHAPES = {RFC3339: LOWER_CASE, RFC3339.replace("T", " ", 1): SPACED,
          RFC3339.replace(r":[0-5]\d(\.", r":60(\."): LEAP, r"^\d{4}-\d{2}-\d{2}$": DAY}


def format_constants(ctx) -> pd.DataFrame:
    version = ctx.params.get("format_version")
    if version not in VERSIONS:
        return failure_rows([("", "datapackage.json", f"{ctx.release.BLOCK}.format_version", as_text(version),
                              f"unknown format version; known: {', '.join(sorted(VERSIONS))}")])
    return failure_rows([("", "datapackage.json", f"{ctx.release.BLOCK}.{name}", as_text(ctx.params.get(name)),
                          f"format {version} fixes {as_text(value)}")
                         for name, value in VERSIONS[version].items() if ctx.params.get(name) != value])
