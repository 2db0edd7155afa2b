"""Judged quantities (paper Tables 30, 35-37, 39-41), computed from a verdicts file only.

Each quantity is declared once below: the verdict field it reads, whether the
field is negated, and the population of items it is computed on.

chat
  content_match_judged     mean 0/1/2 verdict over every row put to a system,
                           scored rows and cold opens ("all judged rows",
                           Tables 5, 40)
  content_match            the same on the scored items (Table 35, 1,533)
  content_match_proportional   the same on the proportional stratum (Table 35)
  content_match_dependent  the same on memory-bearing items under the reading
                           (Table 35: recorded 404, strict 250)
  appropriate_application  share of replies asserting a past detail the probe
                           did not supply, on dependent items (Table 37)
  restraint                share of replies asserting no such detail, scored items
  misfire_rate             used-memory share (1 - restraint) on the scored probes
                           with an empty reference set, whatever the reading
                           (Table 30: "probes with an empty reference set";
                           Table 7 gives it one count, 1,129 = 1,533 - 404)
  misapplication           used-memory share on probes whose verified locus is
                           `none` (Tables 37, 39)
  cold_open_restraint      restraint on cold opens (the abstention stratum)
  attribution_rate         share of replies on memory-bearing items (rho* = 1)
                           judged to attribute what they recall to its source
                           (`attributed`; Table 7)
  locus_accuracy           share of replies on memory-bearing items whose
                           judged `locus` is the item's verified locus (Table 7)
  response_consistency     share of replies judged `consistent`, scored items
                           (Table 7)
                           These three read optional verdict fields; rows
                           without them count as missing.
  used_memory AUROC        `used_memory` against the dependent label, scored
                           proportional-stratum items: whether the replies
                           separate the probes that need memory. Table 30's
                           detectability is a detector's probability or BM25's
                           top-1 score (`detector`, `baselines`), not this
qa
  answer_accuracy          share with `answer_correct`, all questions, as the
                           verdict gives it (the judge prompt counts an answer
                           to an unanswerable question correct only if it
                           abstains; `abstained` does not change it)
  abstention_unanswerable  share abstained on unanswerable questions
  abstention_answerable    share abstained on answerable questions
  abstention AUROC         `abstained` against "not answerable", all questions

Every share (all but content match) also carries its Wilson score interval
over items, as Table 37 prints them (0/120 -> [0.0, 3.1], 56/120 ->
[38.0, 55.6]); means carry participant-bootstrap intervals (Table 36).

Items of a population with no verdict under a condition are counted as
`missing` and left out: no number is produced without its verdict. Intervals
resample participants (`bootstrap`); paired contrasts (Table 36) compare two
conditions on the items judged under both, for the track's primary quantity, and on the chat track each
contrast is split by ground-truth demand as Table 8 splits it (`decomposition`).
"""
from __future__ import annotations

from realcompanion.scoring.bootstrap import mean_intervals

from .auroc import auroc_summary
from .decomposition import decomposition
from .gold import COLD_OPEN
from .metrics import pooled_and_macro, wilson
from .settings import CONDITIONS

