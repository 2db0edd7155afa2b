"""Every rule fires, alone, on a copy of the specimen broken in exactly its way.

Each case edits one thing, re-stamps the declared counts and hashes (unless the
case is about them), validates, and asserts that the set of rules that fired is
exactly the baseline plus that rule, and that the rule names the edited row. Every line of every case names
a field of its resource, or none (tests/failure_lines.py): checked on the reports these cases compute anyway.
"""
from __future__ import annotations

import json
from functools import reduce
from operator import getitem
from pathlib import Path

import pandas as pd
import pytest
from failure_lines import misnamed
from left_out import leave_out
from realcompanion.validators.catalogue import as_text
from realcompanion.validators.declared import declared_rules
from realcompanion.validators.realcompanion.catalogue import select
from realcompanion.validators.run import validate

from realcompanion.paths import REPO_ROOT
from realcompanion.release import Release
from realcompanion.schemas import Schemas, dump_json
from realcompanion.stamp import stamp


def every_rule():
    """The coded catalogue and the rules the shipped release declares."""
    return select(None, declared_rules(Release(REPO_ROOT)))


def read(root: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (root / "data" / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]


def write(root: Path, name: str, rows: list[dict]) -> None:
    (root / "data" / f"{name}.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in rows), encoding="utf-8")


def edit_descriptor(root: Path, fn) -> None:
    path = root / "datapackage.json"
    descriptor = json.loads(path.read_text())
    fn(descriptor)
    path.write_text(json.dumps(descriptor, indent=2))


def cited_dayids(root: Path, asked_after: bool = True) -> set[str]:
    out = set()
    for row in read(root, "chat"):
        rc = row["required_context"]
        out |= {row["probe_dayid"], *rc["recent_context"], *rc["episode_refs"], *row["grounding_dayids"],
                *row["trace"]["B"]["removed"]}
    for name in ("profile", "persona", "qa"):
        for row in read(root, name):
            out |= set(row["evidence"] or []) | ({row["asked_after"]} if name == "qa" and asked_after else set())
    return out


def cited_claims(root: Path) -> set[str]:
    return {c for row in read(root, "chat") for c in row["required_context"]["profile_refs"]}


class Case:
    """Break the specimen through `fn(root) -> row id`; `restamp` unless the case is about declared counts.

    A rule with several branches has one case per branch, told apart by `branch` (case id `B-turn`);
    `message`, when given, must appear in the rule's failure for that row, so the case fails if another
    branch of the same rule is what fired.
    """

    def __init__(self, rule, fn, restamp=True, stops=False, branch=None, message=None):
        self.rule, self.fn, self.restamp, self.stops = rule, fn, restamp, stops
        self.id = f"{rule}-{branch}" if branch else rule
        self.message = message


def on_rows(resource, pick, change):
    """A case body: in `resource`, change the first row for which pick(row, root) holds; return its id."""
    def body(root):
        rows = read(root, resource)
        row = next(r for r in rows if pick(r, root))
        change(row, root)
        write(root, resource, rows)
        return row.get("item_id") or row.get("claim_id") or row.get("dayid") or f"{row['participant_id']}:{row['slot']}"
    return body


def uncited_message(sender=None):
    return lambda r, root: r["dayid"] not in cited_dayids(root) and r["media"] is None and sender in (None, r["sender"])


def chat_where(**flags):
    def pick(r, root):
        mb = r["memory_bearing"]
        return all((r.get(k) if k in r else mb.get(k) if k in mb else r["required_context"].get(k)) == v
                   if not callable(v) else v(r) for k, v in flags.items())
    return pick


def setdeep(row, path, value):
    *head, last = path.split(".")
    for part in head:
        row = row[part]
    row[last] = value


def chat_change(**paths):
    def change(row, root):
        for path, value in paths.items():
            setdeep(row, path.replace("__", "."), value(row) if callable(value) else value)
    return change


def later_claim_ref(row, root):
    """Add a claim of the same participant whose every evidence message comes after the probe."""
    turns = {m["dayid"]: m["turn"] for m in read(root, "source")}
    probe = turns[row["probe_dayid"]]
    claim = next(c for c in read(root, "profile") if c["participant_id"] == row["participant_id"] and c["evidence"]
                 and min(turns[d] for d in c["evidence"]) > probe)
    row["required_context"]["profile_refs"].append(claim["claim_id"])


def drop_persona_row(root):
    rows = read(root, "persona")
    gone = rows.pop(5)
    write(root, "persona", rows)
    return gone["participant_id"]


def pickle_file(root):
    import pickle

    (root / "data" / "extra.pkl").write_bytes(pickle.dumps({"x": 1}, protocol=4))
    return "data/extra.pkl"


def without_rules_file(root):
    """A release that names no rules file and ships none (one left unnamed would be INT9's too)."""
    row = set_param(["realcompanion", "rules"], None, "(no rules file)")(root)
    (root / "schemas" / "rules.json").unlink()
    return row


def undeclared_resource(root):
    """A fork's new resource written under data/ and left out of datapackage.json: nothing reads it."""
    (root / "data" / "notes.jsonl").write_text('{"note": "x"}\n', encoding="utf-8")
    return "data/notes.jsonl"


def source_key_to_probes(root):
    """A foreign key no source row but the probes can satisfy: every other message fails it."""
    path = root / "schemas" / "source.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema["foreignKeys"] = [{"fields": ["dayid"], "reference": {"resource": "chat", "fields": ["probe_dayid"]}}]
    path.write_text(dump_json(schema), encoding="utf-8")
    probes = {r["probe_dayid"] for r in read(root, "chat")}
    return next(m["dayid"] for m in read(root, "source") if m["dayid"] not in probes)


def empty_file(root):
    (root / "data" / "qa.jsonl").write_bytes(b"")
    return "line 1"


def reorder_first_line(root):
    rows = read(root, "qa")
    rows[0] = dict(reversed(list(rows[0].items())))
    write(root, "qa", rows)
    return "line 1"


def without_profile(root):
    leave_out(root, "profile")
    return next(r["item_id"] for r in read(root, "chat") if r["required_context"]["profile_refs"])


def set_param(path, value, row):
    def body(root):
        def change(d):
            target = d
            for part in path[:-1]:
                target = target[part]
            target[path[-1]] = value(target[path[-1]]) if callable(value) else value
        edit_descriptor(root, change)
        return row
    return body


def drop_hash(root):
    """qa's resource without its Data Package `hash`, the file's one digest."""
    edit_descriptor(root, lambda d: d["resources"][4].pop("hash"))
    return "data/qa.jsonl"


def proportional_half_memory(root):
    """Drop one participant's unconditioned proportional rows until its memory-bearing rows are exactly half:
    not a minority."""
    rows = read(root, "chat")
    pid = next(r["participant_id"] for r in rows if r["stratum"] == "proportional" and r["memory_bearing"]["recorded"])
    mine = [r for r in rows if r["participant_id"] == pid and r["stratum"] == "proportional"]
    memory = sum(r["memory_bearing"]["recorded"] for r in mine)
    plain = [r for r in mine if not r["memory_bearing"]["recorded"]]
    gone = {id(r) for r in plain[memory:]}
    write(root, "chat", [r for r in rows if id(r) not in gone])
    return pid


def turns_of(root) -> dict[str, int]:
    return {m["dayid"]: m["turn"] for m in read(root, "source")}


def mid_session_probe(row, root):
    """Move a cold open's probe to an uncited user message that does not open a session."""
    from datetime import datetime, timedelta

    gap = timedelta(minutes=json.loads((root / "datapackage.json").read_text())["realcompanion"]["session_gap_minutes"])
    source, cited = read(root, "source"), cited_dayids(root)
    at = lambda m: datetime.fromisoformat(m["timestamp"])  # noqa: E731
    m = next(m for prev, m in zip(source, source[1:]) if m["participant_id"] == prev["participant_id"] == row[
        "participant_id"] and m["sender"] == "user" and m["text"] and m["dayid"] not in cited and at(m) - at(prev) <= gap)
    row.update(probe=m["text"], probe_dayid=m["dayid"])


def later_evidence_for_cited_claim(root):
    """Give a claim a chat row cites one more evidence message: its participant's last, after every probe."""
    chat, profile, source = read(root, "chat"), read(root, "profile"), read(root, "source")
    row = next(r for r in chat if r["required_context"]["profile_refs"] and r["withdrawn"] is None)
    claim = next(c for c in profile if c["claim_id"] == row["required_context"]["profile_refs"][0])
    last = [m for m in source if m["participant_id"] == claim["participant_id"]][-1]
    claim["evidence"].append(last["dayid"])
    claim["evidence_count"] += 1
    if claim["last_seen"]:
        claim["last_seen"] = last["timestamp"][:10]
    write(root, "profile", profile)
    return row["item_id"]


def episode_without_memory(row, root):
    """A row that is not memory-bearing cites an earlier exchange; tier, category and trace C follow the lists."""
    turns = turns_of(root)
    window = json.loads((root / "datapackage.json").read_text())["realcompanion"]["recent_window"]
    earlier = next(d for d, t in turns.items() if d.startswith(row["participant_id"] + ":")
                   and t < turns[row["probe_dayid"]] - window)
    row["required_context"]["episode_refs"] = [earlier]
    row.update(tier="hard", category="episode_callback")
    row["trace"]["C"].update(tier="hard", category="episode_callback", rule="only episode_refs is non-empty")


def escape_path(root):
    edit_descriptor(root, lambda d: d["resources"][0].update(path="../elsewhere/source.jsonl"))
    return "../elsewhere/source.jsonl"


def clear_inside_window(r, root):
    turns = {m["dayid"]: m["turn"] for m in read(root, "source")}
    window = json.loads((root / "datapackage.json").read_text())["realcompanion"]["recent_window"]
    probe = turns[r["probe_dayid"]]
    return r["on_screen"] == "clear" and any(probe - window <= turns[d] < probe
                                             for d in r["required_context"]["episode_refs"])


def opening_message_as_recent(row, root):
    """Recent context given the participant's first message too, sessions and more than the window before the probe,
    as a converter listing every message the gold used as recent context does."""
    row["required_context"]["recent_context"].insert(0, f"{row['participant_id']}:d001:001")


def probe_in_later_session(r, root) -> bool:
    """A row with recent context whose probe lies more than the window after the participant's first message, in a
    later session."""
    message = next(m for m in read(root, "source") if m["dayid"] == r["probe_dayid"])
    window = json.loads((root / "datapackage.json").read_text())["realcompanion"]["recent_window"]
    return bool(r["required_context"]["recent_context"]) and r["withdrawn"] is None and message["turn"] > window \
        and (message["session"] or 0) > 1


def episode_also_recent(row, root):
    """An episode_ref inside the window (a clear row's) listed again as recent context."""
    turns = turns_of(root)
    window = json.loads((root / "datapackage.json").read_text())["realcompanion"]["recent_window"]
    probe = turns[row["probe_dayid"]]
    inside = next(d for d in row["required_context"]["episode_refs"] if probe - window <= turns[d] < probe)
    row["required_context"].update(recent_context=sorted({*row["required_context"]["recent_context"], inside},
                                                         key=turns.get), recent_needed=True)


def row_written_twice(root):
    """A proportional row copied under the participant's next item_id: the same probe sampled twice."""
    rows = read(root, "chat")
    row = next(r for r in rows if r["stratum"] == "proportional" and r["withdrawn"] is None)
    number = max(int(r["item_id"].split(":C")[1]) for r in rows if r["participant_id"] == row["participant_id"]) + 1
    copy = {**json.loads(json.dumps(row)), "item_id": f"{row['participant_id']}:C{number:04d}"}
    rows.insert(rows.index(row) + 1, copy)
    write(root, "chat", rows)
    return copy["item_id"]


def previous_message_as_recent(row, root):
    """A cold open given the message before its probe (the last session's) as its recent context, as a converter that
    gives every probe the messages before it does."""
    turns = turns_of(root)
    probe = turns[row["probe_dayid"]]
    before = next(d for d, t in turns.items() if d.startswith(row["participant_id"] + ":") and t == probe - 1)
    row["required_context"].update(recent_context=[before], recent_needed=True)


def context_phase_b_left(row, root):
    """A row withdrawn because phase B removed every reference, given back a context: the last message before its
    probe that B did not remove, as a converter keeping the context the row was sampled with does."""
    turns = turns_of(root)
    before = max((d for d, t in turns.items() if d.startswith(row["participant_id"] + ":")
                  and t < turns[row["probe_dayid"]] and d not in row["trace"]["B"]["removed"]), key=turns.get)
    row["required_context"].update(recent_context=[before], recent_needed=True)


def earlier_uncontexted(row, root):
    context = set(row["required_context"]["recent_context"]) | set(row["required_context"]["episode_refs"])
    source = read(root, "source")
    probe = next(m["turn"] for m in source if m["dayid"] == row["probe_dayid"])
    extra = next(m["dayid"] for m in source if m["participant_id"] == row["participant_id"]
                 and m["turn"] < probe and m["dayid"] not in context)
    row["grounding_dayids"] = row["grounding_dayids"] + [extra]
    row["trace"]["D"]["grounding_dayids"] = row["grounding_dayids"]


def asked_before_evidence(row, root):
    row["asked_after"] = f"{row['participant_id']}:d001:001"


def asked_right_after(row, root):
    row["asked_after"] = row["evidence"][0]


def last_turn_renumbered(root):
    """Renumber the last message of a participant: turns are no longer contiguous, their order unchanged.

    The last messages are cited only as asked_after, which a later turn still satisfies (evidence at or before it).
    """
    rows, cited = read(root, "source"), cited_dayids(root, asked_after=False)
    last = {}
    for m in rows:
        if m["turn"] >= last.get(m["participant_id"], m)["turn"]:
            last[m["participant_id"]] = m
    m = next(m for m in last.values() if m["dayid"] not in cited)
    m["turn"] += 1
    write(root, "source", rows)
    return m["dayid"]


def timestamp_before_previous(root):
    """Move a message (cited by nothing) to one second before the previous turn, keeping its local date and every
    session boundary: the gap to the previous turn stays within the session, the one to the next turn on its side."""
    from datetime import datetime, timedelta

    rows, cited = read(root, "source"), cited_dayids(root)
    gap = timedelta(minutes=json.loads((root / "datapackage.json").read_text())["realcompanion"]["session_gap_minutes"])
    at = lambda m: datetime.fromisoformat(m["timestamp"])  # noqa: E731
    for prev, m, after in zip(rows, rows[1:], rows[2:]):
        if not (prev["participant_id"] == m["participant_id"] == after["participant_id"]
                and prev["turn"] + 1 == m["turn"] == after["turn"] - 1) or m["dayid"] in cited:
            continue
        moved = at(prev) - timedelta(seconds=1)
        if (m["session"] == prev["session"] and moved.date() == at(m).date()
                and (after["session"] != m["session"]) == (at(after) - moved > gap)):
            m["timestamp"] = moved.isoformat()
            write(root, "source", rows)
            return m["dayid"]
    raise AssertionError("no message can be moved without changing a date or a session")


def line_out_of_order(root):
    """Swap two consecutive lines of one participant's messages in the file, every field unchanged: the stream
    sorted by turn is the same, but the file no longer lists the messages in order (Table 11)."""
    rows = read(root, "source")
    at = next(i for i in range(10, len(rows)) if rows[i]["participant_id"] == rows[i + 1]["participant_id"])
    rows[at], rows[at + 1] = rows[at + 1], rows[at]
    write(root, "source", rows)
    return rows[at]["dayid"]


def pii_digit_run(root) -> int:
    return json.loads((root / "datapackage.json").read_text())["realcompanion"]["pii_digit_run"]


def append_text(text):
    """A change appending `text` (or `text(root)`) to a message."""
    return lambda r, root: r.update(text=r["text"] + " " + (text(root) if callable(text) else text))


def digits(root):
    """A run of exactly realcompanion.pii_digit_run digits, no separator."""
    return "Reference " + "".join(str(i % 10) for i in range(1, pii_digit_run(root) + 1))


def loading_script(root):
    (root / "load_realcompanion.py").write_text("import json\n", encoding="utf-8")
    return "load_realcompanion.py"


def pickle_without_suffix(root):
    import pickle

    (root / "data" / "extra.bin").write_bytes(pickle.dumps({"x": 1}, protocol=4))
    return "data/extra.bin"


def pickle_protocol_0(root):
    import pickle

    (root / "data" / "extra.bin").write_bytes(pickle.dumps({"x": [1, 2]}, protocol=0))
    return "data/extra.bin"


def gzipped_pickle(root):
    import gzip
    import pickle

    (root / "data" / "extra.pkl.gz").write_bytes(gzip.compress(pickle.dumps({"x": 1})))
    return "data/extra.pkl.gz"


def gzipped_pickle_unnamed(root):
    import gzip
    import pickle

    (root / "data" / "extra.gz").write_bytes(gzip.compress(pickle.dumps({"x": 1}, protocol=0)))
    return "data/extra.gz"


def zipped_pickle(root):
    """A PyTorch-style checkpoint: a zip archive whose member holds a pickle, under a data-like name."""
    import pickle
    import zipfile

    with zipfile.ZipFile(root / "data" / "weights.dat", "w") as archive:
        archive.writestr("archive/data", pickle.dumps({"x": 1}, protocol=2))
    return "data/weights.dat"


def notebook(root):
    (root / "data" / "explore.ipynb").write_text('{"cells": []}', encoding="utf-8")
    return "data/explore.ipynb"


def windowed_script(root):
    (root / "load_realcompanion.pyw").write_text("import json\n", encoding="utf-8")
    return "load_realcompanion.pyw"


def link_outside(root):
    outside = root.parent / "outside.txt"
    outside.write_text('{"rules": []}\n', encoding="utf-8")
    (root / "schemas" / "rules.json").unlink()
    (root / "schemas" / "rules.json").symlink_to(outside)
    return "schemas/rules.json"


def document(name, change):
    """A case body: the shipped document `name` copied into the release and `change(text)` made to it; names it."""
    def mutate(root):
        (root / name).write_text(change((REPO_ROOT / name).read_text(encoding="utf-8")), encoding="utf-8")
        return name
    return mutate


def cut_within(marker):
    """A document cut in the middle of the line that holds `marker`, as a writer stopped by a full disk left it."""
    return lambda text: text[:text.index(marker) + len(marker) // 2]


def cut_before(marker):
    """A document cut at the line end before `marker`: every line whole, what follows gone."""
    return lambda text: text[:text.rindex("\n", 0, text.index(marker)) + 1]


def stale_enum_copy(root):
    path = root / "schemas" / "source.schema.json"
    path.write_text(path.read_text(encoding="utf-8").replace('"companion"', '"companion", "bot"'), encoding="utf-8")
    return "schemas/source.schema.json"


def format_rule(change):
    """A mutation of the release's rules file: `change(rules)` edits its list of declarations."""
    def mutate(root):
        path = root / "schemas" / "rules.json"
        declared = json.loads(path.read_text(encoding="utf-8"))
        change(declared["rules"])
        path.write_text(json.dumps(declared, indent=1), encoding="utf-8")
        return "schemas/rules.json"
    return mutate


def schema_file(relpath, change):
    """A mutation of one schema file of the release (`change(schema)` edits it), its vocabulary copies rendered
    again, so that only the definition differs from the format's; names the file."""
    def mutate(root):
        path = root / "schemas" / relpath
        schema = json.loads(path.read_text(encoding="utf-8"))
        change(schema)
        path.write_text(dump_json(schema), encoding="utf-8")
        Schemas(root).render()
        return f"schemas/{relpath}"
    return mutate


def in_turn(*bodies):
    """A case body of several mutations, one after the other; names what the last one names."""
    return lambda root: [body(root) for body in bodies][-1]


def field_of(name, change):
    """A `schema_file` change of the field `name` of a Table Schema."""
    return lambda schema: change(next(f for f in schema["fields"] if f["name"] == name))


def evidence_for_empty_slot(row, root):
    row["evidence"] = [next(m["dayid"] for m in read(root, "source") if m["participant_id"] == row["participant_id"])]


basic_scoreable = chat_where(scoreable=True, tier="basic", recorded=False, cold_open=False,
                             trace=lambda r: r["trace"]["C"]["relabeled"] is None)
cold_open = chat_where(cold_open=True)
relabeled = chat_where(trace=lambda r: r["trace"]["C"]["relabeled"] is not None)
CASES = [
    Case("SCH1", on_rows("source", lambda r, root: r["turn"] == 7, lambda r, root: r.update(turn="seven"))),
    Case("SCH2", on_rows("source", lambda r, root: r["turn"] == 3, lambda r, root: r.update(sender="bot")),
         branch="vocabulary"),
    # STR4 ties a null answer to unanswerable; an empty one is no answer either (Table 27: reference answers)
    Case("SCH2", on_rows("qa", lambda r, root: r["answerable"], lambda r, root: r.update(answer="")),
         branch="empty-answer", message="empty, where the schema asks for content (minLength 1): violates str_length(1"),
    Case("SCH3", on_rows("chat", lambda r, root: True, chat_change(trace__A__result="maybe"))),
    Case("ID1", on_rows("qa", lambda r, root: r["category"] == "unanswerable",
                        lambda r, root: r.update(item_id="U99:Q0001"))),
    Case("KEY1", source_key_to_probes),
    Case("HDR1", reorder_first_line, branch="order"),
    Case("HDR1", empty_file, branch="empty", message="no record"),
    Case("FLD1", on_rows("source", uncited_message("companion"), lambda r, root: r.update(text=""))),
    # " " meets minLength 1: a placeholder for a missing answer states nothing
    Case("FLD3", on_rows("qa", lambda r, root: r["answerable"], lambda r, root: r.update(answer=" "))),
    Case("FLD2", on_rows("source", uncited_message(), lambda r, root: r.update(timestamp=r["timestamp"][:19])),
         branch="offset", message="RFC 3339"),
    Case("FLD2", on_rows("source", uncited_message(), lambda r, root: r.update(timestamp="2025-02-30" + r["timestamp"][10:])),
         branch="day", message="calendar day"),
    Case("FLD2", on_rows("source", uncited_message(), lambda r, root: r.update(timestamp=r["timestamp"].replace("T", "t"))),
         branch="lower-case", message="a lower-case t or z, which RFC 3339 allows"),
    Case("FLD2", on_rows("profile", lambda r, root: r["first_seen"] is not None,
                         lambda r, root: r.update(first_seen=r["first_seen"][:5] + "02-30")), branch="date", message="a date"),
    Case("A", on_rows("chat", chat_where(scoreable=True, tier="basic", recent_needed=False),
                      chat_change(probe="Not what was said."))),
    Case("B", on_rows("source", lambda r, root: r["turn"] == 20, lambda r, root: r.update(db_id=1)),
         branch="db_id", message="db_id does not increase"),
    Case("B", last_turn_renumbered, branch="turn", message="turns are not contiguous"),
    Case("B", line_out_of_order, branch="file-order", message="listed in the file before"),
    Case("B", timestamp_before_previous, branch="timestamp", message="timestamp earlier than the previous turn"),
    Case("B", on_rows("source", uncited_message(), lambda r, root: r.update(dayid=r["dayid"][:-7] + "999" + r["dayid"][-4:])),
         branch="day", message="day of dayid differs"),
    Case("B", on_rows("source", uncited_message(), lambda r, root: r.update(dayid=r["dayid"][:-3] + "999")),
         branch="seq", message="seq of dayid differs"),
    Case("C", on_rows("qa", lambda r, root: r["category"] == "basic_fact",
                      lambda r, root: r["evidence"].__setitem__(0, f"{r['participant_id']}:d999:999"))),
    Case("D", on_rows("qa", lambda r, root: r["category"] == "basic_fact", asked_before_evidence)),
    Case("E", on_rows("chat", clear_inside_window,
                      chat_change(on_screen="borderline", memory_bearing__strict=True))),
    Case("F", on_rows("chat", basic_scoreable, chat_change(gold_response=None, trace__D__gold_response=None)),
         branch="null", message="missing"),
    Case("F", on_rows("chat", basic_scoreable, chat_change(gold_response="  ", trace__D__gold_response="  ")),
         branch="blank", message="blank"),
    Case("REF1", on_rows("chat", chat_where(recorded=True), chat_change(trace__A__referent_text="zebra crossing")),
         branch="absent"),
    # a referent only the probe states is not grounded in the turns the row cites
    Case("REF1", on_rows("chat", chat_where(recorded=True), chat_change(trace__A__referent_text=lambda r: r["probe"])),
         branch="probe-only"),
    # an exception recorded on a row the turns it cites ground is no exception
    Case("REF1", on_rows("chat", chat_where(recorded=True), chat_change(trace__A__ungrounded={"reason": "stands"})),
         branch="needless-exception", message="records a referent exception"),
    # a blank referent is in every text; null says nothing prior is referred to, which a memory store contradicts
    Case("REF1", on_rows("chat", chat_where(recorded=True), chat_change(trace__A__referent_text=" ")), branch="blank",
         message="referent not found"),
    Case("REF1", on_rows("chat", chat_where(recorded=True), chat_change(trace__A__referent_text=None)),
         branch="unstated", message="a memory-bearing row records no referent"),
    Case("REF1", on_rows("chat", chat_where(recorded=True), chat_change(trace__A__referent_text="zebra crossing",
                                                                       trace__A__ungrounded={"reason": " "})),
         branch="blank-reason", message="the exception recorded gives no reason"),
    Case("REF2", set_param(["realcompanion", "referent_exceptions"], lambda n: n + 1, "chat"), restamp=False),
    Case("SIG1", on_rows("chat", cold_open, chat_change(stratum="proportional"))),
    Case("SIG2", on_rows("chat", lambda r, root: r["withdrawn"] is not None, chat_change(scoreable=True)),
         branch="withdrawn"),
    Case("SIG2", on_rows("chat", cold_open, chat_change(scoreable=False)), branch="cold-open"),
    Case("SIG3", on_rows("chat", chat_where(recent_needed=True), chat_change(required_context__recent_needed=False))),
    Case("SIG4", on_rows("chat", chat_where(locus="current_thread"), chat_change(trace__A__locus="none")),
         branch="locus"),
    Case("SIG4", on_rows("chat", basic_scoreable, chat_change(trace__D__gold_response="A different reply.")),
         branch="gold_response"),
    Case("SIG4", on_rows("chat", chat_where(recorded=True),
                         chat_change(trace__D__grounding_dayids=lambda r: r["grounding_dayids"][:-1])),
         branch="grounding_dayids"),
    Case("SIG5", on_rows("chat", chat_where(on_screen="not_on_screen"), chat_change(memory_bearing__strict2=False))),
    Case("SIG6", on_rows("chat", basic_scoreable, chat_change(trace__E__ok=False, trace__E__result="fail")), branch="ok"),
    Case("SIG6", on_rows("chat", basic_scoreable, chat_change(trace__E__category_ok=False)), branch="category_ok"),
    Case("SIG7", on_rows("chat", cold_open, mid_session_probe)),
    Case("SIG9", on_rows("chat", lambda r, root: r["cold_open"] and turns_of(root)[r["probe_dayid"]] > 0,
                         previous_message_as_recent), branch="recent", message="a cold open cites nothing"),
    Case("SIG9", on_rows("chat", cold_open, chat_change(locus="current_thread", trace__A__locus="current_thread")),
         branch="locus", message="a cold open's locus is none"),
    Case("SIG11", on_rows("chat", lambda r, root: r["withdrawn"] == "stage_b_empty_context", context_phase_b_left)),
    # Table 16: A, C and D may revise nothing, B revises only by removing, E decides whether the item ships
    Case("SIG10", on_rows("chat", basic_scoreable, chat_change(trace__A__result="revised")), branch="A-revised",
         message="phase A may revise nothing"),
    Case("SIG10", on_rows("chat", lambda r, root: r["trace"]["B"]["removed"], chat_change(trace__B__result="pass")),
         branch="B-removed", message="removed references but records a pass"),
    Case("SIG10", on_rows("chat", basic_scoreable, chat_change(trace__B__result="revised")), branch="B-revised",
         message="revised but removed no reference"),
    Case("SIG10", on_rows("chat", basic_scoreable, chat_change(trace__E__result="fail")), branch="E-ships",
         message="fails exactly when the item does not ship"),
    Case("SIG8", on_rows("chat", basic_scoreable, chat_change(locus="earlier_exchange", trace__A__locus="earlier_exchange")),
         branch="not-memory-bearing"),
    Case("SIG8", on_rows("chat", chat_where(recorded=True, locus="earlier_exchange"),
                         chat_change(locus="current_thread", trace__A__locus="current_thread")), branch="memory-bearing"),
    Case("CAT1", on_rows("chat", basic_scoreable,
                         chat_change(category="episode_callback", trace__C__category="episode_callback"))),
    Case("CAT2", on_rows("chat", basic_scoreable, chat_change(trace__C__rule="by intuition")), branch="rule"),
    Case("CAT2", on_rows("chat", basic_scoreable, chat_change(
        trace__C__category=lambda r: next(c for c in ("continuation", "social") if c != r["category"]))),
        branch="unrecorded-relabel"),
    Case("CAT2", on_rows("chat", relabeled, chat_change(trace__C__relabeled__reason=" ")), branch="no-reason"),
    Case("CAT3", set_param(["realcompanion", "relabeled"], lambda n: n + 1, "chat"), restamp=False),
    Case("CAT4", set_param(["realcompanion", "sessionless"], lambda n: n + 1, "chat"), restamp=False),
    Case("ARI1", on_rows("chat", basic_scoreable, chat_change(
        tier="hard", category="episode_callback", trace__C__tier="hard", trace__C__category="episode_callback",
        trace__C__rule=lambda r: "only episode_refs is non-empty")), branch="scoreable"),
    # a cold open is scoreable (1,967 = 1,533 + 434): its tier recomputes too
    Case("ARI1", on_rows("chat", cold_open, chat_change(
        tier="hard", category="episode_callback", trace__C__tier="hard", trace__C__category="episode_callback",
        trace__C__rule=lambda r: "only episode_refs is non-empty")), branch="cold-open"),
    # Table 46: recent context is the recent window's, the reference set lies outside it
    Case("ARI10", on_rows("chat", probe_in_later_session, opening_message_as_recent), branch="far",
         message="recent context from an earlier session"),
    Case("ARI10", on_rows("chat", clear_inside_window, episode_also_recent), branch="both",
         message="episode_ref is also recent context"),
    Case("ARI11", row_written_twice, message="probe already sampled in the proportional stratum by"),
    Case("ARI2", on_rows("chat", basic_scoreable, chat_change(stratum="enriched")), branch="enriched"),
    # an abstention row that is no cold open breaks SIG1 too (cold_open exactly on abstention); a gold is ARI2's alone
    Case("ARI2", on_rows("chat", lambda r, root: r["stratum"] == "abstention",
                         chat_change(gold_response="A reply.", trace__D__gold_response="A reply.")), branch="abstention"),
    Case("ARI3", set_param(["realcompanion", "participants", "U01", "chat"], lambda n: n + 1, "U01"), restamp=False),
    Case("ARI4", on_rows("profile", lambda r, root: r["evidence"],
                         lambda r, root: r.update(evidence_count=r["evidence_count"] + 1))),
    Case("ARI5", on_rows("profile", lambda r, root: (r["confidence"] or 0) >= 0.8,
                         lambda r, root: r.update(confidence_label="low")), branch="band"),
    # a null confidence has no band: a label beside it is not the band of 0
    Case("ARI5", on_rows("profile", lambda r, root: r["confidence"] is not None and r["confidence"] < 0.4,
                         lambda r, root: r.update(confidence=None)), branch="null"),
    Case("ARI6", on_rows("profile", lambda r, root: r["first_seen"], lambda r, root: r.update(first_seen="2020-01-01")),
         branch="date", message="expected"),
    Case("ARI6", on_rows("profile", lambda r, root: r["last_seen"], lambda r, root: r.update(last_seen=None)),
         branch="half", message="an observation window has both ends or neither"),
    Case("ARI7", drop_persona_row),
    Case("ARI8", on_rows("persona", lambda r, root: r["slot"] == "openness",
                         lambda r, root: r.update(category="entities"))),
    Case("ARI9", on_rows("source", uncited_message(), lambda r, root: r.update(session=r["session"] + 5))),
    Case("STR1", on_rows("qa", lambda r, root: r["category"] == "multi_hop",
                         lambda r, root: r.update(evidence=r["evidence"][:1]))),
    Case("STR2", on_rows("qa", lambda r, root: r["category"] == "knowledge_update",
                         lambda r, root: r.update(evidence=r["evidence"][:1]))),
    Case("STR3", on_rows("qa", lambda r, root: r["category"] == "long_range", asked_right_after)),
    Case("STR4", on_rows("qa", lambda r, root: r["category"] == "unanswerable", lambda r, root: r.update(answer="Yes"))),
    Case("V1", on_rows("chat", chat_where(recorded=True), earlier_uncontexted)),
    Case("V2", on_rows("chat", basic_scoreable, chat_change(on_screen="clear"))),
    Case("V3", proportional_half_memory),
    Case("V4", on_rows("chat", chat_where(tier="intermediate", scoreable=True), later_claim_ref)),
    Case("V5", on_rows("persona", lambda r, root: r["value"] is not None, lambda r, root: r.update(evidence=None)),
         branch="filled-slot", message="a value without evidence: a filled slot cites the messages it rests on"),
    Case("V5", on_rows("persona", lambda r, root: r["value"] is None, evidence_for_empty_slot),
         branch="empty-slot", message="evidence for an empty slot (value null): an empty slot cites no message"),
    Case("V5", on_rows("qa", lambda r, root: r["answerable"] and r["category"] == "basic_fact",
                       lambda r, root: r.update(evidence=[])), branch="qa", message="answerable question cites no message"),
    Case("V5", on_rows("chat", basic_scoreable, chat_change(memory_bearing__recorded=True, on_screen="clear",
                                                            locus="earlier_exchange", trace__A__locus="earlier_exchange")),
         branch="chat", message="memory-bearing row cites no profile claim"),
    Case("V5", on_rows("chat", lambda r, root: basic_scoreable(r, root) and r["item_id"].endswith("0")
                       and r["item_id"] > r["participant_id"] + ":C0020", episode_without_memory), branch="chat-episode",
         message="not memory-bearing cites an earlier exchange"),
    Case("V5", on_rows("profile", lambda r, root: r["evidence"] and r["claim_id"] not in cited_claims(root),
                       lambda r, root: r.update(evidence=[], evidence_count=0, first_seen=None, last_seen=None)),
         branch="profile", message="evidence is empty"),
    Case("COV1", later_evidence_for_cited_claim),
    Case("FMT1", set_param(["realcompanion", "recent_window"], 3, "datapackage.json"), restamp=False,
         branch="constant", message="fixes 10"),
    Case("FMT1", set_param(["realcompanion", "format_version"], "9.9.9", "datapackage.json"), restamp=False,
         branch="version", message="unknown format version"),
    Case("V6", on_rows("chat", lambda r, root: r["required_context"]["episode_refs"],
                       chat_change(trace__B__removed=lambda r: r["required_context"]["episode_refs"][:1],
                                   trace__B__result="revised")),
         branch="removed"),
    # the nesting breaks alone only on unrecorded rows: on recorded ones SIG5 recomputes strict and strict2 from on_screen
    Case("V6", on_rows("chat", basic_scoreable, chat_change(memory_bearing__strict2=True)), branch="strict2"),
    Case("V6", on_rows("chat", basic_scoreable, chat_change(memory_bearing__strict=True)), branch="strict"),
    Case("INT1", set_param(["realcompanion", "sha256"], {"data/qa.jsonl": "0" * 64}, "data/qa.jsonl"), restamp=False,
         branch="sha256", message="declared 0000"),  # the copy an older release keeps in its block
    Case("INT1", drop_hash, restamp=False,
         branch="undeclared", message="resource qa declares no `hash`"),
    Case("INT1", set_param(["resources", 4, "hash"], "sha256:" + "0" * 64, "data/qa.jsonl"), restamp=False,
         branch="hash", message="resource qa declares hash"),
    Case("INT2", set_param(["realcompanion", "rows", "qa"], lambda n: n + 1, "qa"), restamp=False),
    Case("INT3", escape_path, restamp=False, stops=True, branch="path"),  # nothing outside the package is read
    Case("INT3", link_outside, restamp=False, stops=True, branch="link", message="outside the package folder"),
    Case("INT9", undeclared_resource, message="no resource reads it"),
    # a converted release of real records keeping the specimen's keyword; a synthetic one whose keywords lost it
    Case("INT10", set_param(["realcompanion", "synthetic"], False, "datapackage.json"), restamp=False, branch="real",
         message="says synthetic, but realcompanion.synthetic is false"),
    Case("INT10", set_param(["keywords"], lambda words: [w for w in words if w != "synthetic-specimen"],
                            "datapackage.json"), restamp=False, branch="synthetic",
         message="no keyword says synthetic, but realcompanion.synthetic is true"),
    Case("INT4", pickle_file, branch="pickle", message="code or serialized object"),
    Case("INT4", pickle_without_suffix, branch="pickle-bytes", message="code or serialized object"),
    Case("INT4", pickle_protocol_0, branch="pickle-protocol-0", message="a pickle (by its opcodes)"),
    Case("INT4", gzipped_pickle, branch="pkl-gz", message="code or serialized object"),
    Case("INT4", gzipped_pickle_unnamed, branch="gz-content", message="a pickle (by its opcodes)"),
    Case("INT4", zipped_pickle, branch="zip-member", message="zip member archive/data is a pickle"),
    Case("INT4", notebook, branch="notebook", message="code or serialized object"),
    Case("INT4", loading_script, branch="script", message="loading script at the release root"),
    Case("INT4", windowed_script, branch="pyw", message="loading script at the release root"),
    Case("INT5", stale_enum_copy, restamp=False),
    Case("INT6", format_rule(lambda rules: rules.remove(next(r for r in rules if r["id"] == "SIG1"))), restamp=False,
         branch="dropped", message="SIG1 is not declared"),
    Case("INT6", format_rule(lambda rules: next(r for r in rules if r["id"] == "ARI7").update(severity="warning")),
         restamp=False, branch="loosened", message="ARI7 is declared differently"),
    Case("INT6", without_rules_file, restamp=False, branch="unnamed", message="SIG1 is not declared"),
    # a fork loosening a core field in its own schemas, the data unchanged: only INT7 can tell
    Case("INT7", schema_file("qa.schema.json", field_of("question", lambda f: f["constraints"].pop("required"))),
         restamp=False, branch="required", message="loosens the format's constraint required: true"),
    Case("INT7", schema_file("profile.schema.json", field_of("confidence", lambda f: f["constraints"].update(maximum=2))),
         restamp=False, branch="maximum", message="loosens the format's constraint maximum: 1"),
    Case("INT7", schema_file("profile.schema.json", field_of("evidence_count", lambda f: f.update(type="number"))),
         restamp=False, branch="type", message="the format's type is integer"),
    Case("INT7", schema_file("qa.schema.json", lambda s: s.update(foreignKeys=[], missingValues=["", "NA"])),
         restamp=False, branch="keys", message="a foreign key of the format is not declared"),
    Case("INT7", schema_file("nested/trace.schema.json", lambda s: s["required"].remove("E")),
         restamp=False, branch="nested", message="differs from the format's nested schema"),
    Case("INT7", schema_file("qa.schema.json", field_of("category", lambda f: (
        f.pop("vocabulary"), f["constraints"]["enum"].append("trivia")))), restamp=False, branch="enum",
        message="admits values the format's enum does not"),
    Case("INT7", schema_file("vocabulary.json", lambda v: v["qa_category"].append("trivia")),
         restamp=False, branch="vocabulary", message="a vocabulary of the format differs"),
    Case("INT7", schema_file("vocabulary.json", lambda v: v["identifier"].update(dayid="^U[0-9]{2,4}:.+$")),
         restamp=False, branch="identifier", message="a vocabulary of the format differs"),
    # datasets re-encodes a row of a resource with a date field to 10 decimal places: 0.62 + 3e-12 loads as 0.62
    Case("INT8", on_rows("profile", lambda r, root: r["confidence"] is not None and 0.55 < r["confidence"] < 0.75,
                         lambda r, root: r.update(confidence=r["confidence"] + 3e-12)), message="loads as 0."),
    Case("PII1", on_rows("source", uncited_message("companion"), append_text("Write to me at someone@example.org")),
         branch="email", message="e-mail address"),
    Case("PII1", on_rows("source", uncited_message("companion"), append_text("Call me on 020 7946 0958")),
         branch="phone", message="phone number"),
    Case("PII1", on_rows("source", uncited_message("companion"),
                         append_text("See https://example.org/track?user=priya")), branch="url", message="URL with query"),
    Case("PII1", on_rows("source", uncited_message("companion"), append_text(digits)),
         branch="digits", message="long digit run"),
    Case("PII1", on_rows("source", uncited_message("companion"), append_text("Call me on ０２０－７９４６－０９５８")),
         branch="full-width-phone", message="phone number"),
    Case("PII1", on_rows("source", uncited_message("companion"), append_text("Write to josé@exämple.org")),
         branch="accented-email", message="an e-mail address"),
    Case("PII1", in_turn(schema_file("source.schema.json", field_of("text", lambda f: f["constraints"].update(
        pattern="[\\s\\S]*"))), on_rows("source", uncited_message("companion"),
                                         append_text("Write to me at someone@example.org"))),
         branch="tightened-text", message="e-mail address"),  # a pattern any text meets: still free text
    Case("PII1", on_rows("chat", lambda r, root: True,
                         lambda r, root: setdeep(r, "trace.C.rationale", "Her e-mail is someone@example.org.")),
         branch="nested", message="e-mail address"),
    Case("PII1", on_rows("persona", lambda r, root: True,
                         lambda r, root: r.update(rationale="Reached at someone@example.org.")),
         branch="persona-rationale", message="e-mail address"),
    # the specimen's chat rows cite profile claims: the release leaving out profile holds what needs it, one line
    Case("TRK1", without_profile, stops=True, message="carries no 'profile' resource"),
    Case("DOC1", document("README.md", lambda text: ""), branch="card-emptied", message="is empty"),
    Case("DOC1", document("README.md", cut_within("## Dataset Card Contact")), branch="card-cut",
         message="ends in the middle of a line"),
    Case("DOC1", document("README.md", cut_before("<!-- /generated:fields -->")), branch="card-block-cut",
         message="opens the generated block 'fields' and never closes it"),
    Case("DOC1", document("README.md", cut_before("configs:")), branch="card-header-cut", message="no YAML header"),
    Case("DOC1", document("DATASHEET.md", cut_before("<!-- generated:rules -->")), branch="datasheet-cut",
         message="has no generated block 'rules'"),
    Case("DOC1", document("DATASHEET.md", lambda text: cut_before("<!-- generated:rules -->")(text) + (
        "\n```markdown\n<!-- generated:rules -->\n<!-- /generated:rules -->\n```\n")), branch="datasheet-quoted",
         message="has no generated block 'rules'"),  # the markers quoted in a code fence are prose, not the block
    Case("DOC1", document("CITATION.cff", cut_before("authors:")), branch="citation-cut",
         message="has no 'authors', which CFF 1.2 requires"),
    Case("DOC1", document("CHANGELOG.md", lambda text: "\n"), branch="changelog-emptied", message="is empty"),
    Case("DOC1", in_turn(lambda root: (root / "croissant.json").write_text('{"@context": {"@language": "en",\n'),
                         lambda root: "croissant.json"), branch="croissant-cut", message="malformed JSON"),
    Case("NUL1", on_rows("profile", lambda r, root: r["first_seen"] and r["claim_id"] not in cited_claims(root),
                         lambda r, root: r.update(evidence=None, evidence_count=0, first_seen=None, last_seen=None))),
]


@pytest.fixture(scope="module")
def baseline(repo):
    report = validate(repo)
    assert report.errors == 0, report.failure_frame().head().to_string()
    return report.fired()


def test_the_shipped_release_passes_with_zero_errors(baseline):
    assert baseline == {"NUL1"}  # the one claim without evidence, counted as the paper's release counts it


def test_every_rule_has_a_case():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert {c.rule for c in CASES} == {r.id for r in every_rule()}
    # a rule with several cases names each one's branch; a single case carries the bare rule id
    assert all((c.id == c.rule) == (sum(d.rule == c.rule for d in CASES) == 1) for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rule_fires_alone_naming_the_row(case, specimen, baseline):
    row = case.fn(specimen)
    if case.restamp:
        stamp(specimen)
    report = validate(specimen)
    rule = next(r for r in every_rule() if r.id == case.rule)
    assert report.fired() == (set() if case.stops else baseline) | {case.rule}, report.failure_frame().head(10).to_string()
    failures = report.failure_frame()
    named = failures[(failures["rule"] == case.rule) & (failures["row"].astype(str) == row)]
    assert not named.empty, failures[failures["rule"] == case.rule].to_string()
    if case.message:
        assert named["message"].str.contains(case.message, regex=False).any(), named.to_string()
    assert (report.errors > 0) == (rule.severity == "error")
    assert misnamed(failures, specimen) == []


KEYS = {"source": "dayid", "profile": "claim_id", "chat": "item_id", "qa": "item_id"}


@pytest.mark.parametrize("case_id", ["ID1", "SIG3", "CAT2-rule", "SIG1", "STR4", "ARI4", "ARI5-band", "SIG8-memory-bearing", "V2"])
def test_a_failure_line_shows_the_value_the_file_holds(case_id, specimen):
    """`field=value` on a failure line is the named row's own value at that field, as the file writes it (`true`,
    a struct member rather than its whole struct), for coded, frame and declared rules alike; what a rule
    computed belongs in its message (GroupAssistBench: tests/test_groupassist_rules.py)."""
    case = next(c for c in CASES if c.id == case_id)
    row = case.fn(specimen)
    if case.restamp:
        stamp(specimen)
    found = validate(specimen).failure_frame()
    named = found[(found["rule"] == case.rule) & (found["row"].astype(str) == row)]
    assert not named.empty
    for f in named.itertuples():
        record = next(r for r in read(specimen, f.resource) if r[KEYS[f.resource]] == row)
        assert f.value == as_text(reduce(getitem, f.field.split("."), record))[:80], f


@pytest.mark.parametrize("copies", [1, 2])
def test_a_repeated_key_names_the_line_of_another_row_holding_it(specimen, copies):
    """Rows that repeat a unique value bear the same name, their key: each failure line says on which line another
    row holding the value lies (the first, or for the first the second), and how many hold it beyond two."""
    rows = read(specimen, "profile")
    rows[5:5] = [rows[4]] * copies  # line 5, repeated on line 6 (and 7)
    write(specimen, "profile", rows)
    stamp(specimen)
    found = validate(specimen).failure_frame()
    said = found.loc[found["rule"] == "SCH2", ["row", "field", "value", "message"]]
    held = f" ({copies + 1} rows hold it)" if copies > 1 else ""
    claim = rows[4]["claim_id"]
    assert sorted(said.values.tolist()) == sorted(
        [[claim, "claim_id", claim, f"value not unique: also on line {line}{held}"] for line in [6] + [5] * copies])


def test_a_key_repeated_by_a_set_aside_record_names_its_line(specimen):
    """A record that did not fit its types (SCH1) keeps its key: the good record holding the same key is told the
    line of the one set aside, which SCH1 reports."""
    rows = read(specimen, "profile")
    rows.insert(5, {**rows[4], "confidence": "high"})  # line 6: text in a number field, set aside
    write(specimen, "profile", rows)
    stamp(specimen)
    found = validate(specimen).failure_frame()
    claim = rows[4]["claim_id"]
    assert found.loc[found["rule"] == "SCH2", ["row", "message"]].values.tolist() == [
        [claim, "value not unique: also on line 6"]]
    assert found.loc[found["rule"] == "SCH1", "row"].tolist() == [claim]


def test_a_count_over_a_participants_rows_names_no_field(specimen):
    """V3 counts a participant's proportional rows: its line names the participant and the count, and no field
    (it named `stratum`, which holds each row's stratum, not the count)."""
    participant = next(c for c in CASES if c.id == "V3").fn(specimen)
    stamp(specimen)
    found = validate(specimen).failure_frame()
    assert found.loc[found["rule"] == "V3", ["row", "field"]].values.tolist() == [[participant, ""]]


def test_a_fork_may_tighten_a_core_field_and_reword_it(specimen, baseline):
    """INT7 compares definitions, not files: a raised minimum length, a new maximum, a constraint the format does
    not set and another description leave the release VALID."""
    def tighten(field):
        field["constraints"].update(minLength=2, maxLength=5000)
        field["description"] = "The question, as the fork words it."
    schema_file("qa.schema.json", field_of("question", tighten))(specimen)
    schema_file("profile.schema.json", field_of("confidence", lambda f: f["constraints"].update(minimum=0.01)))(specimen)
    assert validate(specimen).fired() == baseline


def test_a_schema_may_write_the_formats_values_out_instead_of_naming_them(specimen, baseline):
    """INT7 compares the values a field takes: an enum or pattern written by hand, naming no vocabulary or
    identifier, equals the format's when it holds the same values (and fewer values tighten it)."""
    def written_out(field):
        field.pop("vocabulary", None) or field.pop("identifier")
    schema_file("chat.schema.json", field_of("tier", written_out))(specimen)
    schema_file("qa.schema.json", field_of("item_id", written_out))(specimen)
    schema_file("profile.schema.json", field_of("temporality", lambda f: (
        f.pop("vocabulary"), f["constraints"]["enum"].remove("transient"))))(specimen)
    assert validate(specimen).fired() == baseline | ({"SCH2"} if _transient_claims(specimen) else set())


def _transient_claims(root) -> bool:
    return any(r["temporality"] == "transient" for r in read(root, "profile"))


def test_a_schema_naming_a_vocabulary_the_release_lacks_is_named(specimen):
    path = specimen / "schemas" / "chat.schema.json"
    path.write_text(path.read_text(encoding="utf-8").replace('"vocabulary": "tier"', '"vocabulary": "tiers"', 1),
                    encoding="utf-8")
    outcome = next(o for o in validate(specimen, rules="INT5").outcomes if o.rule.id == "INT5")
    assert outcome.crashed and "schemas/chat.schema.json field 'vocabulary': names the vocabulary or identifier " \
        "'tiers', which realcompanion.vocabulary does not declare" in outcome.skipped, outcome.skipped


def test_digit_run_length_is_read_from_the_descriptor(specimen, baseline):
    """The run that PII1-digits flags passes once realcompanion.pii_digit_run asks for one digit more."""
    on_rows("source", uncited_message("companion"), append_text(digits))(specimen)
    set_param(["realcompanion", "pii_digit_run"], lambda n: n + 1, None)(specimen)
    stamp(specimen)
    assert validate(specimen).fired() == baseline


@pytest.mark.parametrize("case_id", ["INT10-real", "INT10-synthetic"])
def test_a_synthetic_label_disagreeing_is_one_line(case_id, specimen):
    """INT10 names the descriptor's keywords once, whichever way the labels disagree."""
    next(c for c in CASES if c.id == case_id).fn(specimen)
    found = validate(specimen, rules="INT10").failure_frame()
    assert found[["row", "field"]].values.tolist() == [["datapackage.json", "keywords"]], found


def test_the_screen_reads_full_width_forms():
    """Chinese and Japanese input methods type full-width forms: an address with ＠ and ．, a number with － or an
    ideographic space between its groups, is what a personal-data screen is there to find (PII1), named as written."""
    from realcompanion.validators.personal import PII_PATTERNS, first_matches

    email, phone = "e-mail address", "phone number"
    assert first_matches("写信到 someone＠example．com 吧", PII_PATTERNS)[email] == "someone＠example．com"
    assert first_matches("电话１３８－１２３４－５６７８", PII_PATTERNS)[phone] == "１３８－１２３４－５６７８"
    assert first_matches("电话138\u30001234\u30005678", PII_PATTERNS)[phone] == "138\u30001234\u30005678"


def test_a_url_in_chinese_text_ends_at_the_punctuation_after_it(specimen):
    """Chinese writes no space after a URL: PII1 names the URL up to the full-width comma or full stop that ends it,
    not the sentence that follows (a finding is acknowledged by its value), and keeps Chinese letters in it."""
    for sender, text in (("companion", "网址是https://example.com/a?id=3，看看吧。"),
                         ("user", "搜https://example.com/s?q=北京。好的")):
        on_rows("source", uncited_message(sender), append_text(text))(specimen)
    stamp(specimen)
    found = validate(specimen, rules="PII1").failure_frame()["value"].tolist()
    assert sorted(found) == ["https://example.com/a?id=3", "https://example.com/s?q=北京"], found


def test_a_url_in_code_ends_before_the_code_around_it(specimen):
    """A URL in code or Markdown is followed by what closes the code or the sentence: a quote, a backtick, a bracket
    it does not open, a full stop. PII1 names the URL without them (a finding is acknowledged by its value), and keeps
    a bracket the URL opens itself (the near miss)."""
    for sender, text in (("companion", 'Try `fetch("https://example.com/a?id=3")`.'),
                         ("user", "[see](https://example.org/w?title=Foo_(bar))."),
                         ("companion", "`[https://example.net/?q=1]`")):
        on_rows("source", lambda r, root: uncited_message(sender)(r, root) and "://" not in r["text"],
                append_text(text))(specimen)
    stamp(specimen)
    found = validate(specimen, rules="PII1").failure_frame()["value"].tolist()
    assert sorted(found) == ["https://example.com/a?id=3", "https://example.net/?q=1",
                             "https://example.org/w?title=Foo_(bar)"], found



def test_the_url_pattern_leaves_no_split_to_try():
    """Python's engine tries every way a pattern can split a run: a class repeated before a `?` (or `=`) that it
    also takes made one value of `http://a?` repeated cost minutes (GI5 and PII1 search every value Arrow's screen
    passes). Each repeated class of the URL pattern excludes the character that follows it, and stops at the next
    `http(s)://`: begun at each of the many in one run, each attempt ran to the run's end (`http://a?b` repeated to
    100,000 characters, 3 s). The rows it flags are the same; of a URL inside another's path it names the inner."""
    import re

    import pandas as pd
    from realcompanion.validators.integrity import PII_PATTERNS
    from realcompanion.validators.screen import search

    url = PII_PATTERNS["URL with query string"]
    repeated = re.findall(r"(\(\?!https\?://\))?(\[[^\]]*\])\)?[*+]\\?([^\\\[])", url)
    assert repeated and [(cls, after) for _, cls, after in repeated if re.fullmatch(cls, after)] == []
    assert all(tempered for tempered, _, _ in repeated)
    text = pd.Series(["see http://a?http://a?b=1，好", "https://x.org/?=?q=北京 then", "http://a?b", "http://a?b" * 50,
                      "https://web.archive.org/web/2020/http://x.com/?a=1 ok"])
    assert list(search(text, url)) == ["http://a?http://a?b=1", "https://x.org/?=?q=北京", "http://x.com/?a=1"]


def test_an_email_address_is_tried_only_where_its_name_starts():
    """Begun at every character of a long run of name characters, each attempt of the e-mail pattern ran to the
    run's end: 6 s for one value of 20,000 characters that Arrow's screen passed (a phone number in it). The pattern
    starts only where a run starts (a look-behind of its own class); the addresses it names are the same."""
    import re

    import pandas as pd
    from realcompanion.validators.integrity import PII_PATTERNS
    from realcompanion.validators.screen import search

    email = PII_PATTERNS["e-mail address"]
    start = re.match(r"\(\?<!(\[[^\]]*\])\)(\[[^\]]*\])\+", email)
    assert start and start[1] == start[2]
    text = pd.Series(["mail ana.b+x@mail.example.org.", "a" * 50 + "@ b.c, x@y.zz", "张三@例子.中国 or 010 1234 5678"])
    assert list(search(text, email)) == ["ana.b+x@mail.example.org.", "x@y.zz", "张三@例子.中国"]


def test_every_rule_names_the_paper_table_and_row_it_states(capsys):
    """The catalogue, `realcompanion rules` and DATASHEET.md cite the paper's table (or SPEC.md where it is silent)."""
    import re

    from realcompanion.cli import main

    assert main(["rules", str(REPO_ROOT), "--json"]) == 0
    listed = {r["id"]: r["paper"] for r in json.loads(capsys.readouterr().out)}
    assert listed == {r.id: r.paper for r in select(None, declared_rules(Release(REPO_ROOT)))}
    assert [i for i, paper in listed.items() if not re.search(r"Table \d+|SPEC §\d", paper)] == []


@pytest.mark.parametrize("change", ["gap", "repeat"])
def test_one_break_in_the_turn_numbering_is_one_failure(specimen, change):
    """Gate B names the row where the numbering breaks, not every later turn of the participant."""
    rows = read(specimen, "source")
    pid = rows[0]["participant_id"]
    own = [r for r in rows if r["participant_id"] == pid]
    at = own[len(own) // 2]
    if change == "gap":  # a message missing before `at`: every later turn one too high
        for r in own[own.index(at):]:
            r["turn"] += 1
    else:  # `at` numbered like the message before it, the later turns right
        at["turn"] -= 1
    write(specimen, "source", rows)
    stamp(specimen)
    found = validate(specimen, rules="B").failure_frame()
    turns = found[(found["rule"] == "B") & (found["field"] == "turn")]
    assert list(turns["row"]) == [at["dayid"]], turns.to_string()


def test_one_break_in_a_days_numbering_is_one_failure(specimen):
    """A day's dayids skipping a number: gate B names the first dayid after the gap, not the rest of the day."""
    rows = read(specimen, "source")
    days: dict[str, list[dict]] = {}
    for r in rows:
        days.setdefault(r["dayid"][:-4], []).append(r)
    day = max(days.values(), key=len)
    at = day[len(day) // 2]
    for r in day[day.index(at):]:
        r["dayid"] = f"{r['dayid'][:-3]}{int(r['dayid'][-3:]) + 1:03d}"
    write(specimen, "source", rows)
    stamp(specimen)
    found = validate(specimen, rules="B").failure_frame()
    seq = found[(found["rule"] == "B") & found["message"].str.startswith("seq of dayid")]
    assert list(seq["row"]) == [at["dayid"]], seq.to_string()


def test_keys_citing_the_same_target_each_name_their_own_rows(specimen):
    """chat.probe_dayid and qa.asked_after both cite source.dayid and are resolved in one join: a dangling value
    in each is named in its own resource, at its own row, and nowhere else."""
    chat, qa = read(specimen, "chat"), read(specimen, "qa")
    chat[-1]["probe_dayid"], qa[0]["asked_after"] = "U01:d998:001", "U01:d999:001"
    write(specimen, "chat", chat)
    write(specimen, "qa", qa)
    stamp(specimen)
    found = validate(specimen, rules="KEY1").failure_frame()
    named = found[found["rule"] == "KEY1"]
    assert sorted(zip(named["resource"], named["row"].astype(str), named["value"])) == [
        ("chat", chat[-1]["item_id"], "U01:d998:001"), ("qa", qa[0]["item_id"], "U01:d999:001")], named.to_string()


def test_gate_b_judges_whole_participants_batch_by_batch(specimen, monkeypatch):
    """Gate B judges the stream a batch of whole participants at a time: one participant per batch finds the same
    failures, in the same order, as the whole stream at once, and a batch is cut only where a participant begins."""
    import numpy as np
    from realcompanion.validators.realcompanion import gates

    assert gates.participant_batches(np.array([0, 0, 0, 1, 1, 2]), 2) == [slice(0, 3), slice(3, 5), slice(5, 6)]
    assert gates.participant_batches(np.array([], dtype=int), 2) == [slice(0, 0)]
    rows = read(specimen, "source")
    pids = list(dict.fromkeys(r["participant_id"] for r in rows))
    first, second = ([r for r in rows if r["participant_id"] == p] for p in pids[:2])
    first[3]["turn"] += 1
    second[5]["db_id"] = second[4]["db_id"]
    second[7]["timestamp"] = second[2]["timestamp"]
    write(specimen, "source", rows)
    stamp(specimen)
    whole = validate(specimen, rules="B").failure_frame()
    monkeypatch.setattr(gates, "GATE_B_BATCH", 1)
    batched = validate(specimen, rules="B").failure_frame()
    assert set(whole["row"]) >= {first[3]["dayid"], second[5]["dayid"], second[7]["dayid"]}, whole.to_string()
    pd.testing.assert_frame_equal(batched, whole)


def test_nested_fields_converted_slice_by_slice(specimen, monkeypatch):
    """SCH3 converts a large column to Python a slice at a time (`SLICE_BYTES`): a defect in a later slice is named
    at its own row, as in one slice."""
    from realcompanion.validators import structure

    chat = read(specimen, "chat")
    chat[150]["trace"]["A"]["result"] = "maybe"
    write(specimen, "chat", chat)
    stamp(specimen)
    whole = validate(specimen, rules="SCH3").failure_frame()
    monkeypatch.setattr(structure, "SLICE_BYTES", 1)  # a row a slice
    sliced = validate(specimen, rules="SCH3").failure_frame()
    assert chat[150]["item_id"] in set(whole.loc[whole["rule"] == "SCH3", "row"]), whole.to_string()
    pd.testing.assert_frame_equal(sliced, whole)


def test_giving_memory_back_changes_no_verdict(specimen, monkeypatch):
    """A release large enough gives freed memory back before each fork and after each forked unit (`given_back`):
    the run finds what it finds without."""
    from realcompanion.validators import speed

    rows = read(specimen, "source")
    rows[3]["turn"] += 1
    write(specimen, "source", rows)
    stamp(specimen)
    kept = validate(specimen).failure_frame()
    monkeypatch.setattr(speed, "LARGE_MIN_ROWS", 0)
    given = validate(specimen).failure_frame()
    assert (kept["rule"] == "B").any()
    pd.testing.assert_frame_equal(given, kept)
