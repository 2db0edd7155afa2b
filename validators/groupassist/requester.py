"""GS6: who asks an instance, the check the format's Table Schemas leave to a rule.

A requester is a member of the instance's group: `(group_id, requester)` names a `members` row. A question nobody
in the group asked (an authored instance of a conversion: a dataset's question about a dialogue) has no requester,
and its `requester` is null. A Table Schema cannot say so: Frictionless (`resources/table.py`, like this package's
GS3) skips a foreign key only when every one of its fields is null, and reads `(G01, null)` as a key that does not
resolve. So the format declares no foreign key on `requester`, does not require it, and this rule checks a
non-null requester's group and allows a null one on an authored instance only (a native instance is a member's
own request, whose speaker GC7 compares with its requester). A requester who speaks in the group but is not on its
roster is GM3's line (the roster left them out), not one more line an instance.
"""
from __future__ import annotations

import pandas as pd

from ..catalogue import combined, failures
from .catalogue import rule


def strangers(ctx, inst: pd.DataFrame) -> pd.Series:
    """Row by row of `inst`, whether its requester is no member of its group: neither on the roster nor speaking in
    the group (one off the roster is GM3's one line). A null requester or group is not judged."""
    known = pd.MultiIndex.from_frame(ctx.frame("members")[["group_id", "member_id"]].dropna())
    pairs = pd.MultiIndex.from_arrays([inst["group_id"], inst["requester"]])
    unknown = inst["requester"].notna() & inst["group_id"].notna() & ~pairs.isin(known)
    if unknown.any():  # rare: the speakers read only then
        m = ctx.frame("messages")
        spoken = m.loc[m["speaker"] != "assistant", ["group_id", "speaker"]].dropna().drop_duplicates()
        unknown &= ~pairs.isin(pd.MultiIndex.from_frame(spoken))
    return unknown


@rule("GS6", "error", "structure", ("instances", "members", "messages"),
      "an instance's requester is a member of its group (group_id and requester name a members row); only an authored "
      "instance, a question nobody in the group asked, leaves it null",
      "GROUPASSIST.md §2 (requester: a member_id; members per group); App. A.5 (native instances keep the member's "
      "request, authored ones are written for the group)")
def requester(ctx) -> pd.DataFrame:
    inst = ctx.frame("instances")
    unknown = strangers(ctx, inst)
    unasked = inst["requester"].isna() & inst["origin"].notna() & (inst["origin"] != "authored")
    return combined([
        failures("instances", inst["instance_id"][unknown], "group_id,requester",
                 inst["group_id"][unknown] + ", " + inst["requester"][unknown],
                 "does not resolve to members.group_id,member_id"),
        failures("instances", inst["instance_id"][unasked], "requester", None,
                 inst["origin"][unasked].map(lambda o: f"null on a {o} instance: only an authored question, one nobody "
                                                       "in the group asked, has no requester"))])
