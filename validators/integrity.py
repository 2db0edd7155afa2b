"""Integrity and safety: the files are the ones declared, stay inside the package, are data, and leak nothing obvious."""
from __future__ import annotations

import gzip
import io
import pickletools
import re
import zipfile
from pathlib import PurePosixPath

import numpy as np
import pandas as pd
import pyarrow as pa

from realcompanion.files import read_bytes
from realcompanion.names import COMMAND, STALE, stale_count
from realcompanion.release import declared_hash
from realcompanion.stamp import declared_counts

from .catalogue import as_text, combined, failure_rows, failures
from .kept import first_difference
from .personal import PII_PATTERNS, digit_run, screened

SCRIPT_SUFFIXES = {".py", ".pyw"}
CODE_SUFFIXES = SCRIPT_SUFFIXES | {".pyc", ".pyo", ".pyd", ".pyx", ".ipynb", ".pkl", ".pickle", ".joblib", ".pt",
                                   ".pth", ".ckpt", ".npy", ".npz", ".so", ".dll", ".dylib", ".sh", ".bat", ".ps1",
                                   ".exe", ".jar"}
HEAD = 1 << 16  # bytes of a file judged by content


DIGESTS = ("every data file's digest is declared, as its resource's Data Package `hash` in datapackage.json (sha256, "
           "what `stamp` writes), and matches its bytes, as do its `bytes` and any {block}.sha256 copy an older "
           "release keeps")


def hashes(ctx) -> pd.DataFrame:
    """One digest per file: the standard `hash` (a bare digest is MD5's), judged with the standard `bytes` as
    Frictionless judges them. A release written to the format's older letter keeps a `sha256` map in its block,
    which declares a digest too and is judged the same (`stamp` drops it)."""
    legacy = ctx.params.get("sha256")
    rows = []
    for name in ctx.release.resources:
        resource = ctx.release.resource(name)
        path = resource["path"]
        ctx.table(name)  # the digest is of the bytes the table was parsed from
        actual = ctx.release.sha256[name]
        algorithm, digest = declared_hash(resource)
        if legacy is not None and path in legacy and legacy[path] != actual:
            rows.append((name, path, "", actual[:16], f"declared {as_text(legacy[path])[:16]} in "
                         f"{ctx.release.BLOCK}.sha256 ({STALE})"))
        if algorithm is None and (legacy is None or path not in legacy):
            rows.append((name, path, "", actual[:16], f"resource {name} declares no `hash` ({STALE})"))
        found = actual if algorithm == "sha256" else ctx.release.digests.get(name)
        if algorithm and digest != found:
            rows.append((name, path, "", f"{algorithm}:{str(found)[:16]}", f"resource {name} declares hash "
                         f"{resource['hash'][:23]}, its bytes hash otherwise ({STALE})" if found else
                         f"resource {name} declares hash {resource['hash'][:23]}, of an algorithm this package does "
                         "not compute: use sha256"))
        size = resource.get("bytes")
        if size is not None and size != ctx.release.sizes[name]:
            rows.append((name, path, "", ctx.release.sizes[name], f"resource {name} declares {size} bytes "
                         f"({STALE})"))
    return failure_rows(rows + unmatched(ctx, "sha256", {ctx.release.resource(n)["path"] for n in ctx.release.resources},
                                         "no data file of the release", entries=legacy or {}))


def unmatched(ctx, key: str, known: set, what: str, entries: dict | None = None) -> list[tuple]:
    """The entries of the format block's `key` map that name none of `known` (a resource dropped or renamed):
    `refresh` drops them, so a release VALID as it stands must hold none. A nested map is given flat as `entries`
    (`U01.chat`: its count)."""
    entries = ctx.params.get(key, {}) if entries is None else entries
    return [("", "datapackage.json", f"{ctx.release.BLOCK}.{key}.{name}", as_text(value)[:16], f"names {what} ({STALE})")
            for name, value in entries.items() if name not in known]


def declared_rows(ctx) -> list[tuple]:
    """Each resource's row count against the format block's `rows`, and each count there of no resource."""
    declared = ctx.params.get("rows", {})
    return [(name, name, "", ctx.table(name).num_rows, stale_count(declared.get(name), "rows"))
            for name in ctx.release.resources if declared.get(name) != ctx.table(name).num_rows] + unmatched(
        ctx, "rows", set(ctx.release.resources), "no resource of the release")


def row_counts(ctx) -> pd.DataFrame:
    return failure_rows(declared_rows(ctx) + standard_counts(ctx))


def standard_counts(ctx) -> list[tuple]:
    """A resource's Data Package `rows` and `fields`, which Frictionless compares with the rows it read and the
    fields its Table Schema declares (row-count, field-count errors)."""
    out = []
    for name in ctx.release.resources:
        resource = ctx.release.resource(name)
        have = declared_counts(ctx.release, resource, ctx.table(name).num_rows)
        out += [(name, resource["path"], "", n, f"resource {name} declares {resource[key]} {key} ({STALE})")
                for key, n in have.items() if resource[key] != n]
    return out


