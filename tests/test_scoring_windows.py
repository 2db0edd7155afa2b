"""`realcompanion windows` (Table 34) on the specimen, and offline cl100k_base token counts."""
from __future__ import annotations

import json

import numpy as np

from realcompanion.cli import main
from realcompanion.release import Release
from realcompanion.scoring.gold import load_track
from realcompanion.scoring.streams import Stream
from realcompanion.scoring.windows import distances, share_within, token_prefix_sums


def test_tokens_are_counted_offline_with_cl100k_base():
    stream = Stream("U01", ["a", "b", "c"], np.array(["user"] * 3, dtype=object), ["hello world", "", "hello"],
                    ["t"] * 3)
    assert token_prefix_sums({"U01": stream})["U01"].tolist() == [0, 2, 2, 3]


def test_share_within():
    assert share_within(np.array([3, 10, 11]), (10, 2)) == {"10": 2 / 3, "2": 0.0}


def test_windows_on_the_specimen(repo, tmp_path, capsys):
    out = tmp_path / "w.json"
    assert main(["windows", str(repo), "--json", str(out), "--plot", str(tmp_path / "w.png")]) == 0
    coverage = json.loads(out.read_text())["coverage"]
    chat = load_track(Release(repo), "chat")
    for reading, block in coverage.items():
        assert block["n"] == sum(bool(i.memory_bearing[reading]) and i.gold.size > 0 for i in chat.scored())
        for kind in ("messages", "tokens"):
            shares = list(block[kind].values())
            assert shares == sorted(shares) and 0 <= shares[0] and shares[-1] <= 1
    assert coverage["strict2"]["n"] <= coverage["strict"]["n"] <= coverage["recorded"]["n"]
    # gate E under the strict reading: every required message lies outside the recent window
    sums = token_prefix_sums(chat.streams)
    messages_back, _, _ = distances(chat, "strict", sums)
    assert messages_back.size and (messages_back > Release(repo).params["recent_window"]).all()
    assert (tmp_path / "w.png").read_bytes()[:4] == b"\x89PNG"
    assert "last 250 messages" in capsys.readouterr().out
