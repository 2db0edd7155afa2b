"""A GroupAssistBench fork, end to end, as docs/forking.md §5 walks it.

Each console block of that section is run in order, in a copy of the specimen, after the edit its step describes
(the functions of `STEPS`, in the same order); every output line the guide shows must be a line the command prints
(a line ending in "..." is a line's beginning). The table of mistakes is checked the same way: each row's rule
fires, with the message the guide quotes.
"""
from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
from realcompanion.validators.groupassist.run import validate
from test_forks import edit_json, mistakes_table
from test_groupassist_rules import lone_group
from test_rules import read, write
from tiny_groupassist import SPEAKERS, messages

from realcompanion.cli import main
from realcompanion.formats.groupassist import SPECIMEN

GUIDE = Path(__file__).parents[1] / "docs" / "forking.md"
BASE = "groupassist-0.1.0"  # the release the fork starts from, beside it, as the guide's `diff` names it


def section() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    return text[text.index("## 5. A GroupAssistBench fork"):text.index("## Cutting a new version")]


# -- the guide's steps ---------------------------------------------------------

SAID = {3: ("member_01", "周六的烧烤定在滨江公园", "The Saturday barbecue is at Riverside Park"),
        7: ("member_02", "我对花生过敏", "I am allergic to peanuts"),
        12: ("member_03", "烧烤改到城北公园了", "The barbecue moved to North Park"),
        50: ("member_02", "@助手 周六的烧烤在哪里？", "@assistant Where is the Saturday barbecue?")}


def add_group(root: Path) -> None:
    """G05: three members and 61 records over turns 0-59; turn 10 holds two records."""
    history = messages("G05", SAID, 60)
    history.insert(11, dict(history[10], message_id="G05:m000010.1", speaker="member_02", role="member"))
    write(root, "messages", read(root, "messages") + history)
    write(root, "members", read(root, "members") + [{"group_id": "G05", "member_id": m, "profile": None}
                                                    for m in SPEAKERS[:3]])


OLD = ("滨江公园", "Riverside Park", "周六的烧烤在滨江公园", "The Saturday barbecue is at Riverside Park")
NEW = ("城北公园", "North Park", "周六的烧烤在城北公园", "The Saturday barbecue is at North Park")
NUTS = ("对花生过敏", "allergic to peanuts", "member_02对花生过敏", "member_02 is allergic to peanuts")
PLAN = ("帮我们安排一下周六的烧烤，给个方案。", "Please plan the Saturday barbecue and propose an arrangement.")


def _instance(n, level, dependency, origin, cutoff, requester, query, query_type=None, answer=(None, None)):
    return {"instance_id": f"G05:I{n:04d}", "group_id": "G05", "split": "eval", "level": level,
            "dependency": dependency, "origin": origin, "query_type": query_type, "requester": requester,
            "cutoff_turn": cutoff, "query_zh": query[0], "query_en": query[1], "history_contribution": "strong",
            "reference_answer_zh": answer[0], "reference_answer_en": answer[1]}


def _anchor(n, k, turn, memory, unit, m3_role=None):
    return {"anchor_id": f"G05:I{n:04d}:A{k:02d}", "instance_id": f"G05:I{n:04d}", "message_id": f"G05:m{turn:06d}",
            "span_zh": memory[0], "span_en": memory[1], "fact_zh": memory[2], "fact_en": memory[3], "unit": unit,
            "from_assistant": False, "profile_only": False, "m3_role": m3_role, "premise": False}


def _atom(n, k, unit, memory, distractor=False):
    return {"atom_id": f"G05:I{n:04d}:T{k:02d}", "instance_id": f"G05:I{n:04d}", "unit": unit,
            "text_zh": memory[2], "text_en": memory[3], "distractor": distractor}


