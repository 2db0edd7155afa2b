"""Rules a release declares in its own files: dbt's generic tests and Frictionless's row constraint, as data.

A release holds no code, so a fork states its rules in the file `realcompanion.rules`
of datapackage.json names (JSON or YAML), checked against `declared.schema.json`.
Kinds: `unique` (one or several fields), `not_null`, `accepted_values` (a list or a
vocabulary of schemas/vocabulary.json; list fields item by item), `relationships`
(every id, also each item of a list, resolves to a field of a resource, optionally
of the same participant), `expression` (a row condition evaluated by simpleeval,
never by Python's eval), `cites_before` (every cited message precedes, or with
`inclusive` is at most, the row's anchor message in the stream) and
`count_per_participant` (rows per participant equal a number, a vocabulary's size
or the counts datapackage.json declares). Any rule may narrow its rows with a
`where` expression. Declared rules run in the same pass as the coded ones and are
reported, listed and documented the same way; the core format declares its own
rules of these kinds in the specimen's rules file.
"""
from __future__ import annotations

import ast
import re
from functools import cache, partial
from pathlib import Path

import pandas as pd
import pyarrow as pa

from realcompanion import formats
from realcompanion.descriptor import judged, loaded
from realcompanion.errors import ReadError
from realcompanion.files import read_json, read_text, yaml_loads
from realcompanion.names import STALE
from realcompanion.schemas import enum_of

from .arrow_expression import decided
from .catalogue import Rule, as_text, combined, failures

SCHEMA = Path(__file__).with_name("declared.schema.json")
FAMILY = "declared"
DECLARED_BY = "declared by the release (no source given)"  # `paper`, when a declaration names none
FUNCTIONS = {"len": len, "min": min, "max": max, "abs": abs, "sum": sum, "any": any, "all": all, "round": round,
             "sorted": sorted, "set": set, "str": str, "int": int, "float": float}
CHECKS: dict = {}


def _kind(name: str):
    def register(fn):
        CHECKS[name] = fn
        return fn

    return register


# -- reading the declarations ---------------------------------------------------

def _load(path: Path):
    """The rules file, read as every package file is (`files.read_text`: a regular file, UTF-8); JSON strictly
    (`files.read_json`: no key twice, no NaN, no lone surrogate), YAML as strictly (`files.yaml_loads`)."""
    return yaml_loads(read_text(path), path) if path.suffix in (".yaml", ".yml") else read_json(path)


INT_BITS = 1 << 14  # the longest integer an expression may compute: a rule needs far less, 99999 ** 3999999 far more
ITEMS = 100_000  # the most items and characters a value an expression builds or hands a function may hold: simpleeval's
# own bound on one string or list, counted here at every depth, a shared item each time it is held
DIGITS = 4934  # the most digits `round` may be asked for either side of the point: INT_BITS bits are 4,932 digits
_FORMAT_SIZES = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")


def _too_long(text: str) -> None:
    import simpleeval

    raise simpleeval.IterableTooLong(f"{text} would hold more than {ITEMS:,} items and characters")


def size(value, budget: int = ITEMS) -> int:
    """The items and characters `value` holds, at every depth, a shared item each time it is held (`[[0] * 1000] *
    1000` holds a million), counted only to just past `budget`: the count costs no more than the budget."""
    stack, total = [value], 0
    while stack and total <= budget:
        value = stack.pop()
        if isinstance(value, (str, bytes)):
            total += len(value)
        elif isinstance(value, dict):
            total += 1
            stack += [*value.keys(), *value.values()]
        elif isinstance(value, (list, tuple, set, frozenset)):
            total += 1
            stack += value
        else:
            total += 1
    return total


def _capped(operation, bits, items=None):
    """simpleeval's `operation`, refusing an integer result of more than INT_BITS bits (`bits(a, b)` estimates it),
    and a sequence result holding more than ITEMS (`items(a, b)` counts it, None: none is): simpleeval bounds the
    operands of `**` only, and 99999 ** 3999999 takes half a minute, on every row; it bounds a list's length, not
    what its items hold (a list of a list repeated)."""
    def apply(a, b):
        if type(a) is int and type(b) is int and bits(a, b) > INT_BITS:
            import simpleeval

            raise simpleeval.NumberTooHigh(f"the result would have more than {INT_BITS} bits")
        if items is not None and items(a, b) > ITEMS:
            _too_long("the result")
        return operation(a, b)
    return apply


