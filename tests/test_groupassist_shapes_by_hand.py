"""GroupAssistBench `score` on legal shapes the first hand-built release lacks, every figure worked out by hand.

The release of `tiny_groupassist`, 44 turns, with three more eval instances of G01:

instance   level  dependency  cutoff  what it holds
G01:I0008  L1     M3          38      the dinner was on Friday (turn 10, member_01) and moved to Saturday (turn 18,
                                      member_01): atoms T01 Friday (the distractor), T02 Saturday, T03 peanuts
                                      (turn 5, member_02), T04 spicy (turn 8, member_03)
G01:I0006  L2     M1          40      the fewest criteria a rubric may hold (positive_min 3, no penalty), one of
                                      them mandatory: grounding 3 (the trip, turn 2), two optional services (1)
G01:I0007  L2     M2          42      only optional criteria (weight 1): grounding peanuts, grounding spicy,
                                      service; and an optional penalty (-1.5)

One group: every cell's macro mean is its pooled mean, and no cell has an interval (one group resampled is no
spread).

Not legal, so not built: a rubric of one criterion (the format fixes `positive_min` at 3, App. B); an L1 instance
without a scored atom (GC1, GC8: M1 has one memory unit, M2 and M3 two or more, one atom each); an M3 instance
recording several updates (GC3: one superseded and one current anchor).
"""
from __future__ import annotations

import json

import pytest
from tiny_groupassist import NUTS, SPECIAL, SPICY, TRIP, anchor, atom, build, criterion, instance

from realcompanion.cli import main

FRIDAY = ("聚餐定在周五", "the dinner is on Friday", "聚餐定在周五", "the dinner is on Friday")
SATURDAY = ("聚餐改到周六", "the dinner moved to Saturday", "聚餐改到周六", "the dinner moved to Saturday")
MORE_SPECIAL = SPECIAL | {
    10: ("member_01", "聚餐定在周五", "the dinner is on Friday"),
    18: ("member_01", "聚餐改到周六", "the dinner moved to Saturday"),
    38: ("member_02", "@助手 聚餐是哪天，要注意什么", "@assistant which day is the dinner and what should we mind"),
    40: ("member_03", "@助手 帮我订出差的酒店", "@assistant book me a hotel for the business trip"),
    42: ("member_02", "@助手 帮大家点菜", "@assistant order dishes for everyone"),
}
MORE = {
    "instances": [instance(8, "L1", "M3", 38, ("聚餐改到周六，member_02对花生过敏，member_03喜欢吃辣",
                                               "the dinner moved to Saturday; member_02 is allergic to peanuts and "
                                               "member_03 likes spicy food"), MORE_SPECIAL),
                  instance(6, "L2", "M1", 40, special=MORE_SPECIAL), instance(7, "L2", "M2", 42, special=MORE_SPECIAL)],
    "anchors": [anchor(8, 1, 10, FRIDAY, 1) | {"m3_role": "superseded"},
                anchor(8, 2, 18, SATURDAY, 2) | {"m3_role": "current"},
                anchor(8, 3, 5, NUTS, 3), anchor(8, 4, 8, SPICY, 4),
                anchor(6, 1, 2, TRIP, 1), anchor(7, 1, 5, NUTS, 1), anchor(7, 2, 8, SPICY, 2)],
    "atoms": [atom(8, 1, FRIDAY) | {"distractor": True}, atom(8, 2, SATURDAY), atom(8, 3, NUTS), atom(8, 4, SPICY)],
    "criteria": [criterion(6, 1, "grounding", True, 3, 2, "酒店订在上海", "The hotel is in Shanghai"),
                 criterion(6, 2, "service", False, 1, None, "给出价格", "Gives the price"),
                 criterion(6, 3, "service", False, 1, None, "给出地址", "Gives the address"),
                 criterion(7, 1, "grounding", False, 1, 5, "避开花生", "Avoids peanuts"),
                 criterion(7, 2, "grounding", False, 1, 8, "有辣的菜", "Offers spicy dishes"),
                 criterion(7, 3, "service", False, 1, None, "给出菜名", "Names the dishes"),
                 criterion(7, 4, "penalty", False, -1.5, 5, "点了含花生的菜", "Orders a peanut dish", "current_state")],
}
JUDGE = {"model": "hand", "prompt_sha256": "0" * 64, "temperature": 0}


