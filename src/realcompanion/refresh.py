"""One refresh: every generated part of a release brought up to date, in the order each depends on the last.

1. schema copies: the enum / pattern each Table Schema and nested schema copies from schemas/vocabulary.json;
2. counts and hashes in datapackage.json (`stamp`), read through those schemas, once the release passes
   every error rule but the count and hash checks (`check=False` skips that validation);
3. the card: README.md's YAML header and generated blocks, and CITATION.cff's version, date and licence;
4. DATASHEET.md's generated blocks (they show the counts, hashes and rules);
5. croissant.json, when the release ships one (it carries the hashes).

A fork author edits files and runs `realcompanion refresh`; every failure a stale
generated part can cause ends with `names.STALE`, which names this command.
"""
from __future__ import annotations


class Refused(Exception):
    """The release fails rules stamping would bless (what was refreshed before the check is reported already)."""

    def __init__(self, failing: list[str]):
        super().__init__(", ".join(failing))
        self.failing = failing


class ByHand(Exception):
    """Generated parts no rewrite fixes (`generated.by_hand`): every other part was refreshed and reported."""

    def __init__(self, parts: list[str]):
        super().__init__(", ".join(parts))
        self.parts = parts


def refresh(root, check: bool = True, progress=None, report=None) -> list[str]:
    """Bring every generated part of the release at `root` up to date; returns what changed, in order.
    `progress` is called once per rule of the validation that comes first; `report` with each part as soon as it is
    written, so that a run stopped later (refused, or a file it cannot read) still says what it rewrote."""
    from . import card, datasheet
    from .files import read_json, read_text, write_own
    from .formats import open_release, part
    from .generated import by_hand
    from .publish.croissant import FILE, build
    from .schemas import Schemas, dump_json
    from .stamp import STAMPED, blocking_rules

    changed = []

    def wrote(parts):
        for written in parts:
            changed.append(written)
            if report:
                report(written)

    release = open_release(root)  # a folder that is no release is named before anything is written
    root = release.root
    stamp = part(release.BLOCK, "stamp")
    wrote(f"schema copy: {path.relative_to(root)}" for path in Schemas(root, release.BLOCK).render())
    if check and (failing := blocking_rules(root, progress)):
        raise Refused(failing)
    before = read_json(root / "datapackage.json")
    old, new = before.get(release.BLOCK, {}), stamp(root)
    now = read_json(root / "datapackage.json")
    kept = now.get(release.BLOCK, {})  # a key `stamp` dropped (an older release's `sha256` copy) is written too
    wrote(f"datapackage.json: {release.BLOCK}.{key}" for key in [*new, *(k for k in old if k not in kept)]
          if old.get(key) != kept.get(key))
    pairs = list(zip(before.get("resources", []), now.get("resources", [])))
    written = [key for key in STAMPED if any(old.get(key) != new.get(key) for old, new in pairs)]
    if written:
        wrote([f"datapackage.json: resources {', '.join(written[:-1])}{' and ' * (len(written) > 1)}{written[-1]}"])
    documents = card.write(root) + [f"DATASHEET.md block: {name}" for name in datasheet.write(root)]
    left = by_hand(documents)
    wrote(part for part in documents if part not in left)
    croissant = root / FILE
    if croissant.is_file():
        text = dump_json(build(open_release(root)))
        if read_text(croissant) != text:
            write_own(root, FILE, text)
            wrote([FILE])
    if left:
        raise ByHand(left)
    return changed
