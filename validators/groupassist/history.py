"""The group histories: identifiers from turns, order, speakers, replies, packaged length."""
from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..catalogue import combined, failures
from ..context import instants
from .catalogue import rule
from .context import among, position_in, taken


@rule("GM1", "error", "history", ("messages",),
      "message_id is {group_id}:m{turn:06d} for a turn's first record and .k for its k-th further record",
      "GROUPASSIST.md §2 (message_id); App. D (records that share a turn index)")
def message_ids(ctx) -> pd.DataFrame:
    m, table = ctx.frame("messages"), ctx.table("messages")
    k = pa.array(m.groupby(["group_id", "turn"], dropna=False).cumcount().to_numpy())
    suffix = pc.if_else(pc.greater(k, 0), pc.binary_join_element_wise(".", pc.cast(k, pa.string()), ""), "")
    turn = pc.utf8_lpad(pc.cast(table.column("turn"), pa.string()), 6, "0")
    expected = pc.binary_join_element_wise(table.column("group_id"), ":m", turn, suffix, "")  # null: set aside
    bad = pc.fill_null(pc.not_equal(table.column("message_id"), expected), False).to_numpy(zero_copy_only=False)
    return failures("messages", m["message_id"][bad], "message_id", expected.filter(bad).to_pylist(),
                    "expected this identifier")


@rule("GM2", "error", "history", ("messages",),
      "within a group, records are in order: turns run from 0 without a gap and never decrease, nor do timestamps (a "
      "group's records may lie in several runs)",
      "GROUPASSIST.md §2 (turn, 0-based; timestamp); App. A.1 (a complete message timeline, every group used in full); "
      "App. E.1 (cutoffs by turn index)")
def in_order(ctx) -> pd.DataFrame:
    m = ctx.frame("messages")
    # a record whose group is set aside (null) keeps its line's place in the group of the record before it (the file's
    # first record, of the one after it), as a RealCompanion message without a participant does: it fills its turn,
    # and no later record skips one for it
    group = m["group_id"].ffill().bfill()
    instant = instants(m["timestamp"])  # per record, any RFC 3339 spelling; one GS4 rejects is not judged
    parts = [failures("messages", m["message_id"][bad], field, m[field][bad].astype(str), f"{field} goes back")
             for field, values in (("turn", m["turn"]), ("timestamp", instant))
             for bad in [values < values.groupby(group).shift()]]  # the group's previous record, in any run
    # a missing turn index is a message left out of the history every cutoff and count is read against
    previous = m["turn"].groupby(group).shift()
    late = (m.groupby(group).cumcount() == 0) & m["turn"].notna() & (m["turn"] != 0)
    skips = m["turn"] - previous > 1
    return combined(parts + [
        failures("messages", m["message_id"][late], "turn", m["turn"][late].astype(str),
                 "the group's first record is not turn 0: turns count every message of the history from 0"),
        failures("messages", m["message_id"][skips], "turn", m["turn"][skips].astype(str),
                 [f"turn skips from {int(p)}: turns count every message of the history, without a gap"
                  for p in previous[skips]])])


@rule("GM3", "error", "history", ("messages", "members"),
      "a message's role is assistant exactly when its speaker is 'assistant'; any other speaker is a member of its group",
      "GROUPASSIST.md §2 (role, speaker)")
def speakers(ctx) -> pd.DataFrame:
    """A speaker off its group's roster is one line, on its first message: the roster or the name is the one fault,
    not each of its messages."""
    m = ctx.frame("messages")
    members = ctx.frame("members")
    known = pd.MultiIndex.from_frame(members[["group_id", "member_id"]]).to_flat_index()
    # a roster record whose group or name is set aside (null) may be any group's, or any name: a speaker it may be
    # is not judged
    is_member = (pd.MultiIndex.from_arrays([m["group_id"], m["speaker"]]).isin(known)
                 | among(m["speaker"], members.loc[members["group_id"].isna(), "member_id"].dropna())
                 | among(m["group_id"], members.loc[members["member_id"].isna(), "group_id"].dropna()))
    assistant = m["speaker"] == "assistant"
    mismatch = assistant != (m["role"] == "assistant")
    off = m.loc[~assistant & ~is_member & ~mismatch, ["message_id", "group_id", "speaker"]]
    said = off.groupby(["group_id", "speaker"], dropna=False, sort=False)["message_id"].agg(["first", "size"])
    return combined([failures("messages", m["message_id"][mismatch], "speaker", m["speaker"][mismatch],
                              "speaker does not match role"),
                     failures("messages", said["first"], "speaker", said.index.get_level_values("speaker"),
                              [f"not a member of the group: {n} message(s) of {g} by this speaker, none on its roster"
                               for g, n in zip(said.index.get_level_values("group_id"), said["size"])])])


@rule("GM7", "error", "history", ("members", "messages"),
      "every member is of a group the release holds (one with messages) and goes by a pseudonym other than "
      "'assistant', the speaker the format keeps for the assistant",
      "GROUPASSIST.md §1 (members: one member of one group), §2 (speaker: a per-group pseudonym, or `assistant`)")
