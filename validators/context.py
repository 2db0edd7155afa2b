"""Derived views that several rules share, computed once per validation run.

Rules never loop over messages in Python: list fields are exploded with Arrow
(`list_flatten` / `list_parent_indices`), every cited id of the release is
resolved to a message position in one Arrow hash lookup, and rules take message
columns by position.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from realcompanion.formats import constants
from realcompanion.release import Release, as_is, fits

from .aside import read_as, read_aside

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


def instants(stamps: pd.Series) -> pd.Series:
    """Each timestamp's UTC instant, NaT where it is no RFC 3339 datetime with an offset (FLD2 and GS4 name it):
    pandas reads a time without an offset as UTC, and a rule ordering messages by it blamed the next message."""
    from realcompanion.schemas import RFC3339

    stamps = stamps.astype(object).where(stamps.str.match(RFC3339).fillna(False))
    return pd.to_datetime(stamps, utc=True, errors="coerce", format="ISO8601")


class Context:
    # The shared views `warm` computes (gates C and D share `citations`), as chains computed side by side: the
    # citations' Arrow lookups leave the GIL to the stream's sorts. A chain's views are computed in its order.
    VIEWS = (("messages", "stream", "session_starts", "citations"),
             ("_citing_fields", "claim_evidence", "cited_claims", "recorded_context", "probe_turns"))

    def __init__(self, release: Release):
        self.release = release
        self.params = release.params
        self.format = constants(release.params.get("format_version"))  # what VALID means, fixed by the version
        self._frames: dict[str, pd.DataFrame] = {}
        self._tables: dict[str, pa.Table] = {}
        self._lines: dict[str, np.ndarray] = {}
        self._set_aside_at: dict[str, np.ndarray] = {}
        self._row_ids: dict[str, pd.Series] = {}
        self._aside: dict[str, dict[str, dict[str, object]]] = {}  # values set aside, as read (validators/aside.py)
        self._named_by: Context = self  # the context whose values name the rows (`without`: a key read otherwise)

    @property
    def vocab(self) -> dict:
        """The vocabulary, read when a rule first needs it (after INT3 has checked where it lies)."""
        return self.release.schemas.vocabulary

    def warm(self) -> None:
        """Compute the shared views once, before worker processes fork and inherit them.

        A view this release cannot yield is left uncomputed: each rule that needs it then
        fails on its own and is reported as not evaluable.
        """
        for name in self.release.resources:
            self.frame(name)
        with ThreadPoolExecutor(len(self.VIEWS)) as pool:
            list(pool.map(self._warm, self.VIEWS))

    def _warm(self, chain: tuple[str, ...]) -> None:
        for view in chain:
            try:
                getattr(self, view)
            except Exception:  # noqa: BLE001, S110 - reported by the rules that read the view
                pass

    def table(self, name: str) -> pa.Table:
        """The resource, every line of its file a row: a record the reader set aside (SCH1) is back in its line's
        place with each field that does not fit its type null, so counts, citations and order still hold and the
        run sets that row aside from the rules' verdicts by its name."""
        if name not in self._tables:
            table, bad = self.release.table(name), self.release.invalid_rows.get(name)
            if bad:
                records = [item["row"] if isinstance(item["row"], dict) else {} for item in bad]
                aside = pa.Table.from_arrays([_fitting([r.get(f.name) for r in records], f.type) for f in table.schema],
                                             schema=table.schema)
                lines = np.concatenate([self.release.lines.get(name) or np.arange(1, table.num_rows + 1),
                                        [item["line"] for item in bad]]).astype(int)
                order = np.argsort(lines, kind="stable")
                self._set_aside_at[name] = np.flatnonzero(order >= table.num_rows)
                table = pa.concat_tables([table, aside]).take(order)
                self._lines[name] = lines[order]
            if name in self._aside:
                table = read_aside(table, self._aside[name])
            self._tables[name] = table
        return self._tables[name]

    def without(self, values: dict[str, dict[str, set[str]]]) -> Context:
        """A context over the same release in which, per resource and field, the given values (as the report writes
        them) read as `aside.read_as` reads them (null, as a field that does not fit its type, or the one value they
        stand for): the values that break their field's constraints, for every rule but the structure rules."""
        other = type(self)(self.release)
        other._aside, other._named_by = read_as(values, self.release, self.table, self.unresolved), self
        return other

    def unresolved(self) -> set[str]:
        """The identifiers the records cite (`CITATIONS`) that name no message: a claim's, or one no record holds."""
        try:
            cited = self._citing_fields
        except Exception:  # noqa: BLE001 - a view this release cannot yield: the rules reading it report it
            return set()
        return set().union(*(set(p.loc[p["position"] < 0, "value"].dropna()) for p in cited.values()))

    def set_aside_at(self, name: str) -> np.ndarray:
        """Positions in `table(name)` of the records the reader set aside: SCH1 reports each, and every other
        structure rule's verdict on them is dropped."""
        self.table(name)
        return self._set_aside_at.get(name, np.arange(0))

    def lines(self, name: str) -> np.ndarray:
        """The file line (1-based) of every row of `table(name)`."""
        self.table(name)
        if name not in self._lines:
            held = self.release.lines.get(name)
            self._lines[name] = np.asarray(held) if held else np.arange(1, self.table(name).num_rows + 1)
        return self._lines[name]

    def line(self, name: str, position: int) -> int:
        """The file line (1-based) of row `position` of `table(name)`."""
        self.table(name)
        return int(self._lines[name][position]) if name in self._lines else self.release.line(name, position)

    def frame(self, name: str) -> pd.DataFrame:
        if name not in self._frames:
            self._frames[name] = self.table(name).to_pandas(types_mapper=pd.ArrowDtype)
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

    def values(self, name: str, path: str, rows) -> pd.Series:
        """A (dotted) field's values at the positions `rows`, as Python objects (lists stay lists), indexed by
        row: only these rows become Python objects."""
        column = self.column(name, path)
        if len(rows) < len(column):
            column = column.take(pa.array(rows, type=pa.int64()))
        return pd.Series(column.to_pylist(), index=rows, dtype=object)

    def same_lists(self, name: str, left: str, right: str) -> np.ndarray:
        """Row by row, whether two list columns hold the same items in the same order (nulls equal)."""
        joined = [pc.binary_join(self.column(name, p).combine_chunks(), "\x1f") for p in (left, right)]
        both_null = pc.and_(pc.is_null(joined[0]), pc.is_null(joined[1]))
        return pc.or_(both_null, pc.fill_null(pc.equal(*joined), False)).to_numpy(zero_copy_only=False)

    def readings(self) -> tuple[pd.Series, pd.Series, pd.Series]:
        """memory_bearing under the recorded, strict and strict2 readings."""
        return tuple(self.series("chat", f"memory_bearing.{r}") for r in ("recorded", "strict", "strict2"))

    def row_ids(self, name: str) -> pd.Series:
        """How the report names each row: its primary key, fields joined by ':' (persona: `U01:occupation`),
        or `line N` (its JSON line) when the row has no key or its resource declares none. A key read otherwise
        (`without`) still names its row as written, as the constraint rule's line does."""
        if self._named_by is not self:
            return self._named_by.row_ids(name)
        if name not in self._row_ids:
            frame = self.frame(name)
            if not self.release.primary_key(name):
                self._row_ids[name] = pd.Series([f"line {n}" for n in range(1, len(frame) + 1)], dtype=object)
                return self._row_ids[name]
            first, *rest = self.release.primary_key(name)
            ids, keyless = frame[first].astype(str), frame[first].isna()
            for key in rest:
                ids, keyless = ids + ":" + frame[key].astype(str), keyless | frame[key].isna()
            if keyless.any():
                ids[keyless] = [f"line {self.line(name, i)}" for i in np.flatnonzero(keyless)]
            self._row_ids[name] = ids
        return self._row_ids[name]

    def ids_cited(self, resource: str, path: str) -> pd.DataFrame:
        """The ids one citing field holds, one row each: `idx` (citing row) and `value` (nulls left out)."""
        return self._citing_fields[resource, path][["idx", "value"]]

    @cached_property
    def messages(self) -> pd.DataFrame:
        """The source stream, in file order, with local date (the timestamp's own) and UTC instant."""
        frame = self.frame("source").copy()
        frame["date"] = frame["timestamp"].str.slice(0, 10)
        try:
            instant = pc.cast(self.table("source").column("timestamp"), pa.timestamp("us", tz="UTC"))
            frame["instant"] = pc.cast(instant, pa.timestamp("us")).to_numpy()  # naive UTC: numpy-native, fast
        except pa.ArrowInvalid:  # a timestamp FLD2 rejects has no instant; every other message keeps its own
            frame["instant"] = instants(frame["timestamp"]).dt.tz_convert(None).astype("datetime64[us]").to_numpy()
        return frame

    def at(self, positions: pd.Series, column: str) -> pd.Series:
        """A column of the messages at `positions`, aligned with them (null where a position is -1)."""
        values = self.messages[column]
        if not isinstance(values.dtype, pd.ArrowDtype):
            return pd.Series(values.array.take(positions.to_numpy(), allow_fill=True), index=positions.index)
        found = take_rows(pa.array(values.array), positions.to_numpy())  # the Arrow column itself
        return pd.Series(pd.array(found, dtype=values.dtype), index=positions.index)

    @cached_property
    def _citing_fields(self) -> dict[tuple[str, str], pd.DataFrame]:
        """Each citing field's identifiers: idx (citing row), value, position (of the message; -1: none).

        Every cited id of the release is resolved in one Arrow hash lookup against the dayid column. The ids are
        copied once, chunk by chunk from the columns as read, into that lookup's one array (a third faster than
        chunks), and each field's values are a slice of it: at 100x paper size (2.5 M ids) combining each
        column's chunks, then filtering out nulls and concatenating, held 108 MB more at the peak.
        """
        rows, chunks = {}, []
        for resource, path in CITATIONS:
            parts, start = [np.arange(0)], 0
            for chunk in self.column(resource, path).chunks:
                if pa.types.is_list(chunk.type):
                    parts.append(np.asarray(pc.list_parent_indices(chunk)) + start)
                    chunks.append(pc.list_flatten(chunk))
                else:
                    parts.append(np.arange(start, start + len(chunk)))
                    chunks.append(chunk)
                start += len(chunk)
            rows[resource, path] = np.concatenate(parts)
        ids = pa.concat_arrays(chunks) if chunks else pa.array([], pa.string())
        found = pc.fill_null(pc.index_in(ids, value_set=self.table("source").column("dayid")), -1).to_numpy()
        out, at = {}, 0
        for key, idx in rows.items():
            value, position = ids.slice(at, len(idx)), found[at:at + len(idx)]
            at += len(idx)
            if value.null_count:  # a null cites nothing
                kept = value.is_valid().to_numpy(zero_copy_only=False)
                idx, value, position = idx[kept], value.filter(pa.array(kept)), position[kept]
            out[key] = pd.DataFrame({"idx": idx, "value": pd.Series(value, dtype=pd.ArrowDtype(pa.string())),
                                     "position": position})
        return out

    def positions(self, resource: str, path: str) -> pd.Series:
        """For a single-id field, each row's message position (-1 where the id is null or does not resolve)."""
        part = self._citing_fields[resource, path]
        out = np.full(len(self.table(resource)), -1)
        out[part["idx"].to_numpy()] = part["position"].to_numpy()
        return pd.Series(out)

    @cached_property
    def stream(self) -> pd.DataFrame:
        """The messages in stream order, by participant and turn; a message without a turn or participant (set
        aside) keeps its line's place, just after the message before it in the file."""
        m = self.messages
        pid = m["participant_id"].ffill().bfill()  # one without a participant (set aside) stays with the one before
        turn = m["turn"].astype("float64")
        if turn.isna().any():
            turn = turn.fillna(turn.groupby(pid).ffill() + 0.5).fillna(-0.5)
        participant, _ = pd.factorize(pid, sort=True)  # codes in the ids' order: sorted 8x faster
        return m.iloc[np.lexsort((turn.to_numpy(), participant))]

    @cached_property
    def session_starts(self) -> pd.Series:
        """Per message (file order): whether it opens a session by the gap rule, i.e. it is its participant's
        first message or comes more than session_gap_minutes after the previous turn."""
        m = self.stream
        pid = m["participant_id"]
        first = (~pid.duplicated()).to_numpy()  # the stream is grouped by participant
        instant = m["instant"]
        if instant.isna().any():  # a message without an instant (set aside) neither opens a session nor hides one
            instant = instant.groupby(pid).ffill()
        gap = m["instant"] - instant.groupby(pid).shift()
        return (pd.Series(first, index=m.index) | (gap > pd.Timedelta(minutes=self.format["session_gap_minutes"]))
                ).sort_index()

    @cached_property
    def probe_positions(self) -> pd.Series:
        return self.positions("chat", "probe_dayid")

    @cached_property
    def probe_turns(self) -> pd.Series:
        """Turn of each chat row's probe (NaN when the probe does not resolve)."""
        return self.at(self.probe_positions, "turn").astype("float64")

    def cited(self, resource: str, path: str, *columns: str) -> pd.DataFrame:
        """The messages one field cites that resolve: idx, value, position and the named message columns."""
        part = self._citing_fields[resource, path]
        found = part[part["position"] >= 0].copy()
        for column in columns:
            found[column] = self.at(found["position"], column)
        return found

    @cached_property
    def claim_evidence(self) -> pd.DataFrame:
        """Each profile claim's evidence messages: claim_id, value (dayid), position, turn, date."""
        ev = self.cited("profile", "evidence", "turn", "date")
        ev["claim_id"] = self.frame("profile")["claim_id"].to_numpy()[ev["idx"]]
        return ev

    @cached_property
    def cited_claims(self) -> pd.DataFrame:
        """chat rows x profile_refs, with the cited claims' evidence (one row per evidence message)."""
        refs = self.ids_cited("chat", "required_context.profile_refs").rename(columns={"value": "claim_id"})
        ev = self.claim_evidence[["claim_id", "value", "position", "turn"]].rename(columns={"value": "dayid"})
        return refs.merge(ev, on="claim_id", how="inner")

    @cached_property
    def recorded_context(self) -> pd.DataFrame:
        """A chat row's recorded context: recent_context, episode_refs and its profile_refs' evidence (idx, value, position)."""
        own = [self._citing_fields["chat", f"required_context.{f}"] for f in ("recent_context", "episode_refs")]
        claims = self.cited_claims[["idx", "dayid", "position"]].rename(columns={"dayid": "value"})
        return pd.concat([*own, claims], ignore_index=True)

    @cached_property
    def context_unresolved(self) -> np.ndarray:
        """Per chat row, whether its recorded context cites an id naming no message or claim: gate C's one line, so
        the rules that read the context (the referent, sufficiency) do not judge that row on what is missing."""
        out = np.zeros(len(self.table("chat")), dtype=bool)
        for field in ("recent_context", "episode_refs"):
            cited = self._citing_fields["chat", f"required_context.{field}"]
            out[cited["idx"][cited["position"] < 0]] = True
        refs = self.ids_cited("chat", "required_context.profile_refs")
        if len(refs):  # a release citing claims holds profile (TRK1)
            out[refs["idx"][~refs["value"].isin(self.frame("profile")["claim_id"])]] = True
        return out

    @cached_property
    def citations(self) -> pd.DataFrame:
        """Every cited identifier: resource, idx (row position), field, value, position, pid (citing row's participant)."""
        keys, parts = zip(*self._citing_fields.items())
        out = pd.concat(parts, ignore_index=True)
        which = np.repeat(np.arange(len(keys)), [len(part) for part in parts])
        for column, names in (("resource", [r for r, _ in keys]), ("field", [p for _, p in keys])):
            labels = list(dict.fromkeys(names))  # a label per field, not a string per row
            out[column] = pd.Categorical.from_codes(np.array([labels.index(n) for n in names])[which], labels)
        out["pid"] = pd.Series(pa.chunked_array(  # Arrow text: a Python string per cited id held 201 MB at 100x
            [c for (r, _), part in zip(keys, parts) for c in self.column(r, "participant_id").take(part["idx"].to_numpy()).chunks],
            pa.string()), dtype=pd.ArrowDtype(pa.string()))
        return out


