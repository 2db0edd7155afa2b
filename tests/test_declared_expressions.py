"""Declared expressions give the same verdict whether Arrow computes them over whole columns or simpleeval row by row."""
from __future__ import annotations

import ast
from types import SimpleNamespace

import pyarrow as pa
import pytest
import simpleeval
from realcompanion.validators.arrow_expression import decided
from realcompanion.validators.declared import FUNCTIONS, evaluate

TABLE = pa.table({"text": ["", "abc", None, "長い文章です", "zz"], "n": [1, None, 3, 40, -2],
                  "items": [["a"], [], None, ["a", "b", "c"], ["x"]], "kind": ["a", "c", "a", None, "b"],
                  "flag": [True, None, False, True, False], "x": [0.5, float("nan"), None, 2.0, -1.0]})
PARAMS = {"limit": 3, "name": "b", "rubric": {"nested": 1}, "huge": 10 ** 30}

EXPRESSIONS = [
    "len(text or '') <= params['limit']", "len(text) <= params['limit']", "n > 2", "n >= 1 and kind == 'a'",
    "n < 0 or kind != params['name']", "not n == 3", "len(items) >= 2", "kind == 'a'", "kind != 'a'",
    "len(text or '') > 0 and len(items or []) == 1", "text", "n + 1 > 2", "len(text or 'x') == 1",
    "n == len(items or [])", "len(items or []) >= 1", "(kind == 'a') == (not flag) == (text is None)",
    "n is None", "items is not None", "x is None", "x is not None and x > 0", "-2 <= n < 4", "0 < n <= len(text)",
    "flag == (n > 2)", "text is None or len(text) > 1", "len(text or []) == 0", "len(items or '') == 0",
    "n == None", "kind is 'a'", "x < 1 == flag", "x == x",
    "n < 100000000000000000000000", "x < 100000000000000000000000", "n < params['huge']",  # past Arrow's int64
]


def _simpleeval(expression: str) -> list:
    evaluator = simpleeval.EvalWithCompoundTypes(functions=FUNCTIONS)
    out = []
    for row in TABLE.to_pylist():
        evaluator.names = {"params": {k: v for k, v in PARAMS.items() if not isinstance(v, dict)}, **row}
        try:
            out.append(evaluator.eval(expression))
        except Exception as exc:  # noqa: BLE001
            out.append(type(exc))
    return out


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_arrow_and_simpleeval_agree(expression):
    ctx = SimpleNamespace(table=lambda name: TABLE, params=PARAMS)
    got = [type(v) if isinstance(v, Exception) else v for v in evaluate(ctx, "t", expression)]
    assert got == _simpleeval(expression)


@pytest.mark.parametrize("expression, translated", [
    ("len(text or '') <= params['limit']", True), ("n >= 1 and kind == 'a'", True), ("not n == 3", True),
    ("text", False), ("n + 1 > 2", False), ("len(text or 'x') == 1", False), ("params['rubric'] == 1", False),
    ("n == len(items or [])", True), ("(kind == 'a') == (not flag) == (text is None)", True), ("n is None", True),
    ("0 <= n < 4", True), ("len(text or []) == 0", False), ("len(items or '') == 0", False), ("n == None", False),
    ("kind is 'a'", False),
])
def test_what_arrow_decides(expression, translated):
    params = {k: v for k, v in PARAMS.items() if not isinstance(v, dict)}
    result = decided(TABLE, ast.parse(expression).body[0], params)
    assert (result is not None) == translated
    if translated:  # rows with a null operand are left to simpleeval
        assert all(v is None or isinstance(v, bool) for v in result)


def test_is_none_decides_null_rows():
    """A null cell is Python's None, so `is None` needs no simpleeval; NaN is neither."""
    assert decided(TABLE, ast.parse("x is None").body[0], {}) == [False, False, True, False, False]
    assert decided(TABLE, ast.parse("n == len(items or [])").body[0], {}) == [True, None, False, False, False]
