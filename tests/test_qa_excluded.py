"""A qa row the release keeps out of scoring (`excluded`, with its reason): the paper scores 3,235 of its 3,312
questions (Tables 3, 41 against Table 11); the generator keeps out as many, and the scorers leave them out and
count them, in the terminal and in --json."""
from __future__ import annotations

import json
from collections import Counter

from raw_tracks import data_rows

from realcompanion.cli import main
from realcompanion.formats.realcompanion.synth.plan import paper_plan, specimen_plan
from realcompanion.schemas import Schemas


def test_the_paper_plan_keeps_out_the_77_questions_the_paper_does_not_score():
    plans = paper_plan()
    assert sum(p.qa for p in plans) == 3312 and sum(p.qa_excluded for p in plans) == 3312 - 3235
    assert sum(p.qa_excluded for p in paper_plan(3)) == 3 * 77


def test_the_specimen_keeps_out_one_question_per_reason(repo):
    reasons = Counter(r["excluded"] for r in data_rows(repo, "qa") if r["excluded"])
    assert set(reasons) == set(Schemas(repo).vocabulary["qa_excluded"])
    assert sum(reasons.values()) == sum(p.qa_excluded for p in specimen_plan())


def test_the_scorers_leave_out_and_count_the_rows_the_release_keeps_out(repo, tmp_path, capsys):
    rows = data_rows(repo, "qa")
    kept_out = dict(sorted(Counter(r["excluded"] for r in rows if r["excluded"]).items()))
    assert main(["baselines", str(repo), "--track", "qa", "--json", str(tmp_path / "qa.json")]) == 0
    said = capsys.readouterr().out
    assert f"{sum(kept_out.values())} of {len(rows)} rows kept out of scoring by the release" in said
    out = json.loads((tmp_path / "qa.json").read_text(encoding="utf-8"))
    assert out["kept_out"] == kept_out
    scored = {item["item_id"] for item in out["per_item"]}
    assert scored and not scored & {r["item_id"] for r in rows if r["excluded"]}