def members(ctx) -> pd.DataFrame:
    """A member of a group whose history the release left out belongs to no history a rule reads; a member named
    'assistant' lets the assistant be a requester (GS6) and passes its messages for a member's (GM3)."""
    mem = ctx.frame("members")
    known = mem["group_id"].notna() & mem["member_id"].notna()  # a key set aside: GS2's
    held = among(mem["group_id"], pd.unique(ctx.frame("messages")["group_id"].dropna()).tolist())
    rows = mem["group_id"].astype(str) + ":" + mem["member_id"].astype(str)
    orphan, named = known & ~held, known & (mem["member_id"] == "assistant")
    return combined([failures("members", rows[orphan], "group_id", mem["group_id"][orphan],
                              "no message of the release is of this group: a member of a group it does not hold"),
                     failures("members", rows[named], "member_id", mem["member_id"][named],
                              "'assistant' is the assistant's speaker, not a member's pseudonym")])


@rule("GM8", "error", "history", ("messages", "members"),
      "every group the release holds has at least two members (its roster's and its speakers')",
      "App. A.1 (we keep the group conversations with at least two members); §1 (integration across multiple "
      "participants); App. A.4 (M2: memories distributed across members)")
def group_chats(ctx) -> pd.DataFrame:
    """A one-to-one chat converted as a group has no members' memories to integrate or attribute. A member who never
    speaks is one (the roster's); a speaker off the roster is one too, GM3's to name."""
    m, mem = ctx.frame("messages"), ctx.frame("members")
    first = m.dropna(subset=["group_id"]).drop_duplicates("group_id")
    roster = mem[["group_id", "member_id"]].dropna().drop_duplicates()
    n = roster.groupby("group_id").size().reindex(first["group_id"], fill_value=0).to_numpy()
    if (n < 2).any():  # rare: the speakers of those groups read only then
        short = m[among(m["group_id"], first["group_id"][n < 2]) & m["speaker"].notna() & (m["speaker"] != "assistant")]
        spoken = pd.concat([roster, short[["group_id", "speaker"]].set_axis(["group_id", "member_id"], axis=1)])
        n = spoken.drop_duplicates().groupby("group_id").size().reindex(first["group_id"], fill_value=0).to_numpy()
    bad = n < 2
    return failures("messages", first["message_id"][bad], "group_id", first["group_id"][bad],
                    [f"the group has {k} member(s): a group chat has at least two" for k in n[bad].tolist()])


@rule("GM9", "error", "history", ("instances", "messages"),
      "an authored instance's cutoff lies in its group's history: a turn of it, or the one right after its last (the "
      "whole history)",
      "App. E.1 (only turns with index t < c are visible: a cutoff is a point of the history); App. A.5 (the cutoff "
      "is placed delta messages after the last anchor)")
def cutoffs_in_history(ctx) -> pd.DataFrame:
    """A cutoff past the history's end shows a system the same history as one right after it, but claims turns no
    record holds: a cutoff counted in another index (records, 1-based) or from another copy of the group. A native
    instance's cutoff is its request's turn (GC7 names one no record holds)."""
    inst, m = ctx.frame("instances"), ctx.frame("messages")
    end = m.groupby("group_id")["turn"].max().to_dict()
    own = inst[(inst["origin"] == "authored") & among(inst["group_id"], list(end))]
    last = own["group_id"].map(end).astype(float)
    bad = own["cutoff_turn"] > last + 1  # null (set aside): not judged
    return failures("instances", own["instance_id"][bad], "cutoff_turn", own["cutoff_turn"][bad],
                    [f"the group's last turn is {int(t)}: a cutoff lies at most one turn after it" for t in last[bad]])


@rule("GM4", "error", "history", ("messages",), "reply_to names an earlier message of the same group",
      "GROUPASSIST.md §2 (reply_to)")
def replies(ctx) -> pd.DataFrame:
    msgs = ctx.messages
    m = msgs.loc[msgs["reply_to"].notna(), ["message_id", "group_id", "seq", "reply_to"]]
    at = position_in(m["reply_to"], msgs["message_id"])
    bad = (taken(msgs["group_id"], at) != m["group_id"].to_numpy()) | ~(taken(msgs["seq"], at) < m["seq"].to_numpy())
    return failures("messages", m["message_id"][bad], "reply_to", m["reply_to"][bad], "not an earlier message of the group")


@rule("GM6", "error", "history", ("instances", "anchors", "atoms", "criteria", "feedback"),
      "every identifier begins with its owner's: instance ids with the group, anchor/atom/criterion ids with the instance",
      "GROUPASSIST.md §2 (identifiers)")
def id_prefixes(ctx) -> pd.DataFrame:
    parts = []
    for name, key, owner in (("instances", "instance_id", "group_id"), ("anchors", "anchor_id", "instance_id"),
                             ("atoms", "atom_id", "instance_id"), ("criteria", "criterion_id", "instance_id"),
                             ("feedback", "feedback_id", "group_id")):
        f, table = ctx.frame(name), ctx.table(name)
        prefix = pc.replace_substring_regex(table.column(key), r":[^:]*$", "")  # what rsplit(":", 1)[0] keeps
        bad = pc.fill_null(pc.not_equal(prefix, table.column(owner)), True).to_numpy(zero_copy_only=False)
        parts.append(failures(name, f[key][bad], key, f[key][bad],
                              [f"identifier prefix differs from its {owner}, {o}" for o in f[owner][bad]]))
    return combined(parts)
