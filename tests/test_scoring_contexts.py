"""`realcompanion contexts`: the Table 28 conditions, message by message."""
from __future__ import annotations

import json

import pytest
from raw_tracks import data_rows

from realcompanion.cli import main
from realcompanion.formats.realcompanion.scoring.gold import load_track
from realcompanion.formats.realcompanion.scoring.settings import CONDITIONS
from realcompanion.release import Release


@pytest.fixture(scope="module")
def contexts(repo, tmp_path_factory):
    folder = tmp_path_factory.mktemp("contexts")
    out = {}
    for condition in CONDITIONS:
        path = folder / f"{condition}.jsonl"
        assert main(["contexts", str(repo), "--condition", condition, "--out", str(path)]) == 0
        out[condition] = {r["item_id"]: r for r in map(json.loads, path.read_text().splitlines())}
    return out


@pytest.fixture(scope="module")
def chat(repo):
    return load_track(Release(repo), "chat")


def positions(chat, record):
    stream = chat.streams[record["participant_id"]]
    return [stream.position[m["dayid"]] for m in record["messages"]]


def test_items_put_to_a_system_get_a_context_withdrawn_rows_do_not(repo, contexts):
    rows = data_rows(repo, "chat")
    expected = {r["item_id"] for r in rows if r["cold_open"] or (r["scoreable"] and not r["withdrawn"])}
    assert all(set(records) == expected for records in contexts.values())
    assert any(r["withdrawn"] for r in rows)


def test_every_context_message_precedes_the_probe(contexts, chat):
    for records in contexts.values():
        for item_id, record in records.items():
            assert all(p < chat.by_id[item_id].pool_end for p in positions(chat, record))


def test_condition_shapes(contexts, chat):
    from realcompanion.scoring.bm25 import Indexes

    indexes = Indexes(chat.streams)
    for item_id, item in chat.by_id.items():
        if not item.posed:
            continue
        assert contexts["C0"][item_id]["messages"] == []
        assert positions(chat, contexts["C1"][item_id]) == list(range(max(0, item.pool_end - 3), item.pool_end))
        assert positions(chat, contexts["C4"][item_id]) == list(range(max(0, item.pool_end - 10), item.pool_end))
        c3 = positions(chat, contexts["C3"][item_id])
        matching = (indexes[item.participant_id].scores(item.query, item.pool_end) > 0).sum()
        assert len(c3) == min(10, matching) and positions(chat, contexts["C3m"][item_id]) == sorted(c3)
        assert contexts["C3"][item_id]["heading"] == CONDITIONS["C3"]["heading"]


def test_recorded_context_order_is_thread_then_episodes_then_profile(repo, contexts, chat):
    release = Release(repo)
    evidence = {c["claim_id"]: c["evidence"] or [] for c in release.table("profile").to_pylist()}
    for row in release.table("chat").to_pylist():
        if row["item_id"] in contexts["C2"]:
            need = row["required_context"]
            cited = need["recent_context"] + need["episode_refs"] + [
                d for claim in need["profile_refs"] for d in evidence[claim]]
            got = [m["dayid"] for m in contexts["C2"][row["item_id"]]["messages"]]
            assert got == list(dict.fromkeys(cited))


def test_output_inside_the_release_is_refused(specimen, capsys):
    assert main(["contexts", str(specimen), "--condition", "C1", "--out", str(specimen / "schemas" / "c.jsonl")]) == 2
    assert "refusing to write" in capsys.readouterr().err