def contained(ctx) -> pd.DataFrame:
    return failure_rows([(name, path, "", path, why) for name, path, why in ctx.release.escapes()])


def data_not_code(ctx) -> pd.DataFrame:
    root = ctx.release.root
    files = [p for folder in ("data", "schemas") if (root / folder).is_dir()
             for p in sorted((root / folder).rglob("*")) if p.is_file()]
    rows = [("", str(p.relative_to(root)), "", p.suffix, why) for p in files if (why := code_in(p))]
    rows += [("", p.name, "", p.suffix, "loading script at the release root")
             for p in sorted(root.iterdir()) if p.suffix in SCRIPT_SUFFIXES and p.is_file()]
    return failure_rows(rows)


def code_in(path) -> str | None:
    """Why the file at `path` is code or a serialized object, judged by its name, then by its first bytes."""
    if any(suffix in CODE_SUFFIXES for suffix in path.suffixes):
        return f"code or serialized object among data files (named {''.join(path.suffixes)})"
    return _content(read_bytes(path, HEAD), path)


def _content(head: bytes, path) -> str | None:
    if head.startswith(b"\x1f\x8b"):
        with gzip.GzipFile(fileobj=io.BytesIO(head)) as inner:
            try:
                return _content(inner.read(HEAD), path)
            except (OSError, EOFError):  # a gzip stream longer than the head: judge what was decompressed
                return None
    if head.startswith(b"PK\x03\x04"):
        return _zip_member(path)
    if _is_pickle(head):
        return "code or serialized object: a pickle (by its opcodes)"
    return None


def _zip_member(path) -> str | None:
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist()[:1000]:
                if any(s in CODE_SUFFIXES for s in PurePosixPath(info.filename).suffixes):
                    return f"code or serialized object: zip member {info.filename}"
                with archive.open(info) as member:
                    if _is_pickle(member.read(HEAD)):
                        return f"code or serialized object: zip member {info.filename} is a pickle"
    except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError):
        return None
    return None


def _is_pickle(head: bytes) -> bool:
    """Whether `head` parses as pickle opcodes (any protocol, 0 included) up to STOP, or to its end when cut."""
    count = 0
    try:
        for opcode, _, _ in pickletools.genops(io.BytesIO(head)):
            count += 1
            if opcode.name == "STOP":
                return count >= 2
    except ValueError:
        return len(head) == HEAD and count >= 8  # a long pickle cut at the head
    return False


def schema_copies(ctx) -> pd.DataFrame:
    """Each stale schema file, named at its first copy that differs from the rendering (a field by name, as INT7
    names it: `fields.level.constraints.enum[2]`), with the value the file holds there: where to look."""
    rows = []
    for path, (have, rendered) in ctx.release.schemas.stale_copies().items():
        where, value = first_difference(rendered, have)
        rows.append(("", str(path.relative_to(ctx.release.root)), _by_name(have, where), as_text(value)[:80],
                     f"differs from what schemas/vocabulary.json renders: run `{COMMAND}`"))
    return failure_rows(rows)


def _by_name(table_schema: dict, where: str) -> str:
    """A path into a schema file with a Table Schema's field named rather than numbered (`fields[2]` is
    `fields.level`)."""
    at = re.match(r"fields\[(\d+)\]", where)
    name = at and table_schema["fields"][int(at[1])].get("name")
    return f"fields.{name}{where[at.end():]}" if isinstance(name, str) else where




def personal_data(ctx) -> pd.DataFrame:
    return screened(ctx, PII_PATTERNS | digit_run(ctx))


def loaded_as_written(ctx) -> pd.DataFrame:
    """`datasets` sends each line of a resource with a `Json` feature (`card.verbatim_paths`) through pandas' ujson
    before Arrow parses it, and its encoder writes a float to 10 decimal places. No card can declare that away. A
    warning, not an error: the paper and the format let a value be any number in its range (a confidence of 2/3),
    the files, which are the release, hold it exactly, and what `datasets` loads differs by less than 1e-10. (Its
    decoder reads no whole number beyond 64 bits, which would stop the load: SCH1 refuses an integer beyond 2^53
    wherever a number belongs, at any depth.)"""
    from pandas.io.json import ujson_dumps

    parts = []
    for name, path, rows, written in _json_floats(ctx):
        loaded = written.copy()  # asked of ujson only where it may differ (`_maybe_reencoded`)
        maybe = _maybe_reencoded(written)
        loaded[maybe] = [float(ujson_dumps(float(value))) for value in written[maybe]]
        changed = (loaded != written) | (np.signbit(loaded) != np.signbit(written))
        parts.append(failures(name, ctx.row_ids(name).iloc[rows[changed]], path, written[changed],
                              [f"loads as {float(value)!r} with datasets.load_dataset, which re-encodes this resource's "
                               "rows to 10 decimal places" for value in loaded[changed]]))
    return combined(parts)


