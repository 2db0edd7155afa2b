"""The personal-data screen (PII1, and the privacy rule of every format): what it reads, the patterns, one search.

It reads every free-text value of every resource, a fork's too (`free_paths`), and every document the release
ships (`DOCUMENTS`), as a person reads them (`readable`): a finding names the value as the file writes it.
Arrow's RE2 screens every value first (`screen.candidates`), Python's engine decides on the candidates.
"""
from __future__ import annotations

import re
from functools import cache
from posixpath import join, normpath

import numpy as np
import pandas as pd
import pyarrow as pa

from realcompanion.files import read_text
from realcompanion.formats import part
from realcompanion.names import CROISSANT, DOCUMENTS
from realcompanion.nested import scalars

from .catalogue import combined, failure_rows, failures
from .kept import canonical
from .readable import as_read, numerals, read, written
from .screen import candidates

# The patterns read text as `readable` reads it: full-width forms are already their ASCII characters, every dash a
# `-`, every digit an ASCII digit.
_GROUPS = "[ .-]"
# A URL runs to the first space, full-width punctuation mark or character RFC 3986 (Appendix C) names as what delimits
# a URI in text (" < > and the backtick that opens and closes code): Chinese writes no space after a URL, and the comma
# or full stop (，。、) that ends it belongs to the sentence. Letters, Chinese ones too, stay part of it (?q=北京).
# Its query is matched to its first `?` and that query's first `=`: a class that also took the `?` (or `=`) after
# it left Python's engine every split of a run to try, minutes on one value of 20,000 characters
# (`http://a?http://a?...`); the values it names are the same. Neither part runs past the next `http(s)://`: begun
# at each of the many in one run, each attempt ran to the run's end (3 s for `http://a?b` repeated to 100,000
# characters); the rows it flags are the same, and of a URL inside another's path it names the inner one. As read,
# the full-width marks are ASCII ones: a URL's end is where the text as written holds one (`_url_end`).
# No URL finder is used: linkify-it-py (markdown-it's) finds nothing in `看这个https://example.com/路径`, as it wants a
# boundary before the scheme that Chinese does not write.
_NOT_URL = "\\s\"<>`\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
_URL = f"[^{_NOT_URL}]"
_UNTIL_URL = "(?:(?!https?://)[^{}{}])*"  # URL characters other than the one given, up to the next scheme
EMAIL = "e-mail address"
URL = "URL with query string"
DIGIT_RUN = "long digit run"
PII_PATTERNS = {
    # an address starts where its run of name characters starts (the look-behind): begun at every character of a
    # long run, each attempt ran to the run's end, 6 s for one value of 20,000 characters; it names the same address
    EMAIL: "(?<![\\w.+-])[\\w.+-]+@[\\w-]+\\.[\\w.-]+",
    "phone number": f"[+]?[(]?\\d{{2,4}}[)]?{_GROUPS}\\d{{3,4}}{_GROUPS}\\d{{3,4}}",
    "US social security number": "(?<![\\d-])\\d{3}[ -]\\d{2}[ -]\\d{4}(?![\\d-])",
    URL: f"https?://{_URL}{_UNTIL_URL.format(_NOT_URL, '?')}\\?{_URL}{_UNTIL_URL.format(_NOT_URL, '=')}={_URL}*",
}
FREE_TEXT = "freeText"  # a Table Schema field's flag: false, a fork's field that holds no free text (docs/forking.md)
# Chinese, Japanese and Korean letters: an e-mail address written between them (写信到ana@example.org吧) is the part
# in another script; one in them (张三@例子.中国) is whole
_CJK = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff"
_WORDS_BEFORE = re.compile(f"^.*[{_CJK}](?=[^{_CJK}.+-])")
_WORDS_AFTER = re.compile(f"[^{_CJK}.-](?=[{_CJK}])")
_DIGEST = re.compile("(?<![0-9A-Za-z])[0-9A-Fa-f]{32,}(?![0-9A-Za-z])")