_SEQUENCES = (str, bytes, list, tuple)


def _repeated(a, b) -> int:
    """What a sequence repeated holds (`*`)."""
    if isinstance(b, _SEQUENCES) and type(a) is int:
        a, b = b, a
    return size(a) * b if isinstance(a, _SEQUENCES) and type(b) is int and b > 0 else 0


def _joined(a, b) -> int:
    """What two sequences joined hold (`+`)."""
    return size(a) + size(b) if isinstance(a, _SEQUENCES) and isinstance(b, _SEQUENCES) else 0


def _formatted(a, b):
    """`%` formatting, refusing a width or precision past ITEMS, or given by `*` ('%999999999d' % 1 is a gigabyte)."""
    if isinstance(a, (str, bytes)):
        text = a if isinstance(a, str) else a.decode("latin-1")
        for width, precision in _FORMAT_SIZES.findall(text):
            if "*" in (width, precision):
                raise ValueError("a width or precision given by '*' is not available")
            if max(int(width or 0), int(precision or 0)) > ITEMS:
                _too_long(f"a width or precision of {max(int(width or 0), int(precision or 0)):,}")
    return a % b


def _bounded(name: str, function):
    """A function of the expression language, refusing an argument that holds more than ITEMS (`size`), a sum that
    starts from anything but a number (adding lists is quadratic) and `round` to more than DIGITS digits (round(1,
    -10**7) computes 10**10000000)."""
    def call(*args, **kwargs):
        if name != "len":
            for value in (*args, *kwargs.values()):
                if size(value) > ITEMS:
                    _too_long(f"the argument of {name}()")
        if name == "round" and len(args) > 1 and type(args[1]) is int and abs(args[1]) > DIGITS:
            raise ValueError(f"round() to more than {DIGITS} digits")
        start = args[1] if len(args) > 1 else kwargs.get("start", 0)
        if name == "sum" and not isinstance(start, (int, float)):
            raise TypeError("sum() adds numbers: its start must be a number")
        return function(*args, **kwargs)
    return call


@cache
def _evaluator_class():
    """simpleeval's evaluator without what lets one row's expression take the machine's memory or time: attribute
    access (a method such as `text.ljust(10**10)`) and comprehensions (each item may build a 100,000-item list); its
    functions bounded (`_bounded`), and no literal or format of more than ITEMS (`[x] * 9999` held in a list 9999
    times; f'{1:>999999999}')."""
    import simpleeval

    class Evaluator(simpleeval.EvalWithCompoundTypes):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            for node in (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp):
                self.nodes.pop(node, None)
            self.functions = {name: _bounded(name, f) for name, f in self.functions.items()}

        def _eval_attribute(self, node):
            raise simpleeval.FeatureNotAvailable(f"attribute access (.{node.attr}) is not available: use the "
                                                 "functions")

        def _eval_list(self, node):
            return _built(super()._eval_list(node))

        def _eval_tuple(self, node):
            return _built(super()._eval_tuple(node))

        def _eval_set(self, node):
            return _built(super()._eval_set(node))

        def _eval_dict(self, node):
            return _built(super()._eval_dict(node))

        def _eval_formattedvalue(self, node):
            if node.format_spec:
                spec = self._eval(node.format_spec)
                if any(int(digits) > ITEMS for digits in re.findall(r"\d+", str(spec))):
                    _too_long(f"the format '{spec}'")
            return super()._eval_formattedvalue(node)

    return Evaluator


def _built(value):
    if size(value) > ITEMS:
        _too_long("the literal")
    return value


def _evaluator():
    import simpleeval

    operators = {**simpleeval.DEFAULT_OPERATORS,
                 ast.Pow: _capped(simpleeval.DEFAULT_OPERATORS[ast.Pow],
                                  lambda a, b: b * a.bit_length() if b > 0 and abs(a) > 1 else 0),
                 ast.Mult: _capped(simpleeval.DEFAULT_OPERATORS[ast.Mult], lambda a, b: a.bit_length() + b.bit_length(),
                                   _repeated),
                 ast.Add: _capped(simpleeval.DEFAULT_OPERATORS[ast.Add], lambda a, b: 0, _joined),
                 ast.Mod: _formatted}
    return _evaluator_class()(functions=FUNCTIONS, operators=operators)


