"""Judged quantities (paper Tables 30, 35-37, 39-41), computed from a verdicts file only.

Each quantity is declared once below: the verdict field it reads, whether the
field is negated, and the population of items it is computed on.

chat
  content_match            mean 0/1/2 verdict, scored items (Tables 5, 35, 40)
  appropriate_application  share of replies asserting a past detail the probe
                           did not supply, on dependent items (Table 37)
  restraint                share of replies asserting no such detail, scored items
  misfire_rate             1 - restraint on probes with an empty reference set
                           (Table 7's rho* = 0 population; Table 30)
  misapplication           used-memory share on probes whose verified locus is
                           `none` (Tables 37, 39)
  cold_open_restraint      restraint on cold opens (the abstention stratum)
  detectability AUROC      `used_memory` against the dependent label, scored
                           proportional-stratum items (Table 30)
qa
  answer_accuracy          share judged correct (an unanswerable question is
                           answered correctly by abstaining), all questions
  abstention_unanswerable  share abstained on unanswerable questions
  abstention_answerable    share abstained on answerable questions
  abstention AUROC         `abstained` against "not answerable", all questions

Items of a population with no verdict under a condition are counted as
`missing` and left out: no number is produced without its verdict. Intervals
resample participants (`bootstrap`); paired contrasts (Table 36) compare two
conditions on the items judged under both, for the track's primary quantity.
"""
from __future__ import annotations

from .auroc import auroc_summary
from .bootstrap import mean_intervals
from .gold import COLD_OPEN
from .metrics import pooled_and_macro
from .settings import CONDITIONS

POPULATIONS = {
    "scored": lambda i: i.scored,
    "dependent": lambda i: i.scored and i.dependent,
    "no_reference_set": lambda i: i.scored and not i.gold.size,
    "locus_none": lambda i: i.scored and i.locus == "none",
    "cold_open": lambda i: i.status == COLD_OPEN,
    "proportional": lambda i: i.in_detectability,
    "answerable": lambda i: i.scored and bool(i.answerable),
    "unanswerable": lambda i: i.scored and not i.answerable,
}
# name: (verdict field, negate, population)
QUANTITIES = {
    "chat": {
        "content_match": ("content_match", False, "scored"),
        "appropriate_application": ("used_memory", False, "dependent"),
        "restraint": ("used_memory", True, "scored"),
        "misfire_rate": ("used_memory", False, "no_reference_set"),
        "misapplication": ("used_memory", False, "locus_none"),
        "cold_open_restraint": ("used_memory", True, "cold_open"),
    },
    "qa": {
        "answer_accuracy": ("answer_correct", False, "scored"),
        "abstention_unanswerable": ("abstained", False, "unanswerable"),
        "abstention_answerable": ("abstained", False, "answerable"),
    },
}
# name: (score field, label, population)
AUROCS = {
    "chat": {"detectability": ("used_memory", lambda i: i.dependent, "proportional")},
    "qa": {"abstention": ("abstained", lambda i: not i.answerable, "scored")},
}
# the track's primary quantity (plotted) and the populations of its paired contrasts (Table 36)
PRIMARY = {"chat": ("content_match", ("scored", "dependent")), "qa": ("answer_accuracy", ("scored", "answerable"))}


def ordered_conditions(conditions) -> list[str]:
    """The paper's conditions in Table 28 order, then any other condition names alphabetically."""
    known = [c for c in CONDITIONS if c in set(conditions)]
    return known + sorted(set(conditions) - set(known))


def by_condition(verdicts) -> dict[str, dict[str, dict]]:
    """Verdict rows keyed by condition, then item id."""
    out: dict[str, dict[str, dict]] = {}
    for row in verdicts.frame.to_dict("records"):
        out.setdefault(row["condition"], {})[row["item_id"]] = row
    return out


def _joined(track, rows: dict, population: str):
    """(items of the population, their verdict rows under one condition or None)."""
    chosen = [i for i in track.items if POPULATIONS[population](i)]
    return chosen, [rows.get(i.item_id) for i in chosen]


def mean_block(values, participants, missing: int, seed: int, resamples: int) -> dict:
    """Pooled and macro mean of per-item values, per-participant means, n, `missing`, and intervals."""
    block = pooled_and_macro(values, participants) | {"missing": missing}
    if block["n"]:
        block["ci"] = mean_intervals(values, participants, seed, resamples)
    return block


def quantity(track, rows: dict, name: str, seed: int, resamples: int) -> dict:
    column, negate, population = QUANTITIES[track.name][name]
    items, rows = _joined(track, rows, population)
    judged = [(i, r) for i, r in zip(items, rows, strict=True) if r is not None]
    values = [float(not r[column]) if negate else float(r[column]) for _, r in judged]
    block = mean_block(values, [i.participant_id for i, _ in judged], len(items) - len(judged), seed, resamples)
    return {"population": population, **block}


def auroc_block(track, rows: dict, name: str, seed: int, resamples: int) -> dict:
    column, label, population = AUROCS[track.name][name]
    items, rows = _joined(track, rows, population)
    judged = [(i, r) for i, r in zip(items, rows, strict=True) if r is not None]
    summary = auroc_summary([float(r[column]) for _, r in judged], [label(i) for i, _ in judged],
                            [i.participant_id for i, _ in judged], seed, resamples)
    return {"population": population, "missing": len(items) - len(judged), **summary}


def contrast(track, first: dict, second: dict, population: str, seed: int, resamples: int) -> dict:
    """Verdicts `second` minus `first` (two conditions) on the items of `population` judged under both."""
    column = QUANTITIES[track.name][PRIMARY[track.name][0]][0]
    items, a = _joined(track, first, population)
    _, b = _joined(track, second, population)
    pairs = [(i, float(y[column]) - float(x[column])) for i, x, y in zip(items, a, b, strict=True)
             if x is not None and y is not None]
    block = mean_block([d for _, d in pairs], [i.participant_id for i, _ in pairs], len(items) - len(pairs),
                        seed, resamples)
    return {"population": population, **block}


def judged_report(track, verdicts, seed: int, resamples: int, progress=None) -> dict:
    rows = by_condition(verdicts)
    conditions = ordered_conditions(rows)
    out = {"judge": verdicts.judge, "conditions": {}, "contrasts": {}}
    for condition in conditions:
        out["conditions"][condition] = {
            **{name: quantity(track, rows[condition], name, seed, resamples) for name in QUANTITIES[track.name]},
            **{f"{name}_auroc": auroc_block(track, rows[condition], name, seed, resamples)
               for name in AUROCS[track.name]}}
        if progress:
            progress()
    for k, first in enumerate(conditions):
        for second in conditions[k + 1:]:
            out["contrasts"][f"{second} - {first}"] = {
                population: contrast(track, rows[first], rows[second], population, seed, resamples)
                for population in PRIMARY[track.name][1]}
    items = track.by_id
    out["verdicts_on_unposed_items"] = sorted({i for i in verdicts.frame["item_id"] if not items[i].posed})
    return out


def primary_means(judged: dict, track_name: str) -> dict[str, dict[str, float]]:
    """Per condition, the per-participant means of the primary quantity (for the plot)."""
    name = PRIMARY[track_name][0]
    return {c: q[name]["by_participant"] for c, q in judged["conditions"].items()}