def fact(text, atom_number=None, instance_number=8):
    return {"fact": text, "atom": None if atom_number is None else f"G01:I{instance_number:04d}:T{atom_number:02d}"}


def met(instance_number, criteria, *met_ones):
    return {"criteria": {f"G01:I{instance_number:04d}:C{k:02d}": k in met_ones for k in range(1, criteria + 1)}}


VERDICTS = {  # (condition, instance): the judge's verdict
    ("sysC", 1): {"facts": [fact("member_01下周三去上海", 1, 1)]},  # recall 1, precision 1: F1 1
    # I0002 has no sysC verdict: missing
    # I0008: the superseded Friday (the distractor: an error), Saturday twice (one fact), peanuts, and one fact naming
    # no atom written twice (one under normalize): 4 distinct facts, 2 correct: precision 1/2; recall: Saturday and
    # peanuts of Saturday, peanuts, spicy (the distractor is no unit to recall): 2/3; F1 2 (1/2)(2/3) / (7/6) = 4/7
    ("sysC", 8): {"facts": [fact("聚餐在周五", 1), fact("聚餐在周六", 2), fact("Saturday dinner", 2), fact("花生过敏", 3),
                            fact("  Bring umbrellas! "), fact("bring umbrellas")]},
    ("sysC", 3): met(3, 4, 1, 2, 3),  # (3 + 2 + 1) / 6 = 1, every mandatory met, no penalty: pass
    ("sysC", 4): met(4, 4, 1),  # 3 / 7, C02 (mandatory) unmet: no pass
    ("sysC", 6): met(6, 3, 1),  # 3 / (3 + 1 + 1) = 3/5, its one mandatory criterion met: pass
    ("sysC", 7): met(7, 4),  # nothing met, no penalty committed: S 0 / 3 = 0, and it passes (nothing is mandatory)
    ("sysD", 6): met(6, 3, 2, 3),  # (1 + 1) / 5 = 2/5, its one mandatory criterion unmet: no pass
    ("sysD", 7): met(7, 4, 1, 3, 4),  # (1 + 1 - 1.5) / 3 = 1/6, a penalty committed: no pass
}


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    return build(tmp_path_factory.mktemp("shapes") / "release", special=MORE_SPECIAL, turns=44, more=MORE)


def score(release, folder, rows):
    path = folder / "v.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out = folder / "s.json"
    code = main(["score", str(release), "--verdicts", str(path), "--resamples", "200", "--json", str(out)])
    return code, json.loads(out.read_text(encoding="utf-8")) if code == 0 else None


def verdict_rows():
    return [{"instance_id": f"G01:I{n:04d}", "condition": condition, **verdict, "judge": JUDGE}
            for (condition, n), verdict in VERDICTS.items()]


def test_the_release_is_valid(release, capsys):
    assert main(["validate", str(release)]) == 0, capsys.readouterr().out


@pytest.fixture(scope="module")
def cells(release, tmp_path_factory):
    code, report = score(release, tmp_path_factory.mktemp("score"), verdict_rows())
    assert code == 0
    return report["judged"]["conditions"]