def _parsed(expression: str, path: Path, field: str, names) -> ast.AST:
    """The one expression `expression` is, parsed as simpleeval parses it; one that does not parse, holds more than
    one statement (simpleeval would evaluate the first alone) or names something that is neither a field of the
    resource (`names`), `params` nor a function is one line naming `field`. A name starting with `_` is left to
    simpleeval, which refuses it on every row."""
    try:
        body = ast.parse(expression.strip()).body
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise ReadError(path, f"expression does not parse ({getattr(exc, 'msg', None) or type(exc).__name__})",
                        field=field) from None
    if len(body) != 1 or not isinstance(body[0], ast.Expr):
        raise ReadError(path, "must be one expression (no statement, no `;`)", field=field)
    bound = {n.id for n in ast.walk(body[0]) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    known = set(names) | bound | set(FUNCTIONS) | {"params"}
    unknown = sorted({n.id for n in ast.walk(body[0]) if isinstance(n, ast.Name) and n.id not in known
                      and not n.id.startswith("_")})
    if unknown:
        raise ReadError(path, f"names '{unknown[0]}', which is not a field of the resource", field=field)
    return body[0]


def _fields_named(rule: dict) -> list[tuple[str, str]]:
    """(resource, dotted field) for every field a declaration names."""
    res = rule["resource"]
    named = [(res, f) for f in rule.get("fields", [])]
    named += [(res, rule[key]) for key in ("field", "anchor") if key in rule]
    if "to" in rule:
        named.append((rule["to"]["resource"], rule["to"]["field"]))
    return named


# kinds (and options) that read a participant's message stream, cited by dayid (the formats of formats.STREAMS)
STREAM_KINDS = ("cites_before", "count_per_participant")


def _coded(release) -> dict:
    """The coded catalogue of the release's format (a declared id must be new to it)."""
    return {r.id: r for r in formats.part(release.BLOCK, "catalogue").all_rules()}


def _check_names(release, path: Path, rules: list[dict]) -> None:
    """Every id new, every resource, field, vocabulary and expression one the release has and simpleeval reads;
    kinds that read a message stream only on a release of a format that has one."""
    seen, coded = set(), _coded(release)
    for number, rule in enumerate(rules):
        where = f"rules[{number}]"
        if rule["id"] in seen or rule["id"] in coded:
            raise ReadError(path, f"rule id '{rule['id']}' is already declared", field=f"{where}.id")
        seen.add(rule["id"])
        if release.BLOCK not in formats.STREAMS and (rule["kind"] in STREAM_KINDS or rule.get("same_participant")):
            streams = " or ".join(formats.part(name, "release").TITLE for name in formats.STREAMS)
            raise ReadError(path, f"kind '{rule['kind']}'{' with same_participant' if rule.get('same_participant') else ''}"
                            f" reads the {streams} message stream; not available to this format", field=where)
        for resource, field in [(rule["resource"], None), *_fields_named(rule)]:
            if resource not in (*release.resources, *release.absent, *release.missing):
                raise ReadError(path, f"no resource '{resource}' in datapackage.json", field=f"{where}.resource")
            if field is not None and not _has_field(_typed(release, resource), field):
                raise ReadError(path, f"resource '{resource}' has no field '{field}'", field=where)
        if "vocabulary" in rule and rule["vocabulary"] not in release.schemas.vocabulary:
            raise ReadError(path, f"no vocabulary '{rule['vocabulary']}'", field=f"{where}.vocabulary")
        for key in ("expression", "where"):
            if key in rule:
                _parsed(rule[key], path, f"{where}.{key}", _typed(release, rule["resource"]).names)


def _typed(release, resource: str) -> pa.Schema:
    """The resource's Arrow schema; of one the release leaves out, the format's (a format's declared rule on it
    stays declared, and judges nothing: `tracks.applies`; of a required one it leaves out, the run judges only
    that: TRK1, GT1)."""
    left_out = (*release.absent, *release.missing)
    return release.table(resource).schema if resource in left_out else release.arrow_schema(resource)


def _has_field(schema: pa.Schema, dotted: str) -> bool:
    """Whether the resource typed by `schema` has the field, or struct member by dotted path (`trace.C.tier`)."""
    head, *rest = dotted.split(".")
    if head not in schema.names:
        return False
    kind = schema.field(head).type
    for part in rest:
        if not pa.types.is_struct(kind) or kind.get_field_index(part) < 0:
            return False
        kind = kind.field(part).type
    return True


def _relevance(error):
    """How telling a schema error is: `unevaluatedProperties` last, since it only says that, once another part of a
    rule failed, its properties were left unaccepted; then jsonschema's own order."""
    from jsonschema.exceptions import relevance

    return error.validator != "unevaluatedProperties", *relevance(error)


@cache
def _screen():
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(loaded(SCHEMA))


def _worded(data):
    import jsonschema

    errors = sorted(jsonschema.Draft202012Validator(loaded(SCHEMA)).iter_errors(data),
                    key=lambda e: list(map(str, e.path)))
    return jsonschema.exceptions.best_match(errors, key=_relevance)


def read_declarations(release) -> list[dict]:
    """The rules the release declares (none when datapackage.json names no rules file, or when a path of the
    release leaves its folder: nothing is read then, and INT3 reports the path)."""
    named = release.params.get("rules")
    if named is None:
        return []
    if not isinstance(named, str):
        raise ReadError(release.root / "datapackage.json", "must name one file (a string)", field=f"{release.BLOCK}.rules")
    if release.escapes():  # nothing of a release whose paths leave its folder is read: INT3 (GI3) reports them
        return []
    path = release.root / named
    data = _load(path)
    found = judged(_screen(), data, lambda: _worded(data))
    if found is not None:
        message, at = found
        json_path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in at)
        raise ReadError(path, message, field=json_path.removeprefix("$.") or None)
    _check_names(release, path, data["rules"])
    return data["rules"]