def _criterion(n, k, kind, mandatory, weight, turn, memory=None, pattern=None):
    text = (("回复依据：" + memory[2], "The reply relies on: " + memory[3]) if kind == "grounding" else
            ("回复把" + memory[2] + "说错或用错", "The reply gets wrong or misuses: " + memory[3]) if kind == "penalty"
            else ("给出可执行的安排", "Gives an arrangement the group can act on"))
    return {"criterion_id": f"G05:I{n:04d}:C{k:02d}", "instance_id": f"G05:I{n:04d}", "kind": kind,
            "mandatory": mandatory, "weight": weight, "pattern": pattern,
            "evidence": None if turn is None else f"G05:m{turn:06d}", "text_zh": text[0], "text_en": text[1]}


def add_instances(root: Path) -> None:
    """Four eval instances of G05: native L1 M1, authored L1 M3, authored L2 M2, authored L2 M3."""
    rows = {
        "instances": [
            _instance(1, "L1", "M1", "native", 50, "member_02", SAID[50][1:], answer=NEW[2:]),
            _instance(2, "L1", "M3", "authored", 40, "member_01",
                      ("周六的烧烤在哪里，谁对什么过敏？", "Where is the Saturday barbecue, and who is allergic to what?"),
                      "state_tracking", (NEW[2] + "；" + NUTS[2], NEW[3] + "; " + NUTS[3])),
            _instance(3, "L2", "M2", "authored", 40, "member_01", PLAN, "personalized_assistance"),
            _instance(4, "L2", "M3", "authored", 45, "member_02", PLAN, "update_resolution")],
        "anchors": [_anchor(1, 1, 12, NEW, 1),
                    _anchor(2, 1, 3, OLD, 1, "superseded"), _anchor(2, 2, 7, NUTS, 2), _anchor(2, 3, 12, NEW, 3, "current"),
                    _anchor(3, 1, 12, NEW, 1), _anchor(3, 2, 7, NUTS, 2),
                    _anchor(4, 1, 3, OLD, 1, "superseded"), _anchor(4, 2, 7, NUTS, 2), _anchor(4, 3, 12, NEW, 3, "current")],
        "atoms": [_atom(1, 1, 1, NEW), _atom(2, 1, 2, NUTS), _atom(2, 2, 3, NEW), _atom(2, 3, 1, OLD, distractor=True)],
        "criteria": [_criterion(3, 1, "grounding", True, 3, 12, NEW), _criterion(3, 2, "grounding", True, 3, 7, NUTS),
                     _criterion(3, 3, "service", True, 2, None),
                     _criterion(3, 4, "penalty", False, -1.5, 7, NUTS, "recalled_fact"),
                     _criterion(4, 1, "grounding", True, 3, 12, NEW), _criterion(4, 2, "grounding", True, 3, 7, NUTS),
                     _criterion(4, 3, "service", True, 2, None),
                     _criterion(4, 4, "penalty", False, -2, 3, OLD, "superseded_value")]}
    for name, new in rows.items():
        write(root, name, read(root, name) + new)


def exclude(root: Path, gone: str = "G05:I0003") -> None:
    """An instance that failed review check ii leaves instances with its anchors and criteria; audit records why."""
    for name in ("instances", "anchors", "atoms", "criteria"):
        write(root, name, [r for r in read(root, name) if r["instance_id"] != gone])
    write(root, "audit", read(root, "audit") + [
        {"instance_id": gone, "layer": "review", "check": "ii",
         "reason": "reviewer check ii: the allergy is not needed for the plan", "quote": "我对花生过敏"}])


def add_fields(root: Path) -> None:
    """instances gain `difficulty` (its own vocabulary) and `reviewed_on` (a date), both optional."""
    edit_json(root / "schemas" / "vocabulary.json", lambda v: v.update(difficulty=["easy", "hard"]))
    edit_json(root / "schemas" / "instances.schema.json", lambda s: s["fields"].extend([
        {"name": "difficulty", "type": "string", "vocabulary": "difficulty", "constraints": {},
         "description": "How hard the curator judged the instance; null when not judged."},
        {"name": "reviewed_on", "type": "date", "constraints": {},
         "description": "The day a reviewer checked the instance; null when not reviewed."}]))
    rows = read(root, "instances")
    for n, row in enumerate(rows):
        row["difficulty"] = ("easy", "hard")[n % 2] if row["level"] == "L2" else None
        row["reviewed_on"] = "2025-07-01" if row["split"] == "eval" else None
    write(root, "instances", rows)


