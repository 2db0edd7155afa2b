"""Records a rule's neighbour fails and the format allows, each on a copy of the specimen edited in one way: the release
stays VALID, with the specimen's own warnings only.

A session opener that is no cold open may cite the last session (SIG9 holds cold opens alone); a phase E returned
for repair and shipped is revised, a phase B that removed references may record its failure (SIG10); a referent is matched
whatever its case, and a row citing only the current thread may record none (REF1); a claim may leave its whole
observation window null (ARI6, counted by NUL1); a value with content is not blank for the spaces around it (FLD3); a
row withdrawn for another reason than phase B's emptying its context may cite what it was left (SIG11); recent context
may reach back the whole recent window, or further within the probe's session (ARI10); two probes of one stratum may
say the same words at two turns (ARI11); a release of real records whose keywords no longer say synthetic, and a
synthetic one saying so in its own words, label their records as the flag does (INT10).
"""
from __future__ import annotations

import json

import pytest
from realcompanion.validators.run import validate
from test_rules import chat_where, context_phase_b_left, edit_descriptor, read, turns_of, write

from realcompanion.stamp import stamp


def opener_citing_last_session(root):
    """A shipped row that is no cold open, whose probe opens a session, given the message before it as recent context."""
    chat, turns, source = read(root, "chat"), turns_of(root), read(root, "source")
    session = {(m["participant_id"], m["turn"]): m["session"] for m in source}
    row = next(r for r in chat if not r["cold_open"] and r["withdrawn"] is None and not r["required_context"]["recent_context"]
               and turns[r["probe_dayid"]] > 0 and session[r["participant_id"], turns[r["probe_dayid"]] - 1]
               != session[r["participant_id"], turns[r["probe_dayid"]]] is not None)
    before = next(d for d, t in turns.items() if d.startswith(row["participant_id"] + ":")
                  and t == turns[row["probe_dayid"]] - 1)
    row["required_context"].update(recent_context=[before], recent_needed=True)
    write(root, "chat", chat)


def repaired_and_shipped(root):
    chat = read(root, "chat")
    next(r for r in chat if r["withdrawn"] is None)["trace"]["E"]["result"] = "revised"
    write(root, "chat", chat)


def removed_and_failed(root):
    """Phase B's failure recorded on a row whose references it removed (Table 10: a derivation records the checks that
    failed), where its result need not say revised."""
    chat = read(root, "chat")
    next(r for r in chat if r["trace"]["B"]["removed"])["trace"]["B"]["result"] = "fail"
    write(root, "chat", chat)


def referent_in_capitals(root):
    chat = read(root, "chat")
    row = next(r for r in chat if r["memory_bearing"]["recorded"] and r["trace"]["A"]["referent_text"])
    row["trace"]["A"]["referent_text"] = row["trace"]["A"]["referent_text"].upper()
    write(root, "chat", chat)


def thread_row_without_referent(root):
    chat = read(root, "chat")
    row = next(r for r in chat if chat_where(recorded=False, locus="current_thread")(r, root)
               and r["trace"]["A"]["referent_text"])
    row["trace"]["A"]["referent_text"] = None
    write(root, "chat", chat)


def window_left_null(root):
    profile = read(root, "profile")
    row = next(c for c in profile if c["first_seen"])
    row.update(first_seen=None, last_seen=None)
    write(root, "profile", profile)


def answer_with_spaces_around(root):
    qa = read(root, "qa")
    row = next(r for r in qa if r["answerable"])
    row["answer"] = f" {row['answer']} "
    write(root, "qa", qa)


def context_kept_when_withdrawn_as(code):
    """SIG11's mutation under another Table 22 code: a row withdrawn for a lost context, or for a gold outside an empty
    context (the paper defines it by its name alone: docs/validating.md, SIG11), may cite what B left it."""
    def edit(root):
        chat = read(root, "chat")
        row = next(r for r in chat if r["withdrawn"] == "stage_b_empty_context")
        context_phase_b_left(row, root)
        row["withdrawn"] = row["trace"]["E"]["rationale"] = code
        write(root, "chat", chat)
    edit.__name__ = f"context_kept_when_withdrawn_as_{code}"
    return edit



def recent_from(name, pick):
    """An edit (named `name`) giving a row with recent context one more recent message: the first of its participant's
    messages for which pick(message, probe, window) holds, the probe's message and window given."""
    def edit(root):
        chat, source = read(root, "chat"), read(root, "source")
        window = json.loads((root / "datapackage.json").read_text())["realcompanion"]["recent_window"]
        by = {m["dayid"]: m for m in source}
        for row in (r for r in chat if r["required_context"]["recent_context"] and r["withdrawn"] is None):
            probe = by[row["probe_dayid"]]
            found = [m for m in source if m["participant_id"] == probe["participant_id"] and pick(m, probe, window)]
            if found:
                row["required_context"]["recent_context"].insert(0, found[0]["dayid"])
                write(root, "chat", chat)
                return
        raise AssertionError("no row has such a message")
    edit.__name__ = name
    return edit


# the window's first message, from the last session: recent
recent_context_at_window_edge = recent_from("recent_context_at_window_edge", lambda m, probe, window: (
    m["turn"] == probe["turn"] - window and (m["session"] or 0) < (probe["session"] or 0)))
# a long thread: a message of the probe's own session beyond the window is the current thread's
thread_longer_than_window = recent_from("thread_longer_than_window", lambda m, probe, window: (
    m["turn"] < probe["turn"] - window and m["session"] is not None and m["session"] == probe["session"]))


def same_words_probed_twice(root):
    """Two rows of one stratum whose probes say the same words at different turns: each samples its own turn."""
    chat, source = read(root, "chat"), read(root, "source")
    context = {d for r in chat for field in ("recent_context", "episode_refs") for d in r["required_context"][field]}
    first, second = [r for r in chat if r["stratum"] == "proportional" and r["withdrawn"] is None
                     and r["probe_dayid"] not in context and r["participant_id"] == chat[0]["participant_id"]][:2]
    second["probe"] = first["probe"]
    next(m for m in source if m["dayid"] == second["probe_dayid"])["text"] = first["probe"]
    write(root, "chat", chat)
    write(root, "source", source)


def labelled(name, synthetic, keyword):
    """An edit (named `name`) setting the synthetic flag and putting `keyword` in the specimen's synthetic-specimen's
    place, as a converter labels its release."""
    def edit(root):
        def change(d):
            d["realcompanion"]["synthetic"] = synthetic
            d["keywords"] = [keyword if w == "synthetic-specimen" else w for w in d["keywords"]]
        edit_descriptor(root, change)
    edit.__name__ = name
    return edit


NEAR_MISSES = [opener_citing_last_session, repaired_and_shipped, removed_and_failed, referent_in_capitals,
               thread_row_without_referent, window_left_null, answer_with_spaces_around, recent_context_at_window_edge,
               thread_longer_than_window, same_words_probed_twice,
               *map(context_kept_when_withdrawn_as, ("context_lost", "gold_outside_empty_context")),
               labelled("real_records_labelled_real", False, "non-synthetic"),
               labelled("synthetic_records_in_other_words", True, "Synthetic dialogues")]


@pytest.mark.parametrize("edit", NEAR_MISSES, ids=[e.__name__ for e in NEAR_MISSES])
def test_a_record_the_format_allows_stays_valid(edit, specimen):
    edit(specimen)
    stamp(specimen)
    report = validate(specimen)
    assert report.errors == 0 and report.fired() == {"NUL1"}, report.failure_frame().head(10).to_string()
