"""A memory-need detector's probabilities, scored as Table 30's detectability.

File: one JSON object per line, {"item_id", "probability"}: the chance, in
[0, 1], that the probe needs memory, from a model shown the probe and the
three preceding messages (the C1 context, `realcompanion contexts --condition
C1`). Detectability is the AUROC of that probability against the recorded
label (memory-bearing under the reading) on the scored items of the
proportional stratum; the stratum's items without a probability are counted
as missing, never guessed. The file is unreadable (exit 2) when an item id is
unknown or repeats, or a probability is missing, not a number, or outside [0, 1].
"""
from __future__ import annotations

from realcompanion.release import ReadError
from realcompanion.scoring.jsonl import field, known_item, rows
from realcompanion.stamp import sha256_of

from .auroc import auroc_summary


def read_detector(path, track) -> dict[str, float]:
    out: dict[str, float] = {}
    for line, row in rows(path):
        item_id = known_item(row, track, path, line).item_id
        if item_id in out:
            raise ReadError(path, f"item_id '{item_id}' appears twice", line=line, field="item_id")
        value = float(field(row, "probability", (int, float), path, line))
        if not 0.0 <= value <= 1.0:
            raise ReadError(path, f"{value} is outside [0, 1]", line=line, field="probability")
        out[item_id] = value
    return out


def detector_report(path, track, seed: int, resamples: int) -> dict:
    probabilities = read_detector(path, track)
    population = track.detectability_items()
    chosen = [i for i in population if i.item_id in probabilities]
    summary = auroc_summary([probabilities[i.item_id] for i in chosen], [i.dependent for i in chosen],
                            [i.participant_id for i in chosen], seed, resamples)
    return {"file": str(path), "sha256": sha256_of(path), "population": "proportional", **summary,
            "missing": len(population) - len(chosen),
            "ignored_items": sorted(set(probabilities) - {i.item_id for i in population})}
