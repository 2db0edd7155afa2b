"""The floor under `realcompanion validate`: what reading and hashing a release costs.

One process that starts Python, reads every resource of `datapackage.json` (either format) with the
project's own Arrow schema (the same typed read `validate` does), sha256-hashes each
file beside the read, and checks every Table Schema constraint with Arrow compute:
required, unique, enum, pattern, minimum/maximum, minLength, datetime and date
formats, primary keys and single-field foreign keys. No release gate, check family,
nested JSON Schema or cross-file rule runs, so a validator that checks all of those
can approach this figure but never beat it. `benchmarks/run.py` times it in the same
run as `validate` and `frictionless validate`.

    python benchmarks/floor.py RELEASE        # prints the constraint failures it found; exit 1 if any
"""
from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pajson

from realcompanion.formats import format_of
from realcompanion.release import Release, declared_sha256
from realcompanion.schemas import RFC3339
from realcompanion.stamp import sha256_of

_FORMATS = {"datetime": RFC3339, "date": r"^\d{4}-\d{2}-\d{2}$"}


def field_failures(column: pa.ChunkedArray, field: dict) -> int:
    """Rows of one column that break the field's Table Schema constraints."""
    constraints, failed = field.get("constraints", {}), 0
    present = column.drop_null()
    if constraints.get("required"):
        failed += column.null_count
    if constraints.get("unique"):
        failed += len(present) - pc.count_distinct(present).as_py()
    if "enum" in constraints:
        failed += len(present) - (pc.sum(pc.is_in(present, value_set=pa.array(constraints["enum"]))).as_py() or 0)
    patterns = [constraints.get("pattern"), _FORMATS.get(field["type"])]
    for pattern in filter(None, patterns):
        failed += len(present) - (pc.sum(pc.match_substring_regex(present, pattern)).as_py() or 0)
    if "minimum" in constraints:
        failed += pc.sum(pc.less(present, constraints["minimum"])).as_py() or 0
    if "maximum" in constraints:
        failed += pc.sum(pc.greater(present, constraints["maximum"])).as_py() or 0
    if "minLength" in constraints:
        failed += pc.sum(pc.less(pc.utf8_length(present), constraints["minLength"])).as_py() or 0
    return failed


def key_failures(release: Release, name: str, table: pa.Table, tables: dict[str, pa.Table]) -> int:
    """Duplicate primary keys plus foreign-key values absent from the referenced column."""
    schema, failed = release.table_schema(name), 0
    key = release.primary_key(name)
    if key:
        failed += table.num_rows - table.group_by(key).aggregate([]).num_rows
    for fk in schema.get("foreignKeys", []):
        fields, ref = fk["fields"], fk["reference"]
        local = table.column(fields if isinstance(fields, str) else fields[0])
        target = tables[ref.get("resource") or name].column(ref["fields"] if isinstance(ref["fields"], str) else ref["fields"][0])
        failed += len(local.drop_null()) - (pc.sum(pc.is_in(local.drop_null(), value_set=target)).as_py() or 0)
    return failed


def opened(root: Path) -> Release:
    """The release in its own format (RealCompanion or GroupAssistBench), its descriptor not judged."""
    if format_of(root) == "groupassist":
        from realcompanion.formats.groupassist import GroupAssistRelease

        return GroupAssistRelease(root, check=False)
    return Release(root, check=False)


def floor(root: Path) -> dict[str, int]:
    """Constraint failures per resource, after reading and hashing every file once."""
    release = opened(root)
    with ThreadPoolExecutor(max_workers=1) as pool:
        hashes = [pool.submit(sha256_of, release.path(name)) for name in release.resources]
        tables = {name: pajson.read_json(release.path(name), parse_options=pajson.ParseOptions(
            explicit_schema=release.arrow_schema(name), unexpected_field_behavior="error"))
            for name in release.resources}
        digests = [h.result() for h in hashes]
    declared = {release.resource(name)["path"]: declared_sha256(release, name) for name in release.resources}
    failures = {name: sum(field_failures(tables[name].column(f["name"]), f) for f in release.table_schema(name)["fields"])
                + key_failures(release, name, tables[name], tables) for name in release.resources}
    failures["sha256"] = sum(declared.get(release.resource(name)["path"]) != digest
                             for name, digest in zip(release.resources, digests))
    return failures


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    failures = floor(Path(args[0] if args else "."))
    print(" ".join(f"{name}={count}" for name, count in failures.items()))
    return 1 if any(failures.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
