"""Reconstruction (paper Tables 6, 42, 43; Figure 5): a system's persona and profile against the release's.

A prediction folder holds `persona.jsonl` and/or `profile.jsonl` (or the same
under `data/`) in release format; only the fields compared are required:
persona rows {participant_id, slot, value}, profile rows {participant_id,
field, text}.

Units and matching
  persona  one unit per (participant, slot). The reference fills it when its
           `value` is not null, the prediction likewise; it matches when both
           are filled and the values match.
  profile  claims, grouped by (participant, field). Within a group, reference
           and predicted claims are paired one to one, greedily in file order
           (each reference claim takes the first unpaired predicted claim that
           matches it); a repeat left unpaired is an unmatched prediction, as
           each record is a unit on both sides (docs/scoring.md).
  match    `normalized` (default): equal after Unicode NFKC, case folding,
           NFKC again, punctuation (Unicode category P) removed and whitespace
           collapsed, none kept beside a Chinese or Japanese character. `judge`: equal under `normalized`, or a judge
           (prompts/match.v1.txt) says the two say the same thing about the
           person; the judge is stamped in the report.
Scores: precision = matches / predicted units, recall = matches / reference
units, F1 their harmonic mean; by group (persona category, profile field),
by participant and pooled. Several runs: per-run scores, mean (min-max)
(Table 42), and run agreement: for each filled reference unit, the share of
pairs of runs that agree on whether it is matched, averaged over units, with
the distribution of how many runs match each unit (Figure 5).
Transcript size (Table 43): per participant, the tokens of its messages
(`settings.TOKEN_ENCODING`), against its F1 averaged over the runs; Spearman's
rho across participants, with the exact permutation p-value (every pairing)
up to `EXACT_SPEARMAN_MAX` participants and scipy's asymptotic one beyond.
The adjusted variant keeps only the groups whose reference does not grow with
the history (`ADJUSTED_GROUPS`: Big Five and entities in the persona); the
paper drops every presence category of the profile, which leaves no profile
group, so the profile has no adjusted variant.
Cost (Tables 42, 44): a prediction folder may hold `usage.json`, {layer:
{"calls", "processed", "output"}} token and call counts, reported per run and
as mean (min-max).
"""
from __future__ import annotations

import os
from itertools import combinations
from pathlib import Path

from realcompanion.normalized import normalize
from realcompanion.release import ReadError
from realcompanion.scoring.jsonl import field, rows

LAYERS = ("persona", "profile")
ADJUSTED_GROUPS = {"persona": ("big_five", "entities"), "profile": ()}
EXACT_SPEARMAN_MAX = 10
USAGE = "usage.json"  # a run's cost, beside its predictions
USAGE_FIELDS = ("calls", "processed", "output")


def normalized_match(_attribute: str, reference: str, prediction: str) -> bool:
    return normalize(reference) == normalize(prediction)


def prediction_file(folder, layer: str) -> Path | None:
    """The folder's file of predictions for `layer`, or None when nothing is there by its name; what is there but
    no file (a folder, a broken link, a FIFO) is read, to be refused in one line: it was passed over, and the run
    scored on its other layer alone."""
    for candidate in (Path(folder) / f"{layer}.jsonl", Path(folder) / "data" / f"{layer}.jsonl"):
        if os.path.lexists(candidate):
            return candidate
    return None


def prediction_inputs(folder) -> list[Path]:
    """The files a prediction folder is read from."""
    return [*filter(None, (prediction_file(folder, layer) for layer in LAYERS)), Path(folder) / USAGE]


def read_prediction(path, layer: str, vocabulary: dict, participants: set) -> list[dict]:
    key, allowed, text = ("slot", vocabulary["persona_slot"], "value") if layer == "persona" else (
        "field", vocabulary["profile_field"], "text")
    out, seen = [], set()
    for line, row in rows(path):
        pid = field(row, "participant_id", (str,), path, line, choices=participants)
        group = field(row, key, (str,), path, line, choices=allowed)
        value = field(row, text, (str,), path, line, required=layer == "profile")
        if layer == "persona":
            if (pid, group) in seen:
                raise ReadError(path, f"slot '{group}' of {pid} appears twice", line=line, field="slot")
            seen.add((pid, group))
        out.append({"participant_id": pid, key: group, text: value})
    return out


def persona_units(reference: list[dict], predicted: list[dict], same, categories: dict) -> list[dict]:
    guess = {(r["participant_id"], r["slot"]): r["value"] for r in predicted}
    units = []
    for r in reference:
        value, pred = r["value"], guess.get((r["participant_id"], r["slot"]))
        units.append({"participant_id": r["participant_id"], "group": categories[r["slot"]],
                      "unit": f"{r['participant_id']}:{r['slot']}", "reference": value is not None,
                      "predicted": pred is not None,
                      "match": value is not None and pred is not None and same(r["slot"], value, pred)})
    return units