POPULATIONS = {
    "posed": lambda i: i.posed,
    "scored": lambda i: i.scored,
    "dependent": lambda i: i.scored and i.dependent,
    "proportional_scored": lambda i: i.scored and i.stratum == "proportional",
    "no_reference_set": lambda i: i.scored and i.references is not None and not i.references.size,
    "locus_none": lambda i: i.scored and i.locus == "none",
    "cold_open": lambda i: i.status == COLD_OPEN,
    "proportional": lambda i: i.in_detectability,
    "answerable": lambda i: i.scored and bool(i.answerable),
    "unanswerable": lambda i: i.scored and not i.answerable,
}
# name: (verdict field, negate, population)
QUANTITIES = {
    "chat": {
        "content_match_judged": ("content_match", False, "posed"),
        "content_match": ("content_match", False, "scored"),
        "content_match_proportional": ("content_match", False, "proportional_scored"),
        "content_match_dependent": ("content_match", False, "dependent"),
        "appropriate_application": ("used_memory", False, "dependent"),
        "restraint": ("used_memory", True, "scored"),
        "misfire_rate": ("used_memory", False, "no_reference_set"),
        "misapplication": ("used_memory", False, "locus_none"),
        "cold_open_restraint": ("used_memory", True, "cold_open"),
        "attribution_rate": ("attributed", False, "dependent"),
        "locus_accuracy": ("locus", False, "dependent"),
        "response_consistency": ("consistent", False, "scored"),
    },
    "qa": {
        "answer_accuracy": ("answer_correct", False, "scored"),
        "abstention_unanswerable": ("abstained", False, "unanswerable"),
        "abstention_answerable": ("abstained", False, "answerable"),
    },
}
# name: (score field, label, population)
AUROCS = {
    "chat": {"used_memory": ("used_memory", lambda i: i.dependent, "proportional")},
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


def mean_block(values, participants, missing: int, seed: int, resamples: int, share: bool = False,
               unit: str = "participant", intervals: bool = True) -> dict:
    """Pooled and macro mean of per-item values, per-participant (per-`unit`) means, n, `missing`, and intervals
    (with the Wilson interval too when the values are 0/1 shares; without `intervals`, the caller adds them)."""
    block = pooled_and_macro(values, participants, unit) | {"missing": missing}
    if block["n"] and intervals:
        block["ci"] = mean_intervals(values, participants, seed, resamples)
        if share:
            block["wilson"] = wilson(int(sum(values)), block["n"])
    return block


def quantity(track, rows: dict, name: str, seed: int, resamples: int) -> dict:
    column, negate, population = QUANTITIES[track.name][name]
    items, rows = _joined(track, rows, population)
    judged = [(i, r) for i, r in zip(items, rows, strict=True) if r is not None and r.get(column) is not None]
    values = [float(r[column] == i.locus) if column == "locus" else float(not r[column]) if negate
              else float(r[column]) for i, r in judged]
    block = mean_block(values, [i.participant_id for i, _ in judged], len(items) - len(judged), seed, resamples,
                        share=column != "content_match")
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
    if track.name == "chat":
        out["decomposition"] = {}
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
            if track.name == "chat":  # Table 8: the contrast split by ground-truth demand
                out["decomposition"][f"{second} - {first}"] = decomposition(track, rows[first], rows[second])
    items = track.by_id
    out["verdicts_on_unposed_items"] = sorted({i for i in verdicts.frame["item_id"] if not items[i].posed})
    out["verdicts_against_the_judge_protocol"] = against_protocol(track, verdicts)
    return out


def against_protocol(track, verdicts) -> list[dict]:
    """Question verdicts ({condition, item_id}) the judge prompt rules out (prompts/judge-qa.v1.txt): on an
    unanswerable question an answer is correct exactly when it abstains; on an answerable one an abstention is
    incorrect. They are scored as given (answer accuracy is the share the judge called correct), and named, so that
    a judge breaking its own rule is seen before its accuracy is quoted."""
    if track.name != "qa":
        return []
    items, out = track.by_id, []
    for row in verdicts.frame.to_dict("records"):
        correct, abstained, item = row.get("answer_correct"), row.get("abstained"), items[row["item_id"]]
        if not item.scored or not isinstance(correct, bool) or not isinstance(abstained, bool):
            continue
        if (abstained and correct) if item.answerable else (correct != abstained):
            out.append({"condition": row["condition"], "item_id": row["item_id"]})
    return sorted(out, key=lambda verdict: (verdict["condition"], verdict["item_id"]))


def primary_means(judged: dict, track_name: str) -> dict[str, dict[str, float]]:
    """Per condition, the per-participant means of the primary quantity (for the plot)."""
    name = PRIMARY[track_name][0]
    return {c: q[name]["by_participant"] for c, q in judged["conditions"].items()}