def digit_run(ctx) -> dict[str, str]:
    """The long-digit-run pattern, of the length the descriptor declares (bounded by its schema)."""
    return {DIGIT_RUN: rf"\d{{{ctx.params['pii_digit_run']},}}"}


def documents(release) -> list[str]:
    """The documents the release ships and the screen reads (those present): the card, the datasheet, the
    citation, the changelog, the descriptor and croissant.json; not pii-acknowledged.json, which lists findings."""
    return [name for name in (*DOCUMENTS, CROISSANT) if (release.root / name).is_file()]


def free_paths(release, name: str) -> set[tuple]:
    """The leaves of a resource that hold free text, as paths (a column, its members by key, a list's items as 0):
    every string no enum, const, vocabulary or identifier fixes, at any depth, through lists and `$ref`s. A core
    field is judged by the format's own definition (`kept.canonical`), where a pattern is an identifier's; a fork's
    field by its own schemas, where a pattern does not take it out (any text may meet one), and a field whose
    Table Schema says `"freeText": false` is not read."""
    format_ = canonical(part(release.BLOCK, "format_schemas"))
    core = {f["name"]: f for f in format_["resources"].get(name, {}).get("fields", [])}

    def canonical_follow(node, inside):
        target = node.get("nestedSchema") or (normpath(join("nested", node["$ref"])) if "$ref" in node else None)
        return (target, format_["nested"].get(target, {})) if target else (None, node)

    out = set()
    for field in release.table_schema(name)["fields"]:
        mine = field.get("name") not in core
        if mine and field.get(FREE_TEXT) is False:
            continue
        node = field if mine else core[field["name"]]
        follow = release.schemas.follow if mine else canonical_follow
        if node.get("type") == "array" and "nestedSchema" not in node:  # an array without one holds text
            node = {**node, "items": {"type": "string"}}
        out |= _leaves({**node, **node.get("constraints", {})}, (field["name"],), follow, (), not mine)
    return out


def _leaves(node, path: tuple, follow, inside: tuple, core: bool) -> set[tuple]:
    target, node = follow(node, inside) if isinstance(node, dict) else (None, node)
    inside = (*inside, target) if target else inside
    if not isinstance(node, dict) or {"enum", "const", "vocabulary", "identifier"} & set(node) or \
            (core and "pattern" in node):
        return set()
    types = node.get("type") if isinstance(node.get("type"), list) else [node.get("type")]
    out = {path} if "string" in types else set()
    if "object" in types and isinstance(node.get("properties"), dict):
        for key, sub in node["properties"].items():
            out |= _leaves(sub, (*path, key), follow, inside, core)
    if "array" in types and isinstance(node.get("items"), dict):
        out |= _leaves(node["items"], (*path, 0), follow, inside, core)
    return out


