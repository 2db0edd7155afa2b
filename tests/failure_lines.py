"""What a failure line names (validators/catalogue.py, `failures`): a resource of the release and one of its fields,
or "" for the row as a whole; or, with an empty resource, a file of the release and a place in it."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd


def misnamed(found: pd.DataFrame, root: Path) -> list[tuple]:
    """(rule, resource, row, field) of each line of `found` whose resource is none of the release's, or whose field
    is neither "" nor a field of its resource (a dotted path by its head, a key's fields each); a line with an empty
    resource names a file as its row, and its field is "" or a place in that JSON file (by its top-level key)."""
    descriptor = json.loads((root / "datapackage.json").read_text(encoding="utf-8"))
    fields = {r["name"]: {f["name"] for f in _document(root / r["schema"])["fields"]} for r in descriptor["resources"]}
    bad = []
    for line in found.itertuples():
        names = fields.get(line.resource) if line.resource else set(_document(root / str(line.row)))
        if names is None or line.field and not all(re.split(r"[.\[]", part)[0] in names
                                                   for part in str(line.field).split(",")):
            bad.append((line.rule, line.resource, line.row, line.field))
    return bad


def _document(path: Path) -> dict:
    """The JSON object a file holds; {} for one that holds none (a pickle, a data file), or no file at all."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return document if isinstance(document, dict) else {}
