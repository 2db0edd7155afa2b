"""Gold sets, the six baselines and the controls on the shipped specimen."""
from __future__ import annotations

import json

import numpy as np
import pytest
from raw_tracks import raw_track

from realcompanion.cli import main
from realcompanion.formats.realcompanion.scoring.baselines import METHODS, run_baselines, summarize_baselines
from realcompanion.formats.realcompanion.scoring.controls import GOLD_SETS, substituted_golds
from realcompanion.formats.realcompanion.scoring.gold import load_track
from realcompanion.formats.realcompanion.scoring.metrics import metric_names
from realcompanion.release import Release


@pytest.fixture(scope="module", params=["chat", "qa"])
def scored(request, repo):
    track = load_track(Release(repo), request.param)
    frame, _ = run_baselines(track, seed=0)
    return track, frame, summarize_baselines(track, frame, 0, 100)


def test_every_row_is_scored_or_listed_with_its_reason(scored, repo):
    track, _, _ = scored
    reasons, retrievable = raw_track(repo, track.name)
    assert sorted((row["item_id"], row["reason"]) for row in track.excluded()
                  if row["population"] == "all") == sorted(reasons.items())
    assert [item.item_id for item in track.retrievable()] == list(retrievable)


def test_required_messages_precede_the_probe_and_distant_means_memory_bearing(scored, repo):
    track, _, _ = scored
    window = json.loads((repo / "datapackage.json").read_text(encoding="utf-8"))["realcompanion"]["recent_window"]
    _, retrievable = raw_track(repo, track.name)
    for item in track.retrievable():
        row, pool, gold, references = retrievable[item.item_id]
        dayids = track.streams[item.participant_id].dayids
        assert {dayids[p] for p in item.gold} == gold
        assert {dayids[p] for p in item.references} == references
        if track.name == "chat":
            assert item.distant == (row["memory_bearing"]["recorded"] and bool(references))
        else:
            assert item.distant == (not gold & {m["dayid"] for m in pool[-window:]})


def test_chat_required_messages_include_the_thread(repo):
    release = Release(repo)
    track = load_track(release, "chat")
    rows = {r["item_id"]: r for r in release.table("chat").to_pylist()}
    thread_only = [i for i in track.scored() if rows[i.item_id]["required_context"]["recent_context"]
                   and not rows[i.item_id]["required_context"]["episode_refs"]
                   and not rows[i.item_id]["required_context"]["profile_refs"]]
    assert thread_only and all(i.gold.size and not i.references.size and not i.distant for i in thread_only)


def test_oracle_is_exactly_one_and_broken_oracle_exactly_zero(scored):
    """Every hit and MRR of the oracle is 1; its recall@k is min(k, |gold|) / |gold| (Table 30's recall over the
    whole gold set); the broken oracle is 0 on everything."""
    _, frame, summaries = scored
    for gold_set in GOLD_SETS:
        for population, block in summaries["oracle"][gold_set].items():
            rows = frame[(frame["method"] == "oracle") & (frame["gold_set"] == gold_set)
                         & (frame["population"] == population)]
            for metric in metric_names():
                if metric.startswith("recall@"):
                    k = int(metric.split("@")[1])
                    expected = (np.minimum(k, rows["gold_size"]) / rows["gold_size"]).mean()
                    assert block[metric]["pooled"] == pytest.approx(expected)
                else:
                    assert block[metric]["pooled"] == 1.0 and block[metric]["macro"] == 1.0, (gold_set, population)
                assert summaries["broken_oracle"][gold_set][population][metric]["pooled"] == 0.0
                assert summaries["broken_oracle"][gold_set][population][metric]["macro"] == 0.0


def test_bm25_beats_recency_on_distant_items(scored):
    _, _, summaries = scored
    bm25, recency = summaries["bm25"]["actual"]["distant"], summaries["recency"]["actual"]["distant"]
    assert bm25["n"] > 0
    assert bm25["hit@5"]["pooled"] > recency["hit@5"]["pooled"]
    assert bm25["mrr"]["pooled"] > recency["mrr"]["pooled"]