def add_threads(root: Path) -> None:
    """A `threads` resource: one thread of a group's history, the message opening it and the messages in it."""
    write(root, "threads", [
        {"thread_id": "G05:H001", "group_id": "G05", "first_message": "G05:m000003",
         "messages": ["G05:m000003", "G05:m000012"], "topic_zh": "周六烧烤", "topic_en": "Saturday barbecue"},
        {"thread_id": "G05:H002", "group_id": "G05", "first_message": "G05:m000007",
         "messages": ["G05:m000007"], "topic_zh": "过敏", "topic_en": "Allergies"}])
    (root / "schemas" / "nested").mkdir(exist_ok=True)
    (root / "schemas" / "nested" / "message_id_list.schema.json").write_text(json.dumps({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.org/groupassist-fork/schemas/nested/message_id_list.schema.json",
        "type": ["array", "null"], "uniqueItems": True,
        "items": {"type": "string", "pattern": "^G[0-9]{2,4}:m[0-9]{6}(\\.[1-9][0-9]*)?$"}}, indent=2), encoding="utf-8")
    (root / "schemas" / "threads.schema.json").write_text(json.dumps({
        "fields": [
            {"name": "thread_id", "type": "string", "description": "Thread identifier {group_id}:H{n:03d}.",
             "constraints": {"required": True, "unique": True, "pattern": "^G[0-9]{2,4}:H[0-9]{3}$"}},
            {"name": "group_id", "type": "string", "identifier": "group_id", "description": "The group.",
             "constraints": {"required": True}},
            {"name": "first_message", "type": "string", "identifier": "message_id",
             "description": "The message that opens the thread.", "constraints": {"required": True}},
            {"name": "messages", "type": "array", "nestedSchema": "nested/message_id_list.schema.json",
             "description": "The thread's messages, in order.", "constraints": {"required": True}},
            {"name": "topic_zh", "type": "string", "description": "Topic, in Chinese.", "constraints": {"required": True}},
            {"name": "topic_en", "type": "string", "description": "Topic, in English.", "constraints": {"required": True}}],
        "missingValues": [], "primaryKey": ["thread_id"],
        "foreignKeys": [{"fields": ["first_message"], "reference": {"resource": "messages", "fields": ["message_id"]}}]},
        indent=2), encoding="utf-8")
    edit_json(root / "datapackage.json", lambda d: d["resources"].append(
        {"name": "threads", "type": "table", "path": "data/threads.jsonl", "format": "jsonl",
         "mediatype": "application/jsonl", "encoding": "utf-8", "description": "One thread of a group's history.",
         "schema": "schemas/threads.schema.json"}))


THREAD_RULES = [
    {"id": "TH1", "severity": "error", "kind": "relationships", "resource": "threads", "field": "messages",
     "to": {"resource": "messages", "field": "message_id"},
     "statement": "every message a thread lists is a message of the release"},
    {"id": "TH2", "severity": "error", "kind": "relationships", "resource": "threads", "field": "group_id",
     "to": {"resource": "members", "field": "group_id"}, "statement": "a thread's group is a group of the release"},
    {"id": "TH3", "severity": "error", "kind": "expression", "resource": "threads", "field": "thread_id",
     "expression": "thread_id[:len(group_id) + 1] == group_id + ':'", "statement": "a thread's id begins with its group's"},
    {"id": "TH4", "severity": "error", "kind": "expression", "resource": "threads", "field": "messages",
     "expression": "messages[0] == first_message", "statement": "a thread's first listed message is its first_message"},
]


def add_rules(root: Path) -> None:
    edit_json(root / "schemas" / "rules.json", lambda r: r["rules"].extend(THREAD_RULES))


