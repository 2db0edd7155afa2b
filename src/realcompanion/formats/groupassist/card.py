"""What the GroupAssistBench card says that the RealCompanion card does not: its status statement."""
from __future__ import annotations


def status(release) -> str:
    version = release.version
    if release.params.get("synthetic"):
        return (
            f"> **Synthetic specimen (version {version}).** Every record in `data/` was made by the project's "
            "deterministic generator (`realcompanion synth OUT --format groupassist`), from its own Chinese and "
            "English templates, not by people or a model. The 50 real groups are private and are not in this "
            "repository. The specimen carries every field, every vocabulary value, every nullable field both ways, "
            "native and authored instances, L1 and L2 across M1-M3, every penalty pattern, placeholders, shared "
            "turn indices and excluded instances in `audit`. Numbers computed on it say nothing about people or models.")
    return (f"> **GroupAssistBench release {version}.** The files in `data/` are pseudonymized records of real "
            "group chats; read the personal-information section before use.")
