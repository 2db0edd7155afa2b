"""The report writer's indented JSON is json's own, byte for byte, on every shape and awkward value."""
from __future__ import annotations

import io
import json

import numpy as np
import pytest

from realcompanion.json_layout import Rows, pieces
from realcompanion.schemas import dump_json, write_json

CASES = {
    "scalars": [1, -0.0, 2.5e-07, 1e16, 10**30, True, None, "text"],
    "strings json escapes": ["a\nb", "tab\t", 'quote"', "\\", "\u2028\u2029", "é中文", "\x1b[2J", "\ud800"],
    "empty containers": {"list": [], "dict": {}, "nested": [[], {}, [[]]]},
    "non-finite numbers": [float("nan"), float("inf"), -float("inf")],
    "keys json turns into text": {7: "int", 2.5: "float", True: "bool", None: "null", "s": {3: [1]}},
    "a table of rows": [{"condition": "A", "score": 0.1 + 0.2, "pass": None} for _ in range(3)],
    "tuples": (1, (2, [3, (4,)])),
    "numpy floats": [np.float64(0.1), {"x": np.float64(1e-5)}],
    "deep": {"a": [{"b": [{"c": [1, {"d": {}}]}]}]},
    "a key that needs escapes": {"k\"\n": {"v": [1]}},
}


@pytest.mark.parametrize("name", CASES)
def test_pieces_join_to_jsons_own_indented_text(name):
    value = CASES[name]
    assert "".join(pieces(value)) == json.dumps(value, indent=2, ensure_ascii=False)
    for inner in (value, [value], {"x": {"y": value}}):  # the same value at other depths
        handle = io.StringIO()
        write_json(inner, handle)
        assert handle.getvalue() == dump_json(inner)


@pytest.mark.parametrize("columns", [{"a": [1, None], "b": ["x", 0.5]}, {"a": []}, {}, {"a": [[1], {"b": []}]},
                                     {3: [1, 2]}])
def test_rows_are_laid_out_as_the_list_of_their_objects(columns):
    rows = Rows(columns)
    listed = [dict(zip(columns, row)) for row in zip(*columns.values())]
    assert list(rows) == listed and rows[:] == listed and len(rows) == len(listed)
    for inner in (rows, {"x": {"y": rows}}):
        handle = io.StringIO()
        write_json(inner, handle)
        assert handle.getvalue() == dump_json(listed if inner is rows else {"x": {"y": listed}})
