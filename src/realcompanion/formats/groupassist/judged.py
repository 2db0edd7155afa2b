"""Judged GroupAssistBench scores from a verdicts file: per instance, then by level x dependency.

Verdicts file: the rows `realcompanion judge` writes, {"instance_id", "condition", "facts" (L1) or
"criteria" (L2), "judge": {"model", "prompt_sha256", "temperature"}}, checked as `judging` checks a
judge's answer; within a level every row names the same judge and prompt.

Per instance (formulas in `scoring`): L1 Atom Recall = share of the non-distractor atoms some stated fact
names; factual F1 from precision = stated facts naming a non-distractor atom / stated facts (a fact
naming the distractor or no atom is an error). L2 S and pass from the criteria judged met.

Aggregation, per condition: for L1 (Atom Recall, factual F1) and L2 (S, pass) the mean over the eval
instances of each dependency M1-M3 and of all, with the RealCompanion scorer's machinery
(`scoring.judged.mean_block`): pooled and macro means, per-group means, n, missing (eval instances of
the cell without a verdict, left out), unscored (verdicts on instances without a reference atom or a
positive criterion, which define no score: left out and named), and percentile intervals from resampling
groups, the unit whose instances share a history (as participants are for RealCompanion).
"""
from __future__ import annotations

import pandas as pd

from ...scoring.report import records
from ...scoring.verdicts import Verdicts
from .judging import Instances, read_verdicts
from .scoring import Rubric, factual_f1, reference_atoms, share_found

QUANTITIES = {"L1": ("atom_recall", "factual_f1"), "L2": ("S", "pass")}


def instance_scores(instances: Instances, verdicts: Verdicts) -> pd.DataFrame:
    """One row per verdict: condition, instance, group, level, dependency and the level's quantities. Each
    instance's reference atoms or rubric are read once, for all its verdicts."""
    out, targets, rubrics = [], {}, {}
    frame = verdicts.frame
    answers = zip(*(frame[name] if name in frame else [None] * len(frame) for name in ("facts", "criteria")))
    for instance_id, condition, (facts, criteria) in zip(frame["instance_id"], frame["condition"], answers):
        instance = instances.rows[instance_id]
        scores = {"condition": condition, "instance_id": instance_id, "group_id": instance["group_id"],
                  "level": instance["level"], "dependency": instance["dependency"]}
        if instance["level"] == "L1":
            if instance_id not in targets:
                wanted = reference_atoms(instances.atoms[instance_id])
                targets[instance_id] = wanted, set(wanted)
            wanted, wanted_set = targets[instance_id]
            named = [f.get("atom") for f in facts]
            recall = share_found(wanted, set(named))
            scores |= {"atom_recall": recall,
                       "factual_f1": factual_f1(recall, sum(a in wanted_set for a in named), len(named))}
        else:
            if instance_id not in rubrics:
                rubrics[instance_id] = Rubric(instances.criteria[instance_id])
            score, passed = rubrics[instance_id].score({c for c, is_met in criteria.items() if is_met})
            scores |= {"S": score, "pass": passed}
        out.append(scores)
    return pd.DataFrame(out)


def cell_members(instances: Instances) -> dict:
    """{(level, dependency or "all"): the eval instances of that cell}, dependencies in the release's order."""
    return {(level, dependency): [i for i in instances.eval if instances.rows[i]["level"] == level
                                  and dependency in ("all", instances.rows[i]["dependency"])]
            for level in QUANTITIES for dependency in (*instances.vocabulary["dependency"], "all")}


def cells(instances: Instances, scores: pd.DataFrame, seed: int, resamples: int, members: dict | None = None,
          pending: list | None = None) -> dict:
    """{level: {dependency or "all": {quantity: mean block}}} for one condition's scores. Given `pending`, the blocks'
    intervals and unscored counts are left to the caller's `finish`, so that every block of every condition with
    as many groups is resampled at once (`bootstrap.mean_intervals_many`)."""
    from ..realcompanion.scoring.judged import mean_block

    out: dict = {}
    own = [] if pending is None else pending
    levels, dependencies = scores["level"].to_numpy(), scores["dependency"].to_numpy()
    for (level, dependency), wanted in (members or cell_members(instances)).items():
        # the rows of the cell's instances (their level and dependency are the release's, `instance_scores`)
        chosen = scores[(levels == level) & ((dependencies == dependency) if dependency != "all" else True)]
        out.setdefault(level, {})[dependency] = {}
        for q in QUANTITIES[level]:
            values = chosen[q].dropna() if q in chosen else pd.Series(dtype=float)
            groups = chosen.loc[values.index, "group_id"].to_numpy()
            block = mean_block(values.to_numpy(), groups, len(wanted) - len(chosen), seed, resamples, unit="group",
                               intervals=False)
            out[level][dependency][q] = block
            own.append((block, values.to_numpy(), groups, len(chosen) - len(values)))
    if pending is None:
        finish(own, seed, resamples)
    return out


def finish(pending: list, seed: int, resamples: int) -> None:
    """Give each pending block of `cells` its intervals (when it has values), then its unscored count."""
    from ...scoring.bootstrap import mean_intervals_many

    measured = [(block, values, groups) for block, values, groups, _ in pending if block["n"]]
    for (block, _, _), ci in zip(measured, mean_intervals_many([(v, g) for _, v, g in measured], seed, resamples)):
        block["ci"] = ci
    for block, _, _, unscored in pending:
        block["unscored"] = unscored


def judged_report(instances: Instances, verdicts: Verdicts, seed: int, resamples: int, progress=None) -> dict:
    scores = instance_scores(instances, verdicts)
    per_instance = records(scores)  # a level's rows leave the other level's quantities null
    quantities = [q for names in QUANTITIES.values() for q in names]
    unscored = scores.loc[scores.reindex(columns=quantities).isna().all(axis=1), "instance_id"].unique().tolist()
    out = {"judge": verdicts.judge, "conditions": {}, "per_instance": per_instance, "unscored": unscored}
    members, pending = cell_members(instances), []
    for condition, rows_ in scores.groupby("condition", sort=True):
        out["conditions"][condition] = cells(instances, rows_, seed, resamples, members, pending)
        if progress:
            progress()
    finish(pending, seed, resamples)
    return out


def run(args) -> int:
    """`realcompanion score <GroupAssistBench folder> --verdicts V.jsonl`."""
    import sys

    from tqdm import tqdm

    from ...scoring import report as R
    from ...scoring.checked import opened
    from ..realcompanion.scoring.settings import CONFIDENCE_LEVEL
    from . import GroupAssistRelease

    if args.run_file or not args.verdicts:
        print("error: a GroupAssistBench release is scored from --verdicts (rankings: `realcompanion baselines`)",
              file=sys.stderr)
        return 2
    release = opened(GroupAssistRelease, args)
    plot = R.checked_outputs(release, args, (args.verdicts,))
    instances = Instances(release)
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
