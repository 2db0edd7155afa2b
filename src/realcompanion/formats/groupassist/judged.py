"""Judged GroupAssistBench scores from a verdicts file: per instance, then by level x dependency.

Verdicts file: the rows `realcompanion judge` writes, {"instance_id", "condition", "facts" (L1) or
"criteria" (L2), "judge": {"model", "prompt_sha256", "temperature"}}, checked as `judging` checks a
judge's answer; within a level every row names the same judge and prompt.

Per instance (formulas in `scoring`): L1 Atom Recall = share of the non-distractor atoms some stated fact
names; factual F1 from precision = stated facts naming a non-distractor atom / stated facts, each fact
once (`scoring.distinct_facts`; a fact naming the distractor or no atom is an error). L2 S and pass from the
criteria judged met.

Aggregation, per condition: for L1 (Atom Recall, factual F1) and L2 (S, pass) the mean over the eval
instances of each dependency M1-M3 and of all, with the RealCompanion scorer's machinery
(`scoring.judged.mean_block`): pooled and macro means, per-group means, n, missing (eval instances of
the cell without a verdict, left out), unscored (verdicts on instances without a reference atom or a
positive criterion, which define no score: left out and named), and percentile intervals from resampling
groups, the unit whose instances share a history (as participants are for RealCompanion).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...json_layout import Rows
from ...scoring.verdicts import Verdicts
from .judging import Instances, read_verdicts
from .scoring import Rubric, distinct_facts, factual_f1, reference_atoms, share_found

QUANTITIES = {"L1": ("atom_recall", "factual_f1"), "L2": ("S", "pass")}
QUANTITY_NAMES = [q for names in QUANTITIES.values() for q in names]


def score_columns(instances: Instances, verdicts: Verdicts) -> dict[str, list]:
    """One list per column, a row per verdict: condition, instance, group, level, dependency, then the quantities of
    each level in the order the levels first come (a level's rows leave the other level's NaN). Each instance's
    reference atoms or rubric are read once, for all its verdicts."""
    frame, n = verdicts.frame, len(verdicts.frame)
    ids = frame["instance_id"].tolist()
    facts, criteria = (frame[name].tolist() if name in frame else [None] * n for name in ("facts", "criteria"))
    rows = [instances.rows[i] for i in ids]
    levels = [row["level"] for row in rows]
    out = {"condition": frame["condition"].tolist(), "instance_id": ids, "group_id": [r["group_id"] for r in rows],
           "level": levels, "dependency": [r["dependency"] for r in rows]}
    for level in dict.fromkeys("L1" if level == "L1" else "L2" for level in levels):
        out |= {q: [float("nan")] * n for q in QUANTITIES[level]}
    targets, rubrics = {}, {}
    for k, (instance_id, level) in enumerate(zip(ids, levels)):
        if level == "L1":
            if instance_id not in targets:
                wanted = reference_atoms(instances.atoms[instance_id])
                targets[instance_id] = wanted, set(wanted)
            wanted, wanted_set = targets[instance_id]
            stated = distinct_facts(facts[k])
            named = [atom for atom, _ in stated]
            recall = share_found(wanted, set(named))
            out["atom_recall"][k] = recall
            out["factual_f1"][k] = factual_f1(recall, sum(a in wanted_set for a in named), len(stated))
        else:
            if instance_id not in rubrics:
                rubrics[instance_id] = Rubric(instances.criteria[instance_id])
            out["S"][k], out["pass"][k] = rubrics[instance_id].score({c for c, met in criteria[k].items() if met})
    return out


def instance_scores(instances: Instances, verdicts: Verdicts) -> pd.DataFrame:
    """`score_columns` as a frame."""
    return pd.DataFrame(score_columns(instances, verdicts))


def cell_members(instances: Instances) -> dict:
    """{(level, dependency or "all"): the eval instances of that cell}, dependencies in the release's order."""
    return {(level, dependency): [i for i in instances.eval if instances.rows[i]["level"] == level
                                  and dependency in ("all", instances.rows[i]["dependency"])]
            for level in QUANTITIES for dependency in (*instances.vocabulary["dependency"], "all")}


