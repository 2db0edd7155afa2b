"""Declared expressions that Arrow can compute over whole columns, instead of simpleeval row by row.

Only a small subset of what simpleeval reads is translated, and only where Arrow's answer
is Python's: comparisons (chained ones too: `a == b == c` is `a == b and b == c`), `field is
None` / `is not None`, `and` / `or` / `not` of comparisons, `len` of a text or list field,
`field or ''` and `field or []`, fields, constants and `params['name']`. Anything else is not
translated (`None`: every row goes to simpleeval). A row whose Arrow answer is null (a null
field, where Python might raise or compare differently) is left undecided for simpleeval;
`is None` decides every row, null ones included (a null cell is Python's None).
"""
from __future__ import annotations

import ast

import pyarrow as pa
import pyarrow.compute as pc

_COMPARE = {ast.Lt: "less", ast.LtE: "less_equal", ast.Gt: "greater", ast.GtE: "greater_equal", ast.Eq: "equal",
            ast.NotEq: "not_equal"}


class _Untranslated(Exception):
    pass


def decided(table: pa.Table, parsed: ast.AST, params: dict) -> list | None:
    """Per row, the expression's truth as Arrow computes it (None: left to simpleeval); None when not translated."""
    try:
        result = _value(parsed.value if isinstance(parsed, ast.Expr) else parsed, table, params)
    except (_Untranslated, pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, OverflowError):
        return None  # OverflowError: an integer constant or parameter past Arrow's 64 bits, which Python compares
    if not isinstance(result, pa.ChunkedArray) or not pa.types.is_boolean(result.type):
        return None
    return result.to_pylist()


def _boolean(node: ast.AST, table: pa.Table, params: dict):
    value = _value(node, table, params)
    if not pa.types.is_boolean(value.type):
        raise _Untranslated  # Python's `and` / `or` / `not` would act on the value's truth, not on a boolean
    return value


def _value(node: ast.AST, table: pa.Table, params: dict):
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float, str)):
        return pa.scalar(node.value)
    if isinstance(node, ast.Name) and node.id in table.column_names and node.id != "params":
        return table.column(node.id)
    if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "params"
            and isinstance(node.slice, ast.Constant) and node.slice.value in params):
        return pa.scalar(params[node.slice.value])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
        value = _value(node.args[0], table, params)
        if pa.types.is_string(value.type) or pa.types.is_large_string(value.type):
            return pc.utf8_length(value)
        if pa.types.is_list(value.type):
            return pc.list_value_length(value)
        raise _Untranslated
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and len(node.values) == 2 and _empty(node.values[1]):
        value = _value(node.values[0], table, params)  # `field or ''` / `field or []`: the field, empty where null
        text = pa.types.is_string(value.type) or pa.types.is_large_string(value.type)
        if isinstance(value, pa.ChunkedArray) and (text if isinstance(node.values[1], ast.Constant)
                                                   else pa.types.is_list(value.type)):
            return pc.coalesce(value, pa.scalar("" if text else [], value.type))  # an empty cell stays empty
        raise _Untranslated
    if isinstance(node, ast.BoolOp):
        combine = pc.and_ if isinstance(node.op, ast.And) else pc.or_  # a null operand: undecided, as Python may raise
        values = [_boolean(v, table, params) for v in node.values]
        result = values[0]
        for value in values[1:]:
            result = combine(result, value)
        return result
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return pc.invert(_boolean(node.operand, table, params))
    if isinstance(node, ast.Compare):  # `a < b < c` is `a < b and b < c`; a null link leaves the row undecided
        operands = [None if isinstance(n, ast.Constant) and n.value is None else _value(n, table, params)
                    for n in (node.left, *node.comparators)]  # None: only `is None` / `is not None` reads it
        links = [_compare(op, left, right) for op, left, right in zip(node.ops, operands, operands[1:])]
        result = links[0]
        for link in links[1:]:
            result = pc.and_(result, link)
        return result
    raise _Untranslated


def _empty(node: ast.AST) -> bool:
    """`''` or `[]`, the empty value a null field is replaced by."""
    return (isinstance(node, ast.Constant) and node.value == "") or (isinstance(node, ast.List) and not node.elts)


def _compare(op: ast.cmpop, left, right):
    if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(left, pa.ChunkedArray) and right is None:
        return pc.is_null(left) if isinstance(op, ast.Is) else pc.is_valid(left)  # NaN is not None, nor null
    if type(op) not in _COMPARE or left is None or right is None or (
            isinstance(left, pa.Scalar) and isinstance(right, pa.Scalar)):
        raise _Untranslated
    return pc.call_function(_COMPARE[type(op)], [left, right])
