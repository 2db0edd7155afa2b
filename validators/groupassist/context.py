"""Views several GroupAssistBench rules share, computed once per run: frames, messages by id, anchors joined."""
from __future__ import annotations

from functools import cached_property

import pandas as pd

from realcompanion.groupassist import RESOURCES

from ..context import Context as CoreContext


class Context:
    def __init__(self, release):
        self.release = release
        self.params = release.params
        self.vocab = release.schemas.vocabulary
        self._frames: dict[str, pd.DataFrame] = {}

    def table(self, name: str):
        """The resource as read (Arrow); declared rules and the shared calendar rule read it."""
        return self.release.table(name)

    column = CoreContext.column  # a column or struct sub-field by dotted path, as declared rules name them

    def frame(self, name: str) -> pd.DataFrame:
        if name not in self._frames:
            self._frames[name] = self.release.table(name).to_pandas()  # plain dtypes: nulls as None / NaN
        return self._frames[name]

    def row_ids(self, name: str) -> pd.Series:
        key = self.release.primary_key(name)
        frame = self.frame(name)
        return frame[key].astype(str).agg(":".join, axis=1) if len(key) > 1 else frame[key[0]].astype(str)

    def line(self, name: str, position: int) -> int:
        """The file line (1-based) of row `position` of the resource's table (records set aside are skipped)."""
        return self.release.line(name, position)

    def warm(self) -> None:
        """Read every table and compute the shared views once, before worker processes fork and inherit them; a
        view this release cannot yield is left to the rules that read it, which then report it."""
        for name in RESOURCES:
            self.frame(name)
        for view in ("messages", "anchors"):
            try:
                getattr(self, view)
            except Exception:  # noqa: BLE001, S110 - reported by the rules that read the view
                pass

    @cached_property
    def messages(self) -> pd.DataFrame:
        """Messages with their position within the group (`seq`), indexed by message_id."""
        m = self.frame("messages").copy()
        m["seq"] = m.groupby("group_id").cumcount()
        return m.set_index("message_id", drop=False)

    @cached_property
    def anchors(self) -> pd.DataFrame:
        """Anchors with their instance (cutoff, dependency, level, origin, queries) and cited message."""
        a = self.frame("anchors").merge(
            self.frame("instances")[["instance_id", "group_id", "cutoff_turn", "dependency", "level", "origin",
                                     "query_zh", "query_en", "requester"]], on="instance_id", how="left")
        m = self.messages[["message_id", "group_id", "turn", "seq", "role", "speaker", "placeholder", "text_zh",
                           "text_en"]].rename(columns={"group_id": "message_group"}).reset_index(drop=True)
        return a.merge(m, on="message_id", how="left")

    def history_counts(self) -> pd.Series:
        """For each instance (by instance_id), the number of messages of its group with turn < cutoff_turn."""
        import numpy as np

        inst = self.frame("instances")
        out = pd.Series(0, index=inst["instance_id"].to_numpy())
        for gid, turns in self.frame("messages").groupby("group_id")["turn"]:
            rows = inst["group_id"] == gid
            out[inst.loc[rows, "instance_id"].to_numpy()] = np.searchsorted(np.sort(turns.to_numpy()),
                                                                             inst.loc[rows, "cutoff_turn"], "left")
        return out
