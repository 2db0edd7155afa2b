"""Derived views that several rules share, computed once per validation run.

Rules never loop over messages in Python: list fields are exploded with Arrow
(`list_flatten` / `list_parent_indices`) and joined to the message index.
"""
from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from realcompanion.release import Release

# every place a record cites another record (a dayid or a claim_id): (resource, dotted path)
CITATIONS = [
    ("chat", "probe_dayid"),
    ("chat", "required_context.recent_context"),
    ("chat", "required_context.episode_refs"),
    ("chat", "required_context.profile_refs"),
    ("chat", "grounding_dayids"),
    ("chat", "trace.B.removed"),
    ("chat", "trace.D.grounding_dayids"),
    ("profile", "evidence"),
    ("persona", "evidence"),
    ("qa", "evidence"),
    ("qa", "asked_after"),
]

ROW_ID = {"source": "dayid", "profile": "claim_id", "chat": "item_id", "qa": "item_id"}


class Context:
    def __init__(self, release: Release):
        self.release = release
        self.params = release.params
        self.vocab = release.schemas.vocabulary
        self._frames: dict[str, pd.DataFrame] = {}

    def warm(self) -> None:
        """Compute the shared views once, before worker processes fork and inherit them."""
        from realcompanion.schemas import RESOURCES

        for name in RESOURCES:
            self.frame(name)
        for view in ("messages", "_message_index", "citations", "claim_evidence", "cited_claims", "probe_turns"):
            getattr(self, view)

    def table(self, name: str) -> pa.Table:
        return self.release.table(name)

    def frame(self, name: str) -> pd.DataFrame:
        if name not in self._frames:
            self._frames[name] = self.release.frame(name)
        return self._frames[name]

    def column(self, name: str, path: str) -> pa.ChunkedArray:
        """A column or a struct sub-field by dotted path, e.g. `trace.C.tier`."""
        head, *rest = path.split(".")
        column = self.table(name).column(head)
        for part in rest:
            column = pc.struct_field(column, part)
        return column

    def series(self, name: str, path: str) -> pd.Series:
        return self.column(name, path).to_pandas(types_mapper=pd.ArrowDtype)

    def same_lists(self, name: str, left: str, right: str) -> np.ndarray:
        """Row by row, whether two list columns hold the same items in the same order (nulls equal)."""
        joined = [pc.binary_join(self.column(name, p).combine_chunks(), "\x1f") for p in (left, right)]
        both_null = pc.and_(pc.is_null(joined[0]), pc.is_null(joined[1]))
        return pc.or_(both_null, pc.fill_null(pc.equal(*joined), False)).to_numpy(zero_copy_only=False)

    def readings(self) -> tuple[pd.Series, pd.Series, pd.Series]:
        """memory_bearing under the recorded, strict and strict2 readings."""
        return tuple(self.series("chat", f"memory_bearing.{r}") for r in ("recorded", "strict", "strict2"))

    def row_ids(self, name: str) -> pd.Series:
        if name == "persona":
            frame = self.frame(name)
            return frame["participant_id"].astype(str) + ":" + frame["slot"].astype(str)
        return self.frame(name)[ROW_ID[name]].astype(str)

    def exploded(self, name: str, path: str) -> pd.DataFrame:
        """One row per list element: `idx` (row position in the resource) and `value`."""
        array = self.column(name, path).combine_chunks()
        return pd.DataFrame({
            "idx": np.asarray(pc.list_parent_indices(array)),
            "value": pc.list_flatten(array).to_pandas(types_mapper=pd.ArrowDtype),
        })

    @cached_property
    def messages(self) -> pd.DataFrame:
        """The source stream indexed by dayid, with local date (the timestamp's own) and UTC instant."""
        frame = self.frame("source").copy()
        frame["date"] = frame["timestamp"].str.slice(0, 10)
        instant = pc.cast(self.table("source").column("timestamp"), pa.timestamp("us", tz="UTC"))
        frame["instant"] = pc.cast(instant, pa.timestamp("us")).to_numpy()  # naive UTC: numpy-native, fast
        return frame.set_index("dayid", drop=False)

    @cached_property
    def _message_index(self) -> pd.Index:
        """dayid -> position; pandas builds the hash table once and every lookup reuses it."""
        return pd.Index(self.table("source").column("dayid").to_numpy(zero_copy_only=False))

    def locate(self, dayids) -> np.ndarray:
        """Positions of the named messages in `messages` (-1 where an id does not resolve)."""
        return self._message_index.get_indexer(np.asarray(dayids, dtype=object))

    def lookup(self, dayids: pd.Series, column: str) -> pd.Series:
        """A column of the messages named by `dayids`, aligned with them (null where an id does not resolve)."""
        taken = self.messages[column].array.take(self.locate(dayids), allow_fill=True)
        return pd.Series(taken, index=dayids.index)

    def join_messages(self, cited: pd.DataFrame, on: str = "value") -> pd.DataFrame:
        """Attach the cited message's participant, turn, date, session, text; drops ids that do not resolve."""
        position = self.locate(cited[on])
        found = cited[position >= 0].copy()
        for column in ("participant_id", "turn", "date", "session", "text", "sender"):
            values = self.messages[column].array.take(position[position >= 0])
            found["msg_pid" if column == "participant_id" else column] = values
        return found

    @cached_property
    def probe_turns(self) -> pd.Series:
        """Turn of each chat row's probe (NaN when the probe does not resolve)."""
        return self.lookup(self.frame("chat")["probe_dayid"], "turn").astype("float64")

    @cached_property
    def claim_evidence(self) -> pd.DataFrame:
        """Each profile claim's evidence messages: claim_id, dayid, turn, date."""
        ev = self.exploded("profile", "evidence")
        ev["claim_id"] = self.frame("profile")["claim_id"].to_numpy()[ev["idx"]]
        return self.join_messages(ev)

    @cached_property
    def cited_claims(self) -> pd.DataFrame:
        """chat rows x profile_refs, with the cited claims' evidence turns (one row per evidence message)."""
        refs = self.exploded("chat", "required_context.profile_refs").rename(columns={"value": "claim_id"})
        ev = self.claim_evidence[["claim_id", "value", "turn"]].rename(columns={"value": "dayid"})
        return refs.merge(ev, on="claim_id", how="inner")

    @cached_property
    def citations(self) -> pd.DataFrame:
        """Every cited identifier: resource, idx (row position), field, value, pid (citing row's participant)."""
        parts = []
        for resource, path in CITATIONS:
            column = self.column(resource, path)
            if str(column.type).startswith("list"):
                part = self.exploded(resource, path)
            else:
                part = pd.DataFrame({"idx": np.arange(len(column)),
                                     "value": column.to_pandas(types_mapper=pd.ArrowDtype)})
            part["resource"], part["field"] = resource, path
            part["pid"] = self.frame(resource)["participant_id"].to_numpy()[part["idx"]]
            parts.append(part.dropna(subset=["value"]))
        return pd.concat(parts, ignore_index=True)
