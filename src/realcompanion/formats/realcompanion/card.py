"""What the RealCompanion card says that another format's does not: its status statement."""
from __future__ import annotations


def status(release) -> str:
    """The opening notice of a release that does not say how its records were made (card.status says it for one
    that does)."""
    version = release.version
    if release.params.get("synthetic"):
        return (
            f"> **Synthetic specimen (version {version}).** Every record in `data/` was made by the project's "
            "deterministic generator (`realcompanion synth`), not by people. The conversations of the real "
            "participants are private and are not in this repository. The specimen exists so that the format, "
            "the validator, the loader and the scorers can be exercised, forked and tested in the open: it "
            "carries every field, every vocabulary value, every nullable field both ways, cold opens, "
            "withdrawn rows and every kind of reference. Numbers computed on it say nothing about people "
            "or models."
        )
    return (f"> **RealCompanion release {version}.** The files in `data/` are the released records of real "
            "participants; read the personal-information section before use.")
