"""A release copy that leaves out a whole resource, as a fork or a conversion without that track is made."""
from __future__ import annotations

import json
from pathlib import Path


def leave_out(root: Path, name: str) -> None:
    """Drop resource `name` from datapackage.json, with its data file and its Table Schema file."""
    path = root / "datapackage.json"
    descriptor = json.loads(path.read_text(encoding="utf-8"))
    resource = next(r for r in descriptor["resources"] if r["name"] == name)
    descriptor["resources"].remove(resource)
    path.write_text(json.dumps(descriptor, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    for part in (resource["path"], resource["schema"]):
        (root / part).unlink()