def profile_units(reference: list[dict], predicted: list[dict], same) -> list[dict]:
    groups: dict[tuple, list] = {}
    for r in predicted:
        groups.setdefault((r["participant_id"], r["field"]), []).append(r["text"])
    units = []
    for r in reference:
        pool = groups.get((r["participant_id"], r["field"]), [])
        hit = next((k for k, text in enumerate(pool) if text is not None and same(r["field"], r["text"], text)), None)
        if hit is not None:
            pool[hit] = None
        units.append({"participant_id": r["participant_id"], "group": r["field"], "unit": r["claim_id"],
                      "reference": True, "predicted": hit is not None, "match": hit is not None})
    for (pid, group), pool in groups.items():
        units += [{"participant_id": pid, "group": group, "unit": None, "reference": False, "predicted": True,
                   "match": False} for text in pool if text is not None]
    return units


def prf(units) -> dict:
    """Precision, recall and F1 of a set of units. F1 = 2 matched / (predicted + reference), the harmonic mean of
    the two where both are defined, and 0 when only one side has units (a run that predicts nothing misses
    every reference unit); null where a denominator is zero (F1: neither side has a unit)."""
    matched = sum(u["match"] for u in units)
    predicted, reference = sum(u["predicted"] for u in units), sum(u["reference"] for u in units)
    precision = matched / predicted if predicted else None
    recall = matched / reference if reference else None
    f1 = 2 * matched / (predicted + reference) if predicted + reference else None
    return {"precision": precision, "recall": recall, "f1": f1, "matched": matched, "predicted": predicted,
            "reference": reference}


def scores(units: list[dict]) -> dict:
    def by(key):
        out: dict[str, list] = {}
        for u in units:
            out.setdefault(u[key], []).append(u)
        return {k: prf(v) for k, v in sorted(out.items())}

    return {"pooled": prf(units), "by_group": by("group"), "by_participant": by("participant_id")}


def agreement(runs_units: list[list[dict]]) -> dict | None:
    """Run agreement and the vote distribution over filled reference units (needs two runs or more)."""
    if len(runs_units) < 2:
        return None
    votes: dict[str, list[bool]] = {}
    for units in runs_units:
        for u in units:
            if u["reference"]:
                votes.setdefault(u["unit"], []).append(u["match"])
    n = len(runs_units)
    pairs = [sum(a == b for a, b in combinations(v, 2)) / (n * (n - 1) / 2) for v in votes.values()]
    counts = [sum(v) for v in votes.values()]
    return {"runs": n, "units": len(votes), "agreement": sum(pairs) / len(pairs) if pairs else None,
            "votes": {str(m): counts.count(m) / len(counts) for m in range(n, -1, -1)} if counts else {}}


def spread(values: list) -> dict:
    values = [v for v in values if v is not None]
    return {"mean": sum(values) / len(values), "min": min(values), "max": max(values)} if values else {}


def judge_match(judge, prompt, failures: list):
    """A matcher: `normalized_match`, else the judge's word (cached per pair); unreadable answers are
    recorded in `failures` and count as no match."""
    from realcompanion.scoring.endpoint import Unreadable

    cache: dict[tuple, bool] = {}

    def same(attribute: str, reference: str, prediction: str) -> bool:
        if normalized_match(attribute, reference, prediction):
            return True
        key = (attribute, reference, prediction)
        if key not in cache:
            values = {"attribute": attribute.replace("_", " "), "reference": reference, "prediction": prediction}
            try:
                cache[key] = judge.ask(prompt, values, {"match": ((bool,), None)})["match"]
            except Unreadable as exc:  # the endpoint's answer, or the verdict in it (JudgeError)
                failures.append({"attribute": attribute, "reference": reference, "prediction": prediction,
                                 "reason": str(exc)})
                cache[key] = False
        return cache[key]

    return same


def spearman(x, y) -> dict:
    """Spearman's rho of two equal-length sequences, with its two-sided p (exact for small n)."""
    import math

    import numpy as np
    from scipy.stats import permutation_test, rankdata, spearmanr

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return {"n": int(x.size), "rho": None, "p": None, "p_method": None}
    rx = rankdata(x) - rankdata(x).mean()

    def rho(values, axis=-1):
        ry = rankdata(values, axis=axis)
        ry = ry - ry.mean(axis=axis, keepdims=True)
        return (ry * rx).sum(axis) / np.sqrt((rx ** 2).sum() * (ry ** 2).sum(axis))

    if x.size <= EXACT_SPEARMAN_MAX:
        result = permutation_test((y,), rho, permutation_type="pairings", n_resamples=math.inf, vectorized=True,
                                  batch=100_000)
        return {"n": int(x.size), "rho": float(result.statistic), "p": float(result.pvalue), "p_method": "exact"}
    result = spearmanr(x, y)
    return {"n": int(x.size), "rho": float(result.statistic), "p": float(result.pvalue), "p_method": "asymptotic"}