def _reads(rule: dict) -> tuple[str, ...]:
    reads = [rule["resource"]] + ([rule["to"]["resource"]] if "to" in rule else [])
    reads += ["source"] if rule["kind"] in ("cites_before", "count_per_participant") else []
    return tuple(dict.fromkeys(reads))


def declared_rules(release) -> list[Rule]:
    """The release's declared rules as catalogue rules (run, reported and listed like the coded ones)."""
    return as_rules(read_declarations(release))


def as_rules(declarations: list[dict]) -> list[Rule]:
    """Declarations (a release's, or its format's own in `format_rules.json`) as catalogue rules."""
    return [Rule(d["id"], d["severity"], d.get("family", FAMILY), d["statement"], _reads(d),
                 partial(_checked, d), d.get("paper", DECLARED_BY)) for d in declarations]


# -- evaluation helpers -----------------------------------------------------------

def evaluate(ctx, resource: str, expression: str) -> list:
    """The expression's value on every row of the resource (an exception where it cannot be evaluated). Names are
    the row's fields, and `params`, the scalar parameters of the descriptor's format block (always: a field of
    that name, which a fork may add, would set the limit a format rule reads, GM5's max_message_chars); only the
    fields the expression names are read. Arrow decides the rows it can (arrow_expression.py), simpleeval the
    others."""

    evaluator = _evaluator()
    parsed = evaluator.parse(expression)
    table = ctx.table(resource)
    named = {node.id for node in ast.walk(parsed) if isinstance(node, ast.Name)}
    scalars = {k: v for k, v in ctx.params.items() if isinstance(v, (int, float, str))}  # scalars only:
    # simpleeval walks a subscripted container on each access
    out = decided(table, parsed, scalars) or [None] * table.num_rows  # Arrow, where it can decide
    undecided = [n for n, value in enumerate(out) if value is None]
    rows = table.select([c for c in table.column_names if c in named and c != "params"])
    for n, row in zip(undecided, (rows.take(pa.array(undecided, pa.int64())) if len(undecided) < len(out) else rows).to_pylist()):
        evaluator.names = {**row, "params": scalars}
        try:
            out[n] = evaluator.eval(expression, previously_parsed=parsed)
        except Exception as exc:  # noqa: BLE001 - a row the expression cannot read fails the rule, named
            out[n] = exc
    return out


def _where(ctx, rule: dict) -> list:
    """The rule's `where` expression on every row of its resource, evaluated once per run."""
    found = vars(ctx).setdefault("_declared_where", {})
    key = (rule["resource"], rule["where"])
    if key not in found:
        found[key] = evaluate(ctx, *key)
    return found[key]


def _scope(ctx, rule: dict) -> pd.Index:
    """Positions of the rows the rule checks: all, or those where its `where` expression holds."""
    rows = pd.RangeIndex(ctx.table(rule["resource"]).num_rows)
    if "where" not in rule:
        return rows
    held = [value is True or (not isinstance(value, Exception) and bool(value)) for value in _where(ctx, rule)]
    return rows[pd.Series(held, dtype=bool).to_numpy()]