def _texts(ctx):
    """(resource, field, rows, strings) of every free-text leaf of every resource, then ("", document, line numbers,
    lines) of every document, digests blanked (a hash is not a number anyone owns)."""
    for name in ctx.release.resources:
        paths = free_paths(ctx.release, name)
        table = ctx.table(name)
        read = {p[0] for p in paths}
        for column in [column for column in table.column_names if column in read]:  # the table's order, not a set's
            for path, rows, values in scalars(table.column(column), [column]):
                if tuple(path) in paths and (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
                    yield name, ".".join(str(k) for k in path if k != 0), rows.to_numpy(), values.cast(pa.string())
    for document in documents(ctx.release):
        lines = [_DIGEST.sub(lambda m: " " * len(m[0]), line) for line in read_text(ctx.release.root / document)
                 .splitlines()]
        yield "", document, np.arange(1, len(lines) + 1), pa.array(lines, pa.string())


def screened(ctx, patterns: dict[str, str]) -> pd.DataFrame:
    """Each value read (`_texts`) in which one of `patterns` (label: Python regex over the text as read) finds a
    match, named by row and field, or by document and line (every pattern but the digit run: a document's numbers
    are counts, sizes and versions)."""
    found = list(_texts(ctx))
    read_as = [as_read(values) for *_, values in found]
    digits = numerals() if any(other for _, other in read_as) else ""
    every = pa.chunked_array([chunk for values, _ in read_as for chunk in values.chunks], pa.string())
    rows = candidates(every, "|".join(patterns.values()), digits=digits)
    starts = np.cumsum([0] + [len(values) for values, _ in read_as])
    compiled = {label: re.compile(pattern) for label, pattern in patterns.items()}
    parts = []
    for (name, field, at, values), start, end in zip(found, starts, starts[1:]):
        own = rows[(rows >= start) & (rows < end)] - start
        hits = [(at[n], label, value) for n, text in zip(own, values.take(pa.array(own, pa.int64())).to_pylist())
                if text is not None for label, value in _matches(text, compiled, document=not name)]
        if not hits:
            continue
        if name:
            ids = ctx.row_ids(name).to_numpy()
            parts.append(failures(name, ids[[h[0] for h in hits]], field, [h[2] for h in hits],
                                  [f"looks like {_article(h[1])} {h[1]}" for h in hits]))
        else:
            parts.append(failure_rows([("", field, "", value, f"line {line}: looks like {_article(label)} {label}")
                                       for line, label, value in hits]))
    out = combined(parts)
    return out.drop_duplicates(ignore_index=True) if len(out) else out


def first_matches(text: str, patterns: dict[str, str]) -> dict[str, str]:
    """Each pattern's first match in `text` as read, as `text` writes it: what a finding names, by label."""
    return dict(_matches(text, {label: re.compile(pattern) for label, pattern in patterns.items()}))


def _article(label: str) -> str:
    return "an" if label[0] in "aeiou" else "a"


def _matches(text: str, compiled: dict, document: bool = False):
    """(label, value as written) of the first match of each pattern in `text` as read."""
    reading, starts, ends = read(text)
    for label, regex in compiled.items():
        if document and label == DIGIT_RUN:
            continue
        m = regex.search(reading)
        if m is None:
            continue
        start, end = m.span()
        if label == EMAIL:
            at = reading.index("@", start)
            words = _WORDS_BEFORE.match(reading, start, at), _WORDS_AFTER.search(reading, at + 1, end)
            start, end = words[0].end() if words[0] else start, words[1].end() if words[1] else end
        elif label == URL:
            end = _url_end(text, reading, start, end, starts)
        yield label, written(text, start, end, starts, ends)


@cache
def _not_url() -> re.Pattern:
    return re.compile(f"[{_NOT_URL}]")


# What GitHub's Markdown leaves out of the end of an autolink (the sentence's or the code's, not the URL's), and a
# closing quote; a closing bracket is left out when the URL does not open it (`(see http://a?b=1)`, `f("http://...")`)
_TRAILING = "?!.,:;*_~'"
_OPENING = {")": "(", "]": "[", "}": "{"}


def _url_end(text: str, reading: str, start: int, end: int, starts) -> int:
    """Where a URL found in the text as read ends: at the first mark the text as written holds that ends a URL (a
    full-width comma or full stop, which reads as an ASCII one), then before the punctuation and the closing brackets
    it does not open that end the sentence or code around it. The `=` of its query is never left out: what is named
    is still a URL with a query string."""
    if starts is not None:
        stop = _not_url().search(text, starts[start], starts[end - 1] + 1)
        end = end if stop is None else next(k for k in range(start, end) if starts[k] >= stop.start())
    unopened = {close: reading.count(close, start, end) - reading.count(opening, start, end)
                for close, opening in _OPENING.items()}
    while reading[end - 1] in _TRAILING or unopened.get(reading[end - 1], 0) > 0:
        if reading[end - 1] in unopened:
            unopened[reading[end - 1]] -= 1
        end -= 1
    return end
