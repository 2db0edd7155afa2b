"""What a new release adds, removes and changes, resource by resource, by primary key.

Errata and forks are read this way: a correction is a new version whose diff
against the old one names every record it touches. Rows are compared as the
release reads them (typed by each side's own schemas); a row that does not match
its schema is an error here, never silently left out of the comparison.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import clipped, visible
from ..release import ReadError, Release


@dataclass
class ResourceDiff:
    name: str
    key: list[str]
    added: list[tuple] = field(default_factory=list)
    removed: list[tuple] = field(default_factory=list)
    changed: dict[tuple, list[str]] = field(default_factory=dict)  # key -> fields whose value changed
    fields_added: list[str] = field(default_factory=list)
    fields_removed: list[str] = field(default_factory=list)
    only_in: str | None = None  # "old" / "new" when the resource exists on one side only

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.fields_added or self.fields_removed
                    or self.only_in)


@dataclass
class ReleaseDiff:
    old_version: str
    new_version: str
    resources: list[ResourceDiff]
    parameters: list[str]  # keys of the descriptor's format block whose value changed
    definitions: list[str] = field(default_factory=list)  # what changed in the descriptor's other keys and schemas/

    @property
    def empty(self) -> bool:
        return not self.parameters and not self.definitions and all(r.empty for r in self.resources)


def _rows(release: Release, name: str, key: list[str]) -> dict[tuple, dict]:
    table = release.table(name)
    bad = release.invalid_rows.get(name)
    if bad:
        raise ReadError(release.path(name), f"does not match its schema ({bad[0]['message']}); "
                        "run `realcompanion validate` first", line=bad[0]["line"], field=bad[0]["field"])
    rows, first = {}, {}
    for position, row in enumerate(table.to_pylist()):
        ident, line = tuple(row[k] for k in key), release.line(name, position)
        if None in ident:  # SCH2's to report; a null key matches nothing, and does not sort among the others
            raise ReadError(release.path(name), "has no primary key value: rows cannot be matched; run `realcompanion "
                            "validate` first", line=line, field="/".join(key))
        if ident in rows:
            raise ReadError(release.path(name), f"primary key {'/'.join(map(str, ident))} is not unique (first at "
                            f"line {first[ident]})", line=line, field="/".join(key))
        rows[ident], first[ident] = row, line
    return rows


def _key(release: Release, name: str) -> list[str]:
    key = release.primary_key(name)
    if not key:
        raise ReadError(release.root / release.resource(name)["schema"], "no primaryKey: rows cannot be matched",
                        field="primaryKey")
    return key


def diff_resource(old: Release, new: Release, name: str) -> ResourceDiff:
    key, old_key = _key(new, name), _key(old, name)
    if old_key != key:
        raise ReadError(new.root / new.resource(name)["schema"], f"primary key changed from {old_key} "
                        f"to {key}: rows cannot be matched", field="primaryKey")
    before, after = _rows(old, name, key), _rows(new, name, key)
    old_fields, new_fields = set(old.table(name).column_names), set(new.table(name).column_names)
    shared = [f for f in new.table(name).column_names if f in old_fields]
    result = ResourceDiff(name, key, fields_added=sorted(new_fields - old_fields),
                          fields_removed=sorted(old_fields - new_fields))
    result.added = sorted(after.keys() - before.keys())
    result.removed = sorted(before.keys() - after.keys())
    for ident in sorted(before.keys() & after.keys()):
        changed = [f for f in shared if before[ident][f] != after[ident][f]]
        if changed:
            result.changed[ident] = changed
    return result


def _one_sided(release: Release, name: str, side: str) -> ResourceDiff:
    """A resource present in one release only: all its rows are added (new) or removed (old)."""
    key = _key(release, name)
    rows = sorted(_rows(release, name, key))
    return ResourceDiff(name, key, only_in=side, added=rows if side == "new" else [],
                        removed=rows if side == "old" else [])


def diff(old_root, new_root, progress=None) -> ReleaseDiff:
    """`progress` is called once per resource compared."""
    from ..formats import format_of, open_release

    formats = format_of(old_root), format_of(new_root)
    if formats[0] != formats[1]:
        raise ReadError(new_root, f"is a {formats[1]} release and {old_root} a {formats[0]} release: "
                                  "releases of two formats are not compared")
    old, new = open_release(old_root, partial=True), open_release(new_root, partial=True)
    resources = []
    for name in new.resources + [name for name in old.resources if name not in new.resources]:
        resources.append(diff_resource(old, new, name) if name in old.resources and name in new.resources
                         else _one_sided(new, name, "new") if name in new.resources else _one_sided(old, name, "old"))
        if progress:
            progress(name)
    parameters = sorted(k for k in old.params.keys() | new.params.keys() if old.params.get(k) != new.params.get(k))
    return ReleaseDiff(old.version, new.version, resources, parameters, definitions(old, new))


def definitions(old: Release, new: Release) -> list[str]:
    """What changed in what the records mean: the descriptor beyond its format block (licence, description, each
    resource's entry but what `stamp` writes) and every JSON document under schemas/ (Table Schemas, nested
    schemas, the vocabulary, a release's rules), as `FILE: PATH` lines; a list of values says what it gained and
    lost. A new vocabulary value or a loosened constraint changes no record, and a diff that said nothing of it
    read as "no differences"."""
    from ..stamp import STAMPED  # written from the files: their changes are the records' own

    def described(release: Release) -> dict:
        out = {k: v for k, v in release.descriptor.items() if k not in (release.BLOCK, "version", "$schema")}
        out["resources"] = [{k: v for k, v in r.items() if k not in STAMPED} for r in out.get("resources", [])]
        return out

    lines = [f"datapackage.json: {path}" for path in _changed(described(old), described(new))]
    files = {p.relative_to(r.root).as_posix() for r in (old, new) for p in (r.root / "schemas").rglob("*.json")
             if not p.is_dir()}
    for name in sorted(files):
        before, after = (_document(r.root, name) for r in (old, new))
        lines += [f"{name}: {path}" for path in _changed(before, after)]
    return lines


_ABSENT = object()


def _document(root: Path, name: str):
    """The JSON document `name` of the release at `root`; absent where nothing is there. A link out of the folder is
    refused, and what is there but not a regular file (a FIFO) is named: either was read, or passed over as absent."""
    from ..files import read_json
    from ..paths import own_file

    path = own_file(root, name)
    return read_json(path) if os.path.lexists(path) else _ABSENT


def _changed(old, new, path: str = "") -> list[str]:
    """Where two JSON values differ, as dotted paths (a list of named objects by name or id: Table Schema's
    `fields`, a rules file's rules), a value's change as `fields.answer.constraints.minLength 1 -> 2`, a list of scalars' as
    `PATH +added -removed`, and `(added)` or `(removed)` for what one side lacks. Values are compared as JSON
    spells them (`same_json`): Python's == took `true` for `1` (an enum of `[true]` made `[1]` was no change), and
    a value listed twice for the same list in another order."""
    from ..schemas import same_json

    if old is _ABSENT or new is _ABSENT:
        return [f"{path or '(file)'} ({'added' if old is _ABSENT else 'removed'})"]
    if same_json(old) == same_json(new):
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        return [p for key in sorted(old.keys() | new.keys(), key=str)
                for p in _changed(old.get(key, _ABSENT), new.get(key, _ABSENT), f"{path}.{key}" if path else key)]
    if isinstance(old, list) and isinstance(new, list):
        for key in ("name", "id"):  # Table Schema's fields by name, a rules file's rules by id
            if all(isinstance(v, dict) and isinstance(v.get(key), str) for v in old + new):
                named = [{v[key]: v for v in side} for side in (old, new)]
                if all(len(by) == len(side) for by, side in zip(named, (old, new))):
                    return _changed(*named, path) or [f"{path or '(file)'} (order)"]
        if not any(isinstance(v, (dict, list)) for v in old + new):
            gained, lost = _beyond(new, old), _beyond(old, new)
            if gained or lost:
                return [" ".join([path or "(file)", *(f"+{_item(v)}" for v in gained), *(f"-{_item(v)}" for v in lost)])]
            return [f"{path or '(file)'} (order)"]
    if not isinstance(old, (dict, list)) and not isinstance(new, (dict, list)):
        return [f"{path or '(file)'} {_short(old)} -> {_short(new)}"]
    return [path or "(file)"]


def _beyond(side: list, other: list) -> list:
    """The values of `side` that `other` lacks, each as often as it lacks it (a value listed twice where it was once
    is gained once)."""
    from collections import Counter

    from ..schemas import same_json

    left, out = Counter(map(same_json, other)), []
    for value in side:
        spelled = same_json(value)
        if left[spelled]:
            left[spelled] -= 1
        else:
            out.append(value)
    return out


def _item(value) -> str:
    """A list's value as a `+`/`-` line gives it: text as it is, any other value as JSON (`true`, not `True`)."""
    return value if isinstance(value, str) else json.dumps(value)


def _short(value) -> str:
    return clipped(json.dumps(value, ensure_ascii=False), 40, "…")


def _ident(key: tuple) -> str:
    return visible("/".join(map(str, key)))


def render(d: ReleaseDiff) -> str:
    """One summary line per resource, then one line per added, removed or changed record."""
    lines = [f"release {d.old_version} -> {d.new_version}" + (": no differences" if d.empty else "")]
    if d.parameters:
        lines.append(f"parameters changed: {', '.join(d.parameters)}")
    if d.definitions:
        lines += ["definitions changed:", *(f"  {visible(line)}" for line in d.definitions)]
    for r in d.resources:
        head = f"{r.name}: +{len(r.added)} added, -{len(r.removed)} removed, ~{len(r.changed)} changed"
        notes = ([f"resource only in {r.only_in}"] if r.only_in else []) + \
                [f"field {f} added" for f in r.fields_added] + [f"field {f} removed" for f in r.fields_removed]
        lines.append(visible(head + (f" ({'; '.join(notes)})" if notes else "")))
        lines += [f"  + {_ident(k)}" for k in r.added] + [f"  - {_ident(k)}" for k in r.removed]
        lines += [f"  ~ {_ident(k)}: {visible(', '.join(fields))}" for k, fields in r.changed.items()]
    return "\n".join(lines)