def _json_floats(ctx):
    """(resource, field path, rows, values) of every number, nested ones included, that is not null, in each
    resource whose card declares a Json field: the rows `datasets` sends through ujson. Read chunk by chunk, each
    with the rows it holds: a struct column (a trace, with its texts) is never copied into one array."""
    from realcompanion.card import verbatim_paths
    from realcompanion.nested import scalars

    for name in ctx.release.resources:
        table = ctx.table(name)
        floating = [column for column in table.column_names if any(
            pa.types.is_floating(values.type) for _, _, values in scalars(table.column(column), [], positions=False))]
        if not floating or next(verbatim_paths(ctx.release, name), None) is None:
            continue
        for column in floating:
            chunks = table.column(column).chunks
            for start, chunk in zip(np.cumsum([0, *map(len, chunks)]), chunks):
                for path, rows, values in scalars(chunk, [column], pa.array(np.arange(start, start + len(chunk)))):
                    if pa.types.is_floating(values.type):
                        valid = values.is_valid().to_numpy(zero_copy_only=False)
                        yield (name, ".".join(k for k in path if k != 0), rows.to_numpy()[valid],
                               values.to_numpy(zero_copy_only=False)[valid])


def _maybe_reencoded(values: np.ndarray) -> np.ndarray:
    """Which floats ujson may write otherwise than they are: those with more than 10 decimals, -0.0, and from 1e15
    up, where it turns to 10 significant digits (from 1e16; checked on 430,000 values of every magnitude from 1e-12
    with 0 to 12 decimals, and by a test). Asking ujson of each value took 0.6 s of CPU at ten times paper size."""
    return (np.round(values, 10) != values) | (np.abs(values) >= 1e15) | ((values == 0) & np.signbit(values))


def allowed_nulls(ctx) -> pd.DataFrame:
    profile = ctx.frame("profile")
    parts = [failures("profile", profile["claim_id"][bad], field, "null", message) for field, bad, message in (
        ("evidence", profile["evidence"].isna(), "claim cites no message"),
        ("first_seen", profile["first_seen"].isna() | profile["last_seen"].isna(), "observation window not recorded"),
    )]
    return pd.concat(parts)


def unread(ctx) -> pd.DataFrame:
    """A file that is code is INT4's finding alone. A warning: the release the descriptor declares is whole
    without the file; `publish` refuses until it is declared or removed."""
    from realcompanion.files import not_regular
    from realcompanion.listing import unread_files

    rows = []
    for path in unread_files(ctx.release):
        odd = not_regular(ctx.release.root / path)  # never opened: a FIFO would be waited on
        if odd or not code_in(ctx.release.root / path):
            rows.append(("", path, "", path, f"{odd}: remove it" if odd else
                         "no resource reads it: declare it in datapackage.json, or remove it"))
    return failure_rows(rows)


SYNTHETIC = "synthetic"  # the format block's flag, and the word a keyword saying so begins with
SYNTHETIC_LABELS = ("the labels agree on whether the records are synthetic: a keyword of datapackage.json (the card's "
                    "tags) begins with the word synthetic, as the specimen's synthetic-specimen does, exactly when "
                    "{block}.synthetic is true")


def says_synthetic(keyword) -> bool:
    """Whether a keyword labels the records synthetic: its first word (words split at anything but letters and
    digits) is `synthetic`, so `synthetic-specimen` and `Synthetic data` do and `non-synthetic` does not."""
    return isinstance(keyword, str) and re.split(r"[\W_]+", keyword.strip().casefold())[0] == SYNTHETIC


def synthetic_labelled(ctx) -> pd.DataFrame:
    """A warning: a converted release keeps the specimen's `synthetic-specimen` keyword until its author replaces it,
    and the Hub lists the records by the card's tags (and Croissant by its keywords), which `refresh` copies from the
    keywords; a synthetic release whose keywords do not say so is listed among real ones. The card's status notice
    follows the flag (`card.status`): the keywords are the label that can disagree with it."""
    flag = f"{ctx.release.BLOCK}.{SYNTHETIC}"
    keywords = ctx.release.descriptor.get("keywords")
    keywords = keywords if isinstance(keywords, list) else []  # a list of strings: the Data Package profile's check
    if ctx.params.get(SYNTHETIC) is True:
        return failure_rows([] if any(map(says_synthetic, keywords)) else [
            ("", "datapackage.json", "keywords", as_text(keywords),
             f"no keyword says synthetic, but {flag} is true: the card's tags list the records as real ones")])
    return failure_rows([("", "datapackage.json", "keywords", keyword,
                          f"says synthetic, but {flag} is {as_text(ctx.params.get(SYNTHETIC))}: the records are real "
                          "ones, and the card's tags list them as synthetic") for keyword in keywords
                         if says_synthetic(keyword)])