class NotEvaluated(Exception):
    """A declared rule none of whose rows could be read: the rule as a whole was not evaluated (an error whatever its
    severity: a warning rule failing on every row as `cannot be evaluated` left the release VALID, never checked)."""

    def __init__(self, part: str, rows: int, first: Exception):
        super().__init__(f"its {part} raises on every one of its {rows} row(s), such as: {first}")


def _unscoped(ctx, rule: dict) -> pd.DataFrame:
    """A failure on each row the rule's `where` cannot be evaluated on (an attribute, a `_name`, `len` of a null):
    the rule cannot say whether it checks that row, and a `where` failing on every row would switch it off. A
    set-aside row's failure is its structure failure's, and the run does not report it again."""
    if "where" not in rule:
        return combined([])
    values = _where(ctx, rule)
    bad = [n for n, value in enumerate(values) if isinstance(value, Exception)]
    if bad and len(bad) == len(values):
        raise NotEvaluated("where", len(values), values[bad[0]])
    return _report(ctx, rule, bad, "", [rule["where"]] * len(bad),
                   [f"where cannot be evaluated: {values[n]}" for n in bad])


def _checked(rule: dict, ctx) -> pd.DataFrame:
    """The rule's kind over the rows its `where` holds on, and a failure where it cannot say."""
    return combined([CHECKS[rule["kind"]](rule, ctx), _unscoped(ctx, rule)])


def _items(values: pd.Series) -> pd.Series:
    """One entry per cited item: list cells exploded, nulls dropped; the index is the citing row."""
    exploded = values.explode()
    return exploded[exploded.notna()]


def _report(ctx, rule: dict, rows, field: str, values, message) -> pd.DataFrame:
    if not len(rows):
        return combined([])
    ids = ctx.row_ids(rule["resource"])
    return failures(rule["resource"], ids.iloc[list(rows)], field, [as_text(v)[:80] for v in values], message)


# -- the kinds --------------------------------------------------------------------

@_kind("unique")
def unique(rule: dict, ctx) -> pd.DataFrame:
    rows = _scope(ctx, rule)
    keys = pd.DataFrame({f: ctx.values(rule["resource"], f, rows).map(repr) for f in rule["fields"]})
    present = pd.concat([ctx.values(rule["resource"], f, rows).notna() for f in rule["fields"]], axis=1).all(axis=1)
    dup = keys[present & keys.duplicated(keep=False)]
    return _report(ctx, rule, dup.index, ",".join(rule["fields"]), dup.agg(", ".join, axis=1), rule["statement"])


@_kind("not_null")
def not_null(rule: dict, ctx) -> pd.DataFrame:
    rows = _scope(ctx, rule)
    parts = []
    for field in rule["fields"]:
        values = ctx.values(rule["resource"], field, rows)
        bad = values[values.isna()]
        parts.append(_report(ctx, rule, bad.index, field, ["null"] * len(bad), rule["statement"]))
    return combined(parts)


@_kind("accepted_values")
def accepted_values(rule: dict, ctx) -> pd.DataFrame:
    allowed = rule.get("values") or enum_of(ctx.release.schemas.vocabulary, rule["vocabulary"])
    hint = "" if "values" in rule else f" (vocabulary '{rule['vocabulary']}')"
    items = _items(ctx.values(rule["resource"], rule["field"], _scope(ctx, rule)))
    bad = items[~items.isin(allowed)]
    bad = bad[~bad.index.duplicated()]
    return _report(ctx, rule, bad.index, rule["field"], bad, f"not an accepted value{hint}: {rule['statement']}")


def _participant(ctx, resource: str, rows) -> pd.Series:
    return pd.Series(ctx.column(resource, "participant_id").to_pylist(), dtype=object).loc[rows]