def take_rows(column: pa.ChunkedArray | pa.Array, positions: np.ndarray) -> pa.Array:
    """`column`'s rows at `positions`, as Arrow, null where a position is -1 (a format's context may give a pandas
    column's as numpy). Arrow's take from a column read in chunks joins them all
    first, a copy of the column: fewer positions than half its rows are taken chunk by chunk instead (gate A's
    probe texts at 100x paper size: 161 -> 50 MB at the peak, and less CPU); for more, sorting them by chunk cost
    more CPU than the copy (gate D: 0.15 -> 0.36 s) and spared no memory."""
    column = pa.chunked_array([column]) if isinstance(column, pa.Array) else column
    missing = positions < 0
    indices = pa.array(np.where(missing, 0, positions), mask=missing)
    if column.num_chunks < 2 or len(positions) > len(column) // 2 or missing.all():
        whole = column.take(indices) if column.num_chunks else pa.chunked_array([pa.nulls(len(positions), column.type)])
        return pa.concat_arrays(whole.chunks) if whole.num_chunks != 1 else whole.chunk(0)
    starts = np.cumsum([0, *map(len, column.chunks)])
    chunk = (np.searchsorted(starts, positions, side="right") - 1).astype(np.int16 if len(starts) < 2**15 else np.int64)
    valid = np.flatnonzero(~missing)
    order = valid[np.argsort(chunk[valid], kind="stable")]  # 16-bit keys: a radix sort
    bounds = np.searchsorted(chunk[order], np.arange(column.num_chunks + 1))
    gathered = pa.concat_arrays([column.chunk(k).take(positions[order[a:b]] - starts[k])
                                 for k, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])) if b > a])
    rank = np.zeros(len(positions), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return gathered.take(pa.array(rank, mask=missing))


def runs(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each run of equal values in `keys` (sorted or grouped) begins, and how many values it holds."""
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(keys) else np.arange(0)
    return starts, np.diff(np.append(starts, len(keys)))


def _fitting(values: list, kind: pa.DataType) -> pa.Array:
    """Set-aside records' values of one field as an Arrow column: each value that fits the field's type, else
    null. The whole column is tried first; cell by cell, JSON's own types decide where that is certain (text is
    never a number or boolean, ASCII text is a string) and Arrow decides the rest, where it holds the value as it
    is (`release.held`)."""
    column = as_is(values, kind)
    return column if column is not None else pa.array([value if fits(value, kind) else None for value in values],
                                                      type=kind)
