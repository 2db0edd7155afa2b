"""Names every floor of the package reads, declared once and importing nothing: the files a release's folder
holds besides its data and schemas, and the command that brings its generated parts up to date.

Modules low in the package (files, release) refuse to write over a document or list what a release is, and rules
end a failure that a stale generated part can cause with `STALE`; none of them may import the modules that write
those parts (card, datasheet, refresh), which read them in turn.
"""
from __future__ import annotations

CARD = "README.md"  # the dataset card (card.py writes its generated parts)
DATASHEET = "DATASHEET.md"
CITATION = "CITATION.cff"
CHANGELOG = "CHANGELOG.md"
CROISSANT = "croissant.json"
ACKNOWLEDGED = "pii-acknowledged.json"  # the reviewed personal-data findings (publish/privacy.py)
DOCUMENTS = ("datapackage.json", CARD, DATASHEET, CITATION, CHANGELOG)
OPTIONAL_DOCUMENTS = (CROISSANT, ACKNOWLEDGED)
SCHEMA_FOLDER = "schemas"
DATA_FOLDER = "data"

COMMAND = "realcompanion refresh"  # refresh.py: every generated part of a release brought up to date
STALE = f"if the files are right, run `{COMMAND}`"


def stale_count(want: int | None, counted: str, held: bool = True) -> str:
    """A count `refresh` writes that the files do not bear out: what is declared (or that nothing is), and the
    command that writes it. A count of what the release holds none of (`held` false; 0 included, which `stamp`
    never writes, so `refresh` drops the entry) says so."""
    said = f"declared {want} {counted}" if want is not None else f"no count of {counted} declared"
    return f"{said}{'' if held else ', of which the release holds none'} ({STALE})"