def cells(instances: Instances, scores: pd.DataFrame, seed: int, resamples: int) -> dict:
    """{level: {dependency or "all": {quantity: mean block}}} for one condition's scores."""
    return next(iter(by_condition(instances, scores, seed, resamples).values()))


def by_condition(instances: Instances, scores: pd.DataFrame, seed: int, resamples: int, progress=None) -> dict:
    """{condition: `cells`}, conditions sorted. Each block is `mean_block`'s (`scoring.judged`), by the same
    arithmetic: the pooled mean numpy's sum of the values over their count (pandas' mean), per group pandas'
    group-by sums and counts, the group means their quotients and the macro mean the mean of those, and intervals from
    the group sums and counts (`bootstrap.table_intervals`, every block with as many groups resampled at once). The
    frame is split once (`groupby(...).indices`) and each block grouped by group numbers, not by cutting the frame
    and grouping group ids three times a block."""
    from ...scoring.bootstrap import table_intervals

    members = cell_members(instances)
    values = {q: scores[q].to_numpy(dtype=float) for q in QUANTITY_NAMES if q in scores}
    codes, names = pd.factorize(scores["group_id"], sort=True)
    keys = {"dependency": ["condition", "level", "dependency"], "all": ["condition", "level"]}
    rows = {kind: scores.groupby(by, sort=True).indices for kind, by in keys.items()}  # positions in the frame's order
    out, measured, none = {}, [], np.array([], dtype=np.intp)
    for condition in sorted(set(scores["condition"])):
        out[condition] = {}
        for (level, dependency), wanted in members.items():
            chosen = rows["all"].get((condition, level), none) if dependency == "all" else \
                rows["dependency"].get((condition, level, dependency), none)
            out[condition].setdefault(level, {})[dependency] = blocks = {}
            for q in QUANTITIES[level]:
                found = values[q][chosen] if q in values else np.array([])
                held = ~np.isnan(found)
                blocks[q] = block = _block(found[held], codes[chosen][held], names, len(wanted) - len(chosen))
                if block["n"]:
                    measured.append(block)
                block["unscored"] = len(chosen) - int(held.sum())
        if progress:
            progress()
    tables = [block.pop("_table") for block in measured]
    for block, ci in zip(measured, table_intervals(tables, seed, resamples)):
        block["ci"] = ci
        block["unscored"] = block.pop("unscored")  # after the intervals, as in every block
    return out


def _block(values: np.ndarray, codes: np.ndarray, names, missing: int) -> dict:
    """`mean_block` without its intervals (`pooled_and_macro`'s figures), and the group sums and counts the
    intervals are drawn from (`_table`)."""
    if not len(values):
        return {"n": 0, "pooled": None, "macro": None, "by_group": {}, "n_by_group": {}, "missing": missing}
    sums = pd.Series(values).groupby(codes, sort=True).sum()
    present, counts = np.unique(codes, return_counts=True)  # the group-by's counts: no value is NaN here
    means = sums.to_numpy() / counts.astype(float)
    groups = names[present]
    return {"n": len(values), "pooled": float(values.sum() / np.float64(len(values))),
            "macro": float(means.sum() / np.float64(len(means))),
            "by_group": {str(g): float(m) for g, m in zip(groups, means)},
            "n_by_group": {str(g): int(c) for g, c in zip(groups, counts)}, "missing": missing,
            "_table": (sums.to_numpy(), counts)}