def cut_version(root: Path) -> None:
    edit_json(root / "datapackage.json", lambda d: d.update(version="0.2.0", created="2026-12-02T00:00:00Z"))
    changelog = root / "CHANGELOG.md"
    changelog.write_text(changelog.read_text(encoding="utf-8").replace("## [Unreleased]\n", (
        "## [Unreleased]\n\n## [0.2.0] - 2026-12-02\n\n### Added\n\n- group G05 with three eval instances; the "
        "`difficulty` and `reviewed_on` fields of instances; the `threads` resource.\n"), 1), encoding="utf-8")


STEPS = [add_group, add_instances, exclude, add_fields, add_threads, add_rules, cut_version]


# -- running the guide ---------------------------------------------------------

def console_blocks(text: str) -> list[list[tuple[str, list[str]]]]:
    """Each ```console block as (command, shown output lines) pairs."""
    blocks = []
    for body in re.findall(r"^```console\n(.*?)^```", text, re.M | re.S):
        runs: list[tuple[str, list[str]]] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                runs.append((line[2:], []))
            elif line.strip() != "...":
                runs[-1][1].append(line)
        blocks.append(runs)
    return blocks


def run(command: str, capsys) -> str:
    argv = shlex.split(command.split("  #")[0])
    assert argv[0] == "realcompanion", command
    main(argv[1:])
    out = capsys.readouterr()
    return out.out + out.err


def shown(line: str, printed: list[str]) -> bool:
    if line.endswith("..."):
        return any(p.startswith(line[:-3]) for p in printed)
    return line in printed


@pytest.fixture
def fork(tmp_path, monkeypatch):
    """The specimen copied twice, as a fork author starts: the base release and, beside it, the fork. The report's
    summary lines cut each statement to the terminal's width: the guide shows them at 100 columns."""
    shutil.copytree(SPECIMEN, tmp_path / BASE)
    shutil.copytree(SPECIMEN, tmp_path / "fork")
    monkeypatch.chdir(tmp_path / "fork")
    monkeypatch.setenv("COLUMNS", "100")
    return tmp_path / "fork"


def test_the_guide_runs_as_written(fork, capsys):
    blocks = console_blocks(section())
    assert len(blocks) == len(STEPS)
    for step, runs in zip(STEPS, blocks):
        step(fork)
        for command, lines in runs:
            printed = run(command, capsys).splitlines()
            missing = [line for line in lines if not shown(line, printed)]
            assert not missing, f"{step.__name__}: `{command}` printed\n" + "\n".join(printed[-40:])
    assert validate(fork).errors == 0


def test_the_guides_records_are_the_ones_the_steps_write(fork):
    add_group(fork)
    add_instances(fork)
    shown_rows = [json.loads(line) for body in re.findall(r"^```json\n(.*?)^```", section(), re.M | re.S)
                  for line in body.splitlines() if line.startswith("{\"") and line.endswith("}")]
    assert len(shown_rows) == 4
    for row in shown_rows:
        resource = next(name for name, key in KEYS.items() if next(iter(row)) == key)
        assert row in read(fork, resource), row


def test_the_new_fields_load_as_the_guide_says(fork, tmp_path, monkeypatch):
    """`difficulty` as text, the date `reviewed_on` as the card's Json: the file's string, not an Arrow date."""
    import datasets

    from realcompanion.loader import load

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "datasets")
    add_fields(fork)
    assert main(["refresh", str(fork)]) == 0
    loaded = load(fork, "instances")
    assert "`difficulty` as `Value('string')`" in section() and "`reviewed_on` as `Json`" in section()
    assert str(loaded.features["difficulty"]) == "Value('string')"
    assert type(loaded.features["reviewed_on"]).__name__ == "Json"
    assert loaded[0]["reviewed_on"] == "2025-07-01"