def size_correlation(release, units: dict[str, list[list[dict]]]) -> dict:
    """Table 43: per layer, transcript tokens and run-mean F1 per participant, and their Spearman rho (plain and
    adjusted)."""
    from .streams import load_streams
    from .windows import token_prefix_sums

    tokens = {pid: int(sums[-1]) for pid, sums in token_prefix_sums(load_streams(release)).items()}
    out = {}
    for layer, runs in units.items():
        if not runs:
            continue
        block = {"tokens": tokens}
        for variant, keep in (("all", None), ("adjusted", ADJUSTED_GROUPS[layer])):
            if keep is not None and not keep:
                block[variant] = None
                continue
            per_run = [scores([u for u in run if keep is None or u["group"] in keep])["by_participant"] for run in runs]
            f1 = {pid: spread([r.get(pid, {}).get("f1") for r in per_run]).get("mean") for pid in sorted(tokens)}
            f1 = {pid: v for pid, v in f1.items() if v is not None}
            block[variant] = {"groups": list(keep) if keep else "all", "f1": f1,
                              "spearman": spearman([tokens[p] for p in f1], list(f1.values()))}
        out[layer] = block
    return out


def read_usage(folder) -> dict | None:
    """The run's `usage.json` ({layer: {calls, processed, output}}), or None when the folder has none."""
    from realcompanion.schemas import read_json

    path = Path(folder) / USAGE
    if not os.path.lexists(path):  # a folder or a broken link by its name is refused, as a prediction file is
        return None
    usage = read_json(path)
    if not isinstance(usage, dict):
        raise ReadError(path, "must be an object {layer: {calls, processed, output}}")
    for layer, counts in usage.items():
        if layer not in LAYERS or not isinstance(counts, dict):
            raise ReadError(path, f"'{layer}' is not a layer ({', '.join(LAYERS)}) with counts", field=layer)
        for name in USAGE_FIELDS:
            value = counts.get(name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ReadError(path, f"{layer}.{name} must be a non-negative integer", field=name)
    return usage


def score_runs(release, folders, same, progress=None) -> dict:
    """Per run and layer: scores; across runs: spread of pooled scores and agreement. A layer the release leaves out
    is not scored (`skipped`); a release carrying neither is one line (exit 2)."""
    from .gold import refuse_absent

    if all(layer in release.absent for layer in LAYERS):
        refuse_absent(release, *LAYERS)
    vocabulary = release.schemas.vocabulary
    participants = set(release.table("persona").column("participant_id").to_pylist()) | set(
        release.table("profile").column("participant_id").to_pylist())
    reference = {layer: release.table(layer).to_pylist() for layer in LAYERS}
    runs, units = [], {layer: [] for layer in LAYERS}
    for folder in folders:
        run = {"folder": str(folder), "layers": {}, "usage": read_usage(folder)}
        for layer in LAYERS:
            path = prediction_file(folder, layer)
            if path is None or layer in release.absent:
                continue
            predicted = read_prediction(path, layer, vocabulary, participants)
            found = persona_units(reference[layer], predicted, same, vocabulary["persona_slot"]) \
                if layer == "persona" else profile_units(reference[layer], predicted, same)
            units[layer].append(found)
            run["layers"][layer] = scores(found)
        if not run["layers"]:
            carried = [layer for layer in LAYERS if layer not in release.absent]
            raise ReadError(folder, "holds neither persona.jsonl nor profile.jsonl (nor under data/)" if len(carried) > 1
                            else f"holds no {carried[0]}.jsonl (nor under data/): the release leaves out the other layer")
        runs.append(run)
        if progress:
            progress()
    summary = {layer: {metric: spread([r["layers"][layer]["pooled"][metric] for r in runs if layer in r["layers"]])
                       for metric in ("f1", "precision", "recall")} | {"agreement": agreement(units[layer])}
               for layer in LAYERS if units[layer]}
    for layer in summary:
        counts = [r["usage"][layer] for r in runs if r["usage"] and layer in r["usage"]]
        summary[layer]["usage"] = {name: spread([c[name] for c in counts]) for name in USAGE_FIELDS} if counts else None
    return {"runs": runs, "summary": summary, "size_correlation": size_correlation(release, units),
            "skipped": [layer for layer in LAYERS if layer in release.absent]}