def judged_report(instances: Instances, verdicts: Verdicts, seed: int, resamples: int, progress=None) -> dict:
    columns = score_columns(instances, verdicts)
    scores = pd.DataFrame(columns)
    # a row per verdict, made from the columns (a level's rows leave the other level's quantities null: NaN is not
    # JSON), as `report.records` makes it of the frame
    nulled = [[None if null else v for v, null in zip(values, scores[name].isna().to_numpy())]
              if scores[name].hasnans else values for name, values in columns.items()]
    per_instance = Rows(dict(zip(columns, nulled)))
    unscored = scores.loc[scores.reindex(columns=QUANTITY_NAMES).isna().all(axis=1), "instance_id"].unique().tolist()
    return {"judge": verdicts.judge, "conditions": by_condition(instances, scores, seed, resamples, progress),
            "per_instance": per_instance, "unscored": unscored}


def run(args) -> int:
    """`realcompanion score <GroupAssistBench folder> --verdicts V.jsonl`."""
    import sys

    from ...collector import paused

    if args.run_file or not args.verdicts:
        print("error: a GroupAssistBench release is scored from --verdicts (rankings: `realcompanion baselines`)",
              file=sys.stderr)
        return 2
    with paused():  # a million verdict objects forming no cycle: the collector's passes cost 15% of a run
        return _scored(args)


def _scored(args) -> int:
    from tqdm import tqdm

    from ...scoring import report as R
    from ...scoring.bootstrap import CONFIDENCE_LEVEL
    from ...scoring.checked import opened, unchanged
    from . import GroupAssistRelease

    release = opened(GroupAssistRelease, args, apart=True)  # its memory given back before any table is read here
    plot = R.checked_outputs(release, args, (args.verdicts,))
    instances = Instances(release)
    unchanged(release, ("instances", "atoms", "criteria"))
    verdicts = read_verdicts(args.verdicts, instances)
    conditions = verdicts.frame["condition"].nunique()
    with tqdm(total=conditions, unit="condition", desc="judged", disable=None) as bar:
        judged = judged_report(instances, verdicts, args.seed, args.resamples, progress=bar.update)
    out = R.envelope(release, "score", release_parameters=("score",),
                     scoring={"confidence_level": CONFIDENCE_LEVEL, "resampled_unit": "group"},
                     seed=args.seed, resamples=args.resamples, evaluation_language=instances.lang,
                     inputs={"verdicts": {"file": verdicts.path, "sha256": verdicts.sha256}})
    out["judged"] = judged
    stamps = "; ".join(f"{level} judge {j['model']} (prompt {j['prompt_sha256'][:12]}, temperature {j['temperature']})"
                       for level, j in verdicts.judge.items())
    text = [f"verdicts: {len(verdicts.frame)} rows, judged in {instances.lang}; {stamps}"]
    unscored = sorted(judged["unscored"])
    if unscored:
        text.append(f"warning: {len(unscored)} instances judged have no reference atom (L1) or no positive criterion "
                    f"(L2), so no score, and are left out (unscored): {', '.join(unscored)}; run `realcompanion "
                    "validate`")
    text.append(R.grid({condition: {f"{level} {dep}": levels[level][dep][q]["pooled"]
                                    for level, q in (("L1", "atom_recall"), ("L2", "S")) for dep in levels[level]}
                        for condition, levels in judged["conditions"].items()},
                       "Table 3 shape: Atom Recall (L1) and S (L2) by condition, pooled over instances"))
    for condition, levels in judged["conditions"].items():
        table = {f"{level} {dep}": {q: R.with_ci(block) for q, block in quantities.items()} | {
            "n": next(iter(quantities.values()))["n"], "missing": next(iter(quantities.values()))["missing"]}
            for level, deps in levels.items() for dep, quantities in deps.items()}
        text.append(R.grid(table, f"{condition}: means by level x dependency, pooled [95% CI over groups]"))
    R.emit(release, "\n".join(text), out, args.json)
    if plot:
        from ...scoring.plot import per_participant

        series = {f"{c} {q}": block["by_group"] for c, levels in judged["conditions"].items()
                  for level, q in (("L1", "atom_recall"), ("L2", "S")) for block in [levels[level]["all"][q]]}
        per_participant(series, "GroupAssistBench by group", "score", plot, unit="group")
    return 0
