"""`realcompanion baselines <GroupAssistBench folder>`: full context, BM25 and dense top-k, per eval instance and
by level x dependency.

Each language the release declares is scored on its own text (`groupassist.languages`; the first, Chinese in the
paper's release, is the language of evaluation, whose report opens with the history sizes). Dense retrieval
runs when `--dense-endpoint` names an OpenAI-compatible embeddings API; without one the report says it
was not run. The report opens like every score report (`scoring.report.envelope`).
"""
from __future__ import annotations

from . import GroupAssistRelease
from .scoring import SETTINGS, baselines

NOT_RUN = "not run (no --dense-endpoint given)"


def run(args) -> int:
    from tqdm import tqdm

    from ...scoring import report as R
    from ...scoring.checked import opened
    from ...scoring.embeddings import embedder_from
    from ...scoring.options import bm25_fallback

    release = opened(GroupAssistRelease, args)
    plot = R.checked_outputs(release, args)
    embedder = embedder_from(args)
    k = release.params["retrieval_k"]
    out = R.envelope(release, "baselines", release_parameters=("retrieval_k", "tokenizer"), scoring=SETTINGS,
                     evaluation_language=release.evaluation_language)
    fallback = bm25_fallback(args)
    out["parameters"]["bm25_fallback"] = fallback
    out.update(tokenizer=release.params["tokenizer"], k=k,
               dense=embedder.stamp() if embedder else {"run": False, "reason": NOT_RUN}, languages={})
    text, cells, tied = [] if embedder else [f"dense: {NOT_RUN}"], {}, []
    if not (release.frame("instances")["split"] == "eval").any():
        R.emit(release, "no eval instances (split eval): nothing to score", out, args.json)
        return 0
    for lang in release.languages:
        with tqdm(total=0, unit="text", desc=f"embeddings ({lang})", disable=None if embedder else True) as bar, \
                tqdm(total=0, unit="instance", desc=f"baselines ({lang})", disable=None) as instances_bar:
            frame = baselines(release, k, lang, embedder, bar, instances_bar, fallback)
        if embedder:
            tied += [lang] if embedder.all_tied() else []
            embedder.cache.clear()  # the other language's texts are other texts: keep one language's vectors at a time
        table = by_level_dependency(frame.drop(columns="anchors_outside_history"))
        out["languages"][lang] = {"instances": R.records(frame), "by_level_dependency": R.records(table.reset_index())}
        if lang == release.evaluation_language:
            text += [history_line(frame, k), *anchor_warnings(frame)]
        text += [f"{lang}: anchor recall and context tokens by level x dependency",
                 table.to_string(float_format=R.fixed, na_rep="-"), ""]
        cells[lang] = {method: {f"{level} {dependency}": value for (level, dependency), value in table[column].items()}
                       for method, column in _recall_columns(table, k).items()}
    if tied:
        text.insert(0, f"warning: the embeddings endpoint gave every text the same vector ({', '.join(tied)}), so "
                       "every dense score ties and dense ranks each history most recent first; check "
                       "--dense-endpoint and --dense-model")
    if embedder:
        out["dense"]["requests"] = embedder.requests
    R.emit(release, "\n".join(text), out, args.json)
    if plot:
        from ...scoring.plot import bars_by_cell

        bars_by_cell(cells, f"Anchor recall by level x dependency (eval instances, k = {k})", "anchor recall", plot)
    return 0


def history_line(frame, k: int) -> str:
    """History sizes, and the instances whose whole history fits in the top k (any ranker then reaches every
    anchor: flagged, as RealCompanion flags pools of at most k messages)."""
    sizes, short = frame["history"], frame.loc[frame["history"] <= k, "instance_id"].tolist()
    return (f"history before the cutoff: min {sizes.min()}, median {sizes.median():g}, max {sizes.max()} records; "
            f"k >= history: {len(short)} instances" + (f" ({', '.join(short)})" if short else ""))


def anchor_warnings(frame) -> list[str]:
    """One line for each way an instance's anchors break the release's rules (gate i): no memory unit, so no anchor
    recall; or some outside the history, so each is a miss for every ranker (as RealCompanion reports citations
    after the pool)."""
    found = {"cite no anchor of a memory unit (only premises, profile-only or superseded anchors), so have no anchor "
             "recall (null, left out of the recall means; counted in n)":
             frame["full_recall"].isna(),
             "cite anchor messages outside their history (at or after the cutoff, or not of the group): each is a "
             "miss for every ranker, full context included": frame["anchors_outside_history"] > 0}
    return [f"warning: {int(mask.sum())} eval instances {what}: {', '.join(frame.loc[mask, 'instance_id'])}; run "
            "`realcompanion validate`" for what, mask in found.items() if mask.any()]


def by_level_dependency(frame):
    """Mean of every per-instance figure, and the instance count n, over the instances of each level x dependency
    cell, of each level ("L1 all": Table 3's "L1 avg."), and of every instance ("all all": its one context-token
    figure per method); pooled over instances, so a level's mean is not the mean of its three cells."""
    import pandas as pd

    rows = pd.concat([frame, frame.assign(dependency="all"), frame.assign(level="all", dependency="all")])
    grouped = rows.groupby(["level", "dependency"])  # sorted: L1 M1..M3, L1 all, L2 ..., all all
    return grouped.size().rename("n").to_frame().join(grouped.mean(numeric_only=True))


def _recall_columns(table, k: int) -> dict[str, str]:
    """The recall column of each method that ran, by its label."""
    named = {"full context": "full_recall", f"BM25 top-{k}": f"bm25_recall@{k}", f"dense top-{k}": f"dense_recall@{k}"}
    return {label: column for label, column in named.items() if column in table}
