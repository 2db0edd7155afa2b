"""Views several GroupAssistBench rules share, computed once per run: messages by id, anchors joined.

The tables, their lines and the rows' names are RealCompanion's Context's: a record set aside
on reading (GS1) is back in its line's place with each field that did not fit null. The
frames differ: the GroupAssistBench rules read numpy-backed columns (`to_pandas()` plain), in
which a null compares unequal to everything, a null integer is NaN and a null boolean None; so
each rule keeps to comparisons a null fails and never reads a null integer or boolean as a value.
"""
from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from realcompanion.formats.groupassist import language_of

from ..context import Context as CoreContext
from ..kept import canonical
from . import FORMAT_SCHEMAS
from .gates import every_written, owned


def among(values: pd.Series, allowed) -> np.ndarray:
    """Row by row, whether the value is one of `allowed` (a null is not), by one Arrow hash lookup: pandas' `isin`
    walks Arrow-backed strings one by one in Python."""
    values = pa.array(values, from_pandas=True)
    allowed = pa.array(list(allowed) if isinstance(allowed, (set, frozenset)) else allowed, from_pandas=True)
    found = pc.is_in(values, value_set=allowed.cast(values.type), skip_nulls=True)
    return pc.fill_null(found, False).to_numpy(zero_copy_only=False)


def position_in(keys: pd.Series, column: pd.Series) -> np.ndarray:
    """Each key's position in `column` (its first row holding it; -1 where none or null), by one Arrow hash
    lookup, where pandas' `map` and `reindex` build an index and refuse a repeated key."""
    keys = pa.array(keys, from_pandas=True)
    found = pc.index_in(keys, value_set=pa.array(column, from_pandas=True).cast(keys.type), skip_nulls=True)
    return pc.fill_null(found, -1).to_numpy(zero_copy_only=False)


def taken(column: pd.Series, positions: np.ndarray) -> np.ndarray:
    """`column`'s values at `positions` as numpy (floats for numbers), NaN where a position is -1; only the values
    taken become Python objects."""
    out = column.take(np.maximum(positions, 0)).to_numpy(dtype=float if pd.api.types.is_numeric_dtype(column) else object)
    return np.where(positions >= 0, out, np.nan)


def written_column(values: pa.Array | pa.ChunkedArray, lang: str) -> np.ndarray:
    """`every_written` of a column of texts, as numpy: only its distinct texts become Python strings, once each (Arrow
    encodes the column by them), each row taking its text's by position; a column not of strings (null throughout,
    say) row by row."""
    if not pa.types.is_string(values.type):
        return np.array(every_written(values.to_pylist(), lang), dtype=object)
    encoded = (values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values).dictionary_encode()
    distinct = encoded.dictionary.to_pylist()
    done = np.array([*every_written(distinct, lang), ""], dtype=object)  # the last: a null's
    return done[pc.fill_null(encoded.indices, len(distinct)).to_numpy(zero_copy_only=False)]


def unrequired(release, lang: str) -> list[str]:
    """The text fields of `lang` the format requires (format_schemas.json) that the release's Table Schemas leave
    optional, as `resource.field`: all of them in a release that does not carry the language."""
    def required(name: str, field: str) -> bool:
        fields = {f.get("name"): f for f in release.table_schema(name).get("fields", [])}
        return field not in fields or bool((fields[field].get("constraints") or {}).get("required"))  # absent: GI8's

    return [f"{name}.{f['name']}" for name, want in canonical(FORMAT_SCHEMAS)["resources"].items()
            if name in release.resources for f in want["fields"] if language_of(f["name"]) == lang
            and (f.get("constraints") or {}).get("required") and not required(name, f["name"])]