def test_refresh_drops_a_count_that_reaches_zero(fork):
    """The guide: a group whose instances all left keeps only its messages count (GI2 compares a missing count as 0)."""
    add_group(fork)
    add_instances(fork)
    assert main(["refresh", str(fork)]) == 0
    for gone in ("G05:I0001", "G05:I0002", "G05:I0003", "G05:I0004"):
        exclude(fork, gone)
    assert main(["refresh", str(fork)]) == 0
    block = json.loads((fork / "datapackage.json").read_text(encoding="utf-8"))["groupassist"]
    assert block["groups"]["G05"] == {"messages": 61} and validate(fork).errors == 0


# -- what a careless fork sees -------------------------------------------------

KEYS = {"messages": "message_id", "instances": "instance_id", "anchors": "anchor_id", "atoms": "atom_id",
        "criteria": "criterion_id", "audit": "instance_id"}


def setting(resource: str, row: str, field: str, value):
    """A mistake: one field of one row written otherwise."""
    def mutate(root: Path) -> None:
        rows = read(root, resource)
        next(r for r in rows if r[KEYS[resource]] == row)[field] = value
        write(root, resource, rows)
    return mutate


def dropping(resource: str, row: str, audit: dict | None = None):
    """A mistake: one row left out (of instances: its anchors left behind, an audit row added)."""
    def mutate(root: Path) -> None:
        write(root, resource, [r for r in read(root, resource) if r[KEYS[resource]] != row])
        if audit:
            write(root, "audit", read(root, "audit") + [dict(audit, instance_id=row)])
    return mutate


def an_old_value_asked_after_the_update(root):
    """An authored L1 M1 instance anchored at the barbecue's first venue (turn 3), its cutoff after the move (turn 12)."""
    write(root, "instances", read(root, "instances") + [
        _instance(5, "L1", "M1", "authored", 40, "member_01", ("周六的烧烤在哪里？", "Where is the Saturday barbecue?"),
                  "single_fact_recall", OLD[2:])])
    write(root, "anchors", read(root, "anchors") + [_anchor(5, 1, 3, OLD, 1)])
    write(root, "atoms", read(root, "atoms") + [_atom(5, 1, 1, OLD)])


def a_member_named_assistant(root):
    write(root, "members", read(root, "members") + [{"group_id": "G05", "member_id": "assistant", "profile": None}])


def a_memory_marked_as_a_premise(root):
    rows = read(root, "anchors")
    next(r for r in rows if r["anchor_id"] == "G05:I0004:A02").update(premise=True, unit=None)
    write(root, "anchors", rows)


def two_atoms_with_each_others_units(root):
    rows = read(root, "atoms")
    first, second = (next(r for r in rows if r["atom_id"] == f"G05:I0002:T0{k}") for k in (1, 2))
    first["unit"], second["unit"] = second["unit"], first["unit"]
    write(root, "atoms", rows)


def a_one_to_one_chat(root):
    rows = {name: read(root, name) for name in ("messages", "members")}
    lone_group(rows, group="G06")
    for name, kept in rows.items():
        write(root, name, kept)


def a_correction_listed_twice(root):
    feedback = read(root, "feedback")
    write(root, "feedback", feedback + [dict(feedback[0], feedback_id=f"{feedback[0]['group_id']}:F099")])


def a_value_added_to_a_format_vocabulary(root):
    edit_json(root / "schemas" / "vocabulary.json", lambda v: v["query_types"].append("planning"))
    main(["schemas", "--write", str(root)])