@pytest.mark.parametrize("condition, level, dependency, quantity, pooled, n, missing", [
    ("sysC", "L1", "M1", "atom_recall", 1.0, 1, 0),
    ("sysC", "L1", "M1", "factual_f1", 1.0, 1, 0),
    ("sysC", "L1", "M2", "atom_recall", None, 0, 1),  # I0002 unjudged
    ("sysC", "L1", "M3", "atom_recall", 2 / 3, 1, 0),  # I0008
    ("sysC", "L1", "M3", "factual_f1", 4 / 7, 1, 0),
    ("sysC", "L1", "all", "atom_recall", (1 + 2 / 3) / 2, 2, 1),  # 5/6
    ("sysC", "L1", "all", "factual_f1", (1 + 4 / 7) / 2, 2, 1),  # 11/14
    ("sysC", "L2", "M1", "S", (1 + 3 / 5) / 2, 2, 0),  # I0003 1, I0006 3/5: 4/5
    ("sysC", "L2", "M1", "pass", 1.0, 2, 0),
    ("sysC", "L2", "M2", "S", (3 / 7 + 0) / 2, 2, 0),  # I0004 3/7, I0007 0
    ("sysC", "L2", "M2", "pass", 1 / 2, 2, 0),  # I0004 fails, I0007 passes
    ("sysC", "L2", "all", "S", (1 + 3 / 5 + 3 / 7 + 0) / 4, 4, 0),  # (71/35) / 4 = 71/140
    ("sysC", "L2", "all", "pass", 3 / 4, 4, 0),
    ("sysD", "L2", "M1", "S", 2 / 5, 1, 1),  # I0006; I0003 unjudged
    ("sysD", "L2", "M2", "S", 1 / 6, 1, 1),  # I0007; I0004 unjudged
    ("sysD", "L2", "all", "S", (2 / 5 + 1 / 6) / 2, 2, 2),  # (17/30) / 2 = 17/60
    ("sysD", "L2", "all", "pass", 0.0, 2, 2),
])
def test_cells_by_hand(cells, condition, level, dependency, quantity, pooled, n, missing):
    block = cells[condition][level][dependency][quantity]
    assert (block["pooled"], block["n"], block["missing"]) == (
        None if pooled is None else pytest.approx(pooled), n, missing)
    if n:  # one group: its mean is the macro mean and the whole of by_group; no interval
        assert (block["macro"], block["by_group"], block["n_by_group"]) == (
            pytest.approx(pooled), {"G01": pytest.approx(pooled)}, {"G01": n})
    assert block.get("ci") in (None, {"pooled": None, "macro": None})
    assert block.get("unscored", 0) == 0


@pytest.mark.parametrize("change, message", [
    (lambda rows: rows + rows[-1:], "9 field 'condition': 'G01:I0007' under 'sysD' is already judged at line 8"),
    (lambda rows: rows + [rows[0] | {"instance_id": "G01:I0009"}],
     "9 field 'instance_id': unknown instance_id 'G01:I0009'"),
    (lambda rows: rows + [rows[0] | {"instance_id": "G01:I0005"}],  # excluded by the audit: no instance to score
     "9 field 'instance_id': unknown instance_id 'G01:I0005'"),
])
def test_a_repeated_unknown_or_excluded_verdict_is_one_line(release, tmp_path, capsys, change, message):
    assert score(release, tmp_path, change(verdict_rows()))[0] == 2
    assert capsys.readouterr().err == f"error: {tmp_path / 'v.jsonl'}:{message}\n"


def test_per_instance_figures_by_hand(release, tmp_path):
    """Each judged instance once per condition: Atom Recall and F1 for L1, S and pass (1 or 0) for L2."""
    code, report = score(release, tmp_path, verdict_rows())
    got = {(r["condition"], r["instance_id"][-1], k): r[k] for r in report["judged"]["per_instance"]
           for k in ("atom_recall", "factual_f1", "S", "pass")}
    expected = {
        ("sysC", "1"): (1.0, 1.0, None, None), ("sysC", "8"): (2 / 3, 4 / 7, None, None),
        ("sysC", "3"): (None, None, 1.0, 1.0), ("sysC", "4"): (None, None, 3 / 7, 0.0),
        ("sysC", "6"): (None, None, 3 / 5, 1.0), ("sysC", "7"): (None, None, 0.0, 1.0),
        ("sysD", "6"): (None, None, 2 / 5, 0.0), ("sysD", "7"): (None, None, 1 / 6, 0.0)}
    assert got == pytest.approx({(*key, k): v for key, values in expected.items()
                                 for k, v in zip(("atom_recall", "factual_f1", "S", "pass"), values, strict=True)})
    assert report["judged"]["unscored"] == []