@_kind("relationships")
def relationships(rule: dict, ctx) -> pd.DataFrame:
    target = rule["to"]
    items = _items(ctx.values(rule["resource"], rule["field"], _scope(ctx, rule)))
    known = pd.Series(ctx.column(target["resource"], target["field"]).to_pylist(), dtype=object)
    missing = ~items.isin(set(known.dropna()))
    parts = [_report(ctx, rule, items.index[missing], rule["field"], items[missing],
                     f"does not resolve to {target['resource']}.{target['field']}")]
    if rule.get("same_participant"):
        theirs = pd.MultiIndex.from_arrays([_participant(ctx, target["resource"], known.index), known])
        mine = pd.MultiIndex.from_arrays([_participant(ctx, rule["resource"], items.index), items])
        other = ~missing & ~mine.isin(theirs)
        parts.append(_report(ctx, rule, items.index[other], rule["field"], items[other],
                             f"resolves to {target['resource']}.{target['field']} of another participant"))
    return combined(parts)


@_kind("expression")
def expression(rule: dict, ctx) -> pd.DataFrame:
    values = evaluate(ctx, rule["resource"], rule["expression"])
    scope = _scope(ctx, rule)
    if len(scope) and all(isinstance(values[n], Exception) for n in scope):
        raise NotEvaluated("expression", len(scope), values[scope[0]])
    failed = pd.Index([n for n in scope if values[n] is not True
                       and (isinstance(values[n], Exception) or not values[n])], dtype=int)
    why = [f"cannot be evaluated: {values[n]}" if isinstance(values[n], Exception) else
           f"false: {rule['expression']}" for n in failed]
    field = rule.get("field", "")
    shown = ctx.values(rule["resource"], field, failed) if field else [repr(values[n]) for n in failed]
    return _report(ctx, rule, failed, field, shown, why)


@_kind("cites_before")
def cites_before(rule: dict, ctx) -> pd.DataFrame:
    messages = ctx.messages.drop_duplicates("dayid").set_index("dayid")
    rows = _scope(ctx, rule)
    anchor = ctx.values(rule["resource"], rule["anchor"], rows).map(messages["turn"].to_dict())
    owner = ctx.values(rule["resource"], rule["anchor"], rows).map(messages["participant_id"].to_dict())
    items = _items(ctx.values(rule["resource"], rule["field"], rows))
    turn = items.map(messages["turn"].to_dict()).astype("float64")
    limit = anchor.loc[items.index].astype("float64")
    same = items.map(messages["participant_id"].to_dict()) == owner.loc[items.index]
    late = (turn > limit) if rule.get("inclusive") else (turn >= limit)
    bad = items[same & late.fillna(False)]
    relation = "after" if rule.get("inclusive") else "at or after"
    return _report(ctx, rule, bad.index, rule["field"], bad, f"cited message comes {relation} {rule['anchor']}")


def _unowned(ctx, resource: str, owners: pd.Series, pids) -> dict:
    """Per participant, how many rows whose participant_id is set aside (null) may be its own: those whose other key
    fields it holds no row with (a persona row of a slot it lacks), any where the key has no other field."""
    if not owners.isna().any():
        return {}
    rest = [k for k in ctx.release.primary_key(resource) if k != "participant_id"]
    keys = pd.Series(list(zip(*(ctx.values(resource, k, owners.index) for k in rest))) if rest else [()] * len(owners),
                     index=owners.index, dtype=object)
    held = set(zip(owners[owners.notna()], keys[owners.notna()]))
    return {pid: sum((pid, key) not in held for key in keys[owners.isna()]) for pid in pids}


@_kind("count_per_participant")
def count_per_participant(rule: dict, ctx) -> pd.DataFrame:
    resource, count = rule["resource"], rule["count"]
    owners = _participant(ctx, resource, _scope(ctx, rule))
    actual = owners.value_counts().to_dict()
    if count == "declared":
        declared = {pid: c[resource] for pid, c in ctx.params.get("participants", {}).items() if resource in c}
        pids, hint = set(actual) | set(declared), f" ({STALE})"
    else:
        want = count if isinstance(count, int) else len(enum_of(ctx.release.schemas.vocabulary, count["vocabulary"]))
        declared, hint = {}, ""
        pids = set(actual) | set(ctx.frame("source")["participant_id"].dropna().unique())
    rows, unknown = [], _unowned(ctx, resource, owners, pids)
    for pid in sorted(pids):
        expected = declared.get(pid) if count == "declared" else want
        got = actual.get(pid, 0)  # a count short by no more than the rows that may be its own is not judged
        if got != expected and not (expected is not None and got < expected <= got + unknown.get(pid, 0)):
            rows.append((pid, got, f"expected {expected} rows, found {got}{hint}"))
    return failures(resource, [r[0] for r in rows], "", [r[1] for r in rows], [r[2] for r in rows])