MISTAKES = {
    "first_turn_not_zero": dropping("messages", "G05:m000000"),
    "a_turn_left_out": dropping("messages", "G05:m000020"),
    "a_second_record_numbered_as_a_third": setting("messages", "G05:m000010.1", "message_id", "G05:m000010.2"),
    "a_native_query_reworded": setting("instances", "G05:I0001", "query_zh", "@助手 烧烤在哪里？"),
    "an_authored_cutoff_too_close": setting("instances", "G05:I0002", "cutoff_turn", 30),
    "an_old_value_asked_after_the_update": an_old_value_asked_after_the_update,
    "an_anchor_after_the_cutoff": setting("anchors", "G05:I0001:A01", "message_id", "G05:m000055"),
    "a_span_not_verbatim": setting("anchors", "G05:I0001:A01", "span_en", "north park"),
    "a_blank_span": setting("anchors", "G05:I0001:A01", "span_en", " "),
    "a_join_notice_kept_without_text": setting("messages", "G05:m000020", "text_en", ""),
    "an_instance_id_typed_lower_case": setting("instances", "G05:I0002", "instance_id", "g05:i0002"),
    "a_query_stating_the_memory": setting("instances", "G05:I0002", "query_zh", "城北公园的烧烤谁对什么过敏？"),
    "an_m3_query_hinting_at_the_change": setting("instances", "G05:I0002", "query_en",
                                                 "Where is the barbecue now, and who is allergic to what?"),
    "an_m3_without_its_distractor": dropping("atoms", "G05:I0002:T03"),
    "an_m3_distractor_flag_left_false": setting("atoms", "G05:I0002:T03", "distractor", False),
    "an_l2_instance_keeping_an_english_answer": setting("instances", "G05:I0004", "reference_answer_en", "North Park"),
    "an_m3_penalty_at_the_pattern_weight": setting("criteria", "G05:I0004:C04", "weight", -1),
    "two_positive_criteria": dropping("criteria", "G05:I0004:C03"),
    "an_exclusion_leaving_its_anchors": dropping("instances", "G05:I0002", {"layer": "gate", "check": "iv",
                                                                            "reason": "gate iv failed", "quote": None}),
    "a_review_quote_not_in_the_history": setting("audit", "G05:I0003", "quote", "不需要过敏信息"),
    "a_member_named_assistant": a_member_named_assistant,
    "a_value_added_to_a_format_vocabulary": a_value_added_to_a_format_vocabulary,
    "english_declared_the_chinese_fields_left_required": lambda root: edit_json(
        root / "datapackage.json", lambda d: d["groupassist"].update(languages=["en"])),
    "a_memory_marked_as_a_premise": a_memory_marked_as_a_premise,
    "two_atoms_with_each_others_units": two_atoms_with_each_others_units,
    "a_one_to_one_chat": a_one_to_one_chat,
    "an_authored_cutoff_counted_past_the_history": setting("instances", "G05:I0002", "cutoff_turn", 61),
    "a_correction_listed_twice": a_correction_listed_twice,
    "a_real_release_keeping_the_synthetic_keyword": lambda root: edit_json(
        root / "datapackage.json", lambda d: d["groupassist"].update(synthetic=False)),
}


def test_every_count_a_new_group_leaves_stale_names_refresh(fork):
    """A group added, `refresh` not yet run: each GI2 line says what to run, as each INT2 and ARI3 line does."""
    add_group(fork)
    add_instances(fork)
    failures = validate(fork).failure_frame()
    messages = failures.loc[failures["rule"] == "GI2", "message"]
    assert len(messages) == 10 and messages.str.endswith("run `realcompanion refresh`)").all(), messages.to_string()


@pytest.fixture(scope="module")
def stamped(tmp_path_factory):
    """The fork after the guide's first three steps, stamped: built and validated once for the module, each mistake
    made on a copy of it (built for each, the fork's validating stamp cost every mistake as much as its own)."""
    root = tmp_path_factory.mktemp("stamped") / "fork"
    shutil.copytree(SPECIMEN, root)
    for step in STEPS[:3]:
        step(root)
    assert main(["stamp", str(root)]) == 0
    return root


@pytest.mark.parametrize("position", range(len(MISTAKES)), ids=list(MISTAKES))
def test_each_mistake_the_guide_lists_is_reported_as_it_says(stamped, tmp_path, position):
    table = mistakes_table(section())
    assert len(table) == len(MISTAKES)
    fork = shutil.copytree(stamped, tmp_path / "fork")
    list(MISTAKES.values())[position](fork)
    main(["stamp", "--force", str(fork)])
    rule, says = table[position]
    failures = validate(fork).failure_frame()
    messages = failures.loc[failures["rule"] == rule, "message"]
    assert messages.str.contains(says, regex=False).any(), failures.to_string()