def test_controls_keep_the_pool_the_gold_size_and_the_distances(scored):
    track, _, _ = scored
    items = track.retrievable()
    golds = substituted_golds(track, items, seed=0)
    for population in ("all", "distant"):
        members = [(i, g) for i in items for p, g in track.populations(i).items() if p == population]
        actual = sorted(tuple(sorted(i.pool_end - g)) for i, g in members)
        permuted = []
        for item, gold in members:
            substituted = golds[item.item_id][population]
            randomized, shifted = substituted["position_randomized"], substituted["offset_permuted"]
            assert randomized.size == gold.size and randomized.max() < item.pool_end
            assert shifted.size and shifted.min() >= 0 and shifted.max() < item.pool_end
            permuted.append(tuple(sorted(item.pool_end - shifted)))
        assert set(permuted) <= set(actual)  # each item takes one of the population's distance sets


def test_same_seed_same_numbers_other_seed_other_random_ranking(repo):
    track = load_track(Release(repo), "qa")
    first, _ = run_baselines(track, seed=5)
    again, _ = run_baselines(track, seed=5)
    other, _ = run_baselines(track, seed=6)
    assert first.equals(again)
    random_rows = (first["method"] == "random").to_numpy()
    assert not np.array_equal(first.loc[random_rows, "mrr"].to_numpy(), other.loc[random_rows, "mrr"].to_numpy())


def test_cli_report_names_release_and_parameters(repo, tmp_path, capsys):
    out = tmp_path / "b.json"
    assert main(["baselines", str(repo), "--track", "chat", "--resamples", "50", "--json", str(out),
                 "--plot", str(tmp_path / "b.png")]) == 0
    report, release = json.loads(out.read_text()), Release(repo)
    assert report["release"]["version"] == release.version
    assert report["release"]["format_version"] == release.params["format_version"]
    assert report["parameters"]["release"]["recent_window"] == release.params["recent_window"]
    assert report["parameters"]["seed"] == 0 and report["parameters"]["scoring"]["cutoffs"] == [1, 5, 20]
    assert set(report["baselines"]) == set(METHODS)
    assert {row["item_id"] for row in report["per_item"]} == {i.item_id for i in load_track(release, "chat")
                                                               .retrievable()}
    assert report["detectability"]["bm25_top1"]["n"] > 0
    assert (tmp_path / "b.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Broken oracle" in capsys.readouterr().out


def test_cli_refuses_to_write_into_the_release(specimen, capsys):
    assert main(["baselines", str(specimen), "--track", "qa", "--json", str(specimen / "data" / "x.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "refusing to write" in err and "\n" not in err
    assert not (specimen / "data" / "x.json").exists()


def test_unknown_reading_is_a_one_line_error(repo, capsys):
    assert main(["baselines", str(repo), "--track", "chat", "--reading", "loose"]) == 2
    assert "unknown reading 'loose'" in capsys.readouterr().err


def test_citations_after_the_probe_are_left_out_and_counted(specimen, capsys):
    path = specimen / "data" / "chat.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    row = next(r for r in rows if r["required_context"]["episode_refs"] and r["scoreable"])
    source = [json.loads(line) for line in (specimen / "data" / "source.jsonl").read_text().splitlines()]
    later = next(s["dayid"] for s in source if s["participant_id"] == row["participant_id"]
                 and s["dayid"] > row["probe_dayid"])
    row["required_context"]["episode_refs"].append(later)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    track = load_track(Release(specimen), "chat")
    assert track.dropped_citations() == {row["item_id"]: 1}
    item = track.by_id[row["item_id"]]
    assert item.gold.max() < item.pool_end
    assert main(["baselines", str(specimen), "--track", "chat", "--resamples", "10", "--unvalidated"]) == 0
    assert "1 citations on 1 items left out of the gold" in capsys.readouterr().out


def test_small_pools_are_flagged_at_each_cutoff():
    from types import SimpleNamespace

    from realcompanion.formats.realcompanion.scoring.retrieval import pool_report

    items = [SimpleNamespace(item_id=name, pool_end=size) for name, size in (("a", 1), ("b", 4), ("c", 300))]
    report = pool_report(items)
    assert (report["min"], report["median"], report["max"]) == (1, 4.0, 300)
    assert report["k_at_least_pool"] == {"1": ["a"], "5": ["a", "b"], "20": ["a", "b"]}


def test_a_track_without_gold_is_reported_not_crashed(specimen, capsys):
    path = specimen / "data" / "qa.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for row in rows:
        row["evidence"] = []
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["baselines", str(specimen), "--track", "qa", "--resamples", "10", "--unvalidated"]) == 0
    kept_out = sum(1 for row in rows if row["excluded"])
    assert f"0 retrieval-scoreable items; {kept_out} of {len(rows)} rows kept out of scoring by the release" in \
        (said := capsys.readouterr().out) and f"not retrieval-scored: no evidence {len(rows) - kept_out}" in said