class Context(CoreContext):
    VIEWS = (("messages", "anchors", "by_group", "_turn_keys", "_normalized"),)

    @cached_property
    def languages(self) -> tuple[str, ...]:
        """The languages whose texts the rules read, the language of evaluation first: those the release declares
        and its schemas require. A declared language the schemas leave optional is GL2's one line, and no rule
        reads its null texts as values (when no declared language is left, every declared one is read)."""
        declared = self.release.languages
        return tuple(lang for lang in declared if not unrequired(self.release, lang)) or declared

    def unresolved(self) -> set[str]:
        """None: a GroupAssistBench record cites another by a foreign key alone (`aside.read_as` reads those)."""
        return set()

    def frame(self, name: str) -> pd.DataFrame:
        if name not in self._frames:
            self._frames[name] = self.table(name).to_pandas()  # plain dtypes: nulls as None / NaN
        return self._frames[name]

    @cached_property
    def messages(self) -> pd.DataFrame:
        """Messages with their position within the group (`seq`), indexed by message_id, each id once (a row
        repeating an id is set aside, GS2: the first keeps it)."""
        m = self.frame("messages").copy()
        m["seq"] = m.groupby("group_id").cumcount()
        return m[~m["message_id"].duplicated()].set_index("message_id", drop=False)

    @cached_property
    def anchors(self) -> pd.DataFrame:
        """Anchors with their instance (cutoff, dependency, level, origin, queries) and cited message. A fork's own
        field of anchors named like one of these (a `group_id` or `turn` copied in) gives way to it: the rules read
        the instance's and the message's."""
        inst = self.frame("instances")
        inst = inst.loc[~inst["instance_id"].duplicated(), ["instance_id", "group_id", "cutoff_turn", "dependency",
                                                             "level", "origin", "query_zh", "query_en", "requester"]]
        m = self.messages[["message_id", "group_id", "turn", "seq", "role", "speaker", "placeholder", "text_zh",
                           "text_en"]].rename(columns={"group_id": "message_group"}).reset_index(drop=True)
        a = self.frame("anchors")
        a = a.drop(columns=[c for c in a.columns if c in {*inst.columns, *m.columns} - {"instance_id", "message_id"}])
        return owned(a, "anchor_id").merge(inst, on="instance_id", how="left").merge(m, on="message_id", how="left")

    @cached_property
    def _written(self) -> dict:
        return {}

    def written(self, lang: str) -> np.ndarray:
        """Every message's `text_{lang}` as every rule that asks whether a message states a text reads it
        (`gates.written`; "" for a null), in file order: normalized once per run, whichever rules and instances
        read it."""
        if lang not in self._written:
            self._written[lang] = written_column(self.table("messages").column(f"text_{lang}"), lang)
        return self._written[lang]

    @cached_property
    def _normalized(self) -> bool:
        """The texts several rules compare, `written` once before the run forks (`VIEWS`): each process reads them.
        The queries are left to the one rule that reads them (GA3), in the process that runs it: normalized here,
        0.08 s of CPU a paper-scale release, they held the workers back on the validating process's path."""
        for lang in ("zh", "en"):
            self.written(lang)
            for column in ("span", "fact"):
                self.written_anchors(f"{column}_{lang}")
        return True

    def written_anchors(self, column: str) -> pd.Series:
        """A text column of the `anchors` view (`span_zh`, `fact_en`, `query_zh`, ...) `written`, aligned with the
        view: normalized once per run, whichever rules read it."""
        if column not in self._written:
            self._written[column] = pd.Series(written_column(pa.array(self.anchors[column], from_pandas=True),
                                                             column[-2:]), index=self.anchors.index)
        return self._written[column]

    @cached_property
    def by_group(self) -> tuple[pd.Index, np.ndarray, np.ndarray]:
        """The groups, the messages' file positions group by group (file order within each) and where each group's
        run of them starts."""
        groups = self.frame("messages")["group_id"]
        codes = pd.Index(pd.unique(groups.dropna()))
        code = codes.get_indexer(groups)
        order = np.argsort(code, kind="stable")
        return codes, order, np.searchsorted(code[order], np.arange(len(codes)))

    def in_group_order(self, column: str, at) -> np.ndarray:
        """The messages' `column` at positions `at` of group order (`by_group`), as numpy as the frame's column gives
        it (a null string as NaN): only the values read become Python objects, where a rule converted the whole
        column (80,299 strings in a paper-scale release, 5 ms each time) to read a few of them."""
        _, order, _ = self.by_group
        return self.frame("messages")[column].take(order[at]).to_numpy()

    @cached_property
    def _turn_keys(self) -> tuple[pd.Index, np.ndarray, int, np.ndarray]:
        """The groups, the distinct turns (sorted), their number plus one (`width`) and every message's key (group
        code x width + its turn's rank among the distinct turns), sorted: integers, exact whatever the turns (keys
        built from the turns themselves lose every group's counts to one huge turn); a message with no group or
        turn (set aside) has none."""
        m = self.frame("messages")
        known = (m["group_id"].notna() & m["turn"].notna()).to_numpy()
        groups = m["group_id"].to_numpy()[known]
        codes = pd.Index(pd.unique(groups))
        distinct, rank = np.unique(m["turn"].to_numpy(dtype=float)[known], return_inverse=True)
        width = len(distinct) + 1
        return codes, distinct, width, np.sort(codes.get_indexer(groups).astype(np.int64) * width + rank)

    def before(self, groups: pd.Series, turns: pd.Series, side: str = "left") -> np.ndarray:
        """For each (group, turn), how many messages of the group have a turn below it (`side="right"`: at most
        it); null where the turn is null (set aside: not judged). One search of the sorted keys."""
        codes, distinct, width, keys = self._turn_keys
        code = codes.get_indexer(groups).astype(np.int64)
        at = turns.to_numpy(dtype=float)
        rank = np.searchsorted(distinct, at, side)  # how many distinct turns lie below it (or at most it)
        found = np.searchsorted(keys, code * width + rank) - np.searchsorted(keys, code * width)
        return np.where(np.isnan(at), np.nan, np.where(code >= 0, found, 0))
