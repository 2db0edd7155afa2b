"""Datasette plugin: the explorer's pages over the SQLite copy of a release (`database.py`).

- `/-/conversations`: the conversations, the records with pages, the validation summary;
- `/-/conversation?group=ID`: one conversation in order, with day and session breaks, every record that cites a
  message marked at that message (a link to its record page), cited spans highlighted;
- `/-/record?resource=NAME&key=KEY`: a record's fields, nested ones unfolded, each failure of `validate` beside the
  field it names, the records that belong to it (by foreign key), and the messages it cites shown in their place in
  the conversation with its probe or cutoff drawn as a line;
- `/-/validation`: the report, each failing row a link to its record page.

This module is copied into the site's `plugins/` folder, so it imports nothing but Datasette and the standard
library. Every value reaches the page through Jinja's autoescaping: nothing a release holds is ever markup.
"""
from __future__ import annotations

import json
from urllib.parse import urlencode

from datasette import hookimpl
from datasette.utils.asgi import Response

CONTEXT = 3  # messages shown on either side of a cited message on a record page
PAGE = 500  # messages on one page of a conversation (a paper-scale participant has over 6,000)
ELIDED = "elided"


@hookimpl
def register_routes():
    return [
        (r"^/-/conversations$", conversations),
        (r"^/-/conversation$", conversation),
        (r"^/-/record$", record),
        (r"^/-/validation$", validation),
    ]


@hookimpl
def menu_links(datasette, actor):
    return [{"href": datasette.urls.path("/-/conversations"), "label": "Conversations"},
            {"href": datasette.urls.path("/-/validation"), "label": "Validation"}]


def record_url(resource: str, key: str) -> str:
    return "/-/record?" + urlencode({"resource": resource, "key": key})


def conversation_url(group: str, **where) -> str:
    """A conversation's page: its first, the `page`-th, or the one holding the message `at` (scrolled to it)."""
    url = "/-/conversation?" + urlencode({"group": group, **where})
    return url + (f"#m-{where['at']}" if "at" in where else "")


async def _meta(db) -> dict:
    return {row["name"]: json.loads(row["value"]) for row in await db.execute("select name, value from _meta")}


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


async def _page(datasette, request, template: str, context: dict, status: int = 200) -> Response:
    html = await datasette.render_template(template, context, request=request)
    return Response.html(html, status=status)


async def _not_found(datasette, request, what: str) -> Response:
    return await _page(datasette, request, "explore_missing.html", {"what": what}, status=404)


async def conversations(datasette, request):
    db = datasette.get_database()
    meta = await _meta(db)
    view = meta["view"]
    table, group = _quote(view["conversation"]), _quote(view["group"])
    groups = [dict(r) for r in await db.execute(
        f"select {group} as id, count(*) as messages from {table} group by {group} order by {group}")]
    records = []
    for name in meta["resources"]:
        count = (await db.execute(f"select count(*) from {_quote(name)}")).first()[0]
        records.append({"name": name, "rows": count, "url": datasette.urls.table(db.name, name)})
    failing = [r for r in meta["rules"] if not r["passed"]]
    return await _page(datasette, request, "explore_conversations.html", {
        "release": meta["release"], "groups": [{**g, "url": conversation_url(g["id"])} for g in groups],
        "records": records, "failing": failing})


async def _ordered(db, view: dict, group: str) -> list[tuple[str, object]]:
    """The group's messages in order, as (key, order value): what placing and paging need, without the texts."""
    return [(r[0], r[1]) for r in await db.execute(
        f"select _key, {_quote(view['order'])} from {_quote(view['conversation'])} where {_quote(view['group'])} = ? "
        f"order by {_quote(view['order'])}, rowid", [group])]


def _chunks(values: list, size: int = 500):
    for i in range(0, len(values), size):
        yield values[i:i + size]


async def _messages(db, view: dict, keys: list[str], first: int = 0) -> list[dict]:
    """The messages `keys` (in that order; the first at position `first` of its conversation), each with the records
    citing it and the spans to highlight in it, and a break where a new day or session begins."""
    table = _quote(view["conversation"])
    rows: dict[str, dict] = {}
    marks: dict[str, dict[tuple, dict]] = {}  # message -> (resource, record) -> the mark: one per citing record
    for part in _chunks(keys):
        marks_ = ", ".join("?" * len(part))
        for r in await db.execute(f"select * from {table} where _key in ({marks_})", part):
            rows[r["_key"]] = dict(r)
        for cite in await db.execute(f"select message, resource, record, field from _cites where message in ({marks_}) "
                                     "and resource != ? order by resource, record", [*part, view["conversation"]]):
            mark = marks.setdefault(cite["message"], {}).setdefault((cite["resource"], cite["record"]), {
                "resource": cite["resource"], "record": cite["record"], "fields": [],
                "url": record_url(cite["resource"], cite["record"])})
            mark["fields"].append(cite["field"])
    spans = await _spans(db, view, marks)
    out, last_day, last_session = [], None, None
    for position, key in enumerate(keys, start=first):
        row = rows[key]
        day = (row.get(view["time"]) or "")[:10]
        session = row.get(view["session"]) if view.get("session") else None
        breaks = []
        if out and day != last_day:
            breaks.append(f"day {day}")
        elif out and view.get("session") and session != last_session:
            breaks.append(f"session {session}")
        last_day, last_session = day, session
        found = spans.get(key, {})
        out.append({"row": row, "key": key, "position": position, "breaks": breaks,
                    "speaker": row.get(view["speaker"]), "time": row.get(view["time"]),
                    "texts": [(name, _segments(row.get(name), found.get(name, ())))
                              for name in view["texts"] if row.get(name) not in (None, "")],
                    "marks": list(marks.get(key, {}).values())})
    return out


async def _spans(db, view: dict, marks: dict) -> dict:
    """Per message key and text field: the spans its citing records quote (the format view's `spans`, by language
    suffix: `span_zh` is highlighted in `text_zh`)."""
    out: dict[str, dict[str, list[str]]] = {}
    for resource, fields in view.get("spans", {}).items():
        cited = {record: key for key, found in marks.items() for (name, record) in found if name == resource}
        columns = ", ".join(_quote(f) for f in fields)
        for part in _chunks(list(cited)):
            for row in await db.execute(f"select _key, {columns} from {_quote(resource)} where _key in "
                                        f"({', '.join('?' * len(part))})", part):
                for span_field in fields:
                    suffix = span_field.rsplit("_", 1)[-1]
                    target = next((t for t in view["texts"] if t.endswith("_" + suffix)), view["texts"][0])
                    if row[span_field]:
                        out.setdefault(cited[row["_key"]], {}).setdefault(target, []).append(row[span_field])
    return out


def _segments(text, spans: list[str]) -> list[tuple[str, bool]]:
    """`text` cut into (piece, highlighted) around every occurrence of the spans (longest first)."""
    if text is None:
        return []
    text = str(text)
    if not any(span and span in text for span in spans):
        return [(text, False)]
    marked = [False] * len(text)
    for span in sorted(set(spans), key=len, reverse=True):
        start = text.find(span)
        while span and start >= 0:
            marked[start:start + len(span)] = [True] * len(span)
            start = text.find(span, start + len(span))
    pieces: list[tuple[str, bool]] = []
    for char, flag in zip(text, marked):
        if pieces and pieces[-1][1] == flag:
            pieces[-1] = (pieces[-1][0] + char, flag)
        else:
            pieces.append((char, flag))
    return pieces


async def conversation(datasette, request):
    """One page of PAGE messages: `page` (1-based), or the page holding the message `at`, scrolled to it."""
    db = datasette.get_database()
    meta = await _meta(db)
    group = request.args.get("group", "")
    ordered = await _ordered(db, meta["view"], group)
    if not ordered:
        return await _not_found(datasette, request, f"no conversation {group!r}")
    keys = [key for key, _ in ordered]
    pages = (len(keys) + PAGE - 1) // PAGE
    at = request.args.get("at")
    number = keys.index(at) // PAGE + 1 if at in keys else request.args.get("page", "1")
    number = min(max(int(number), 1), pages) if str(number).isdigit() else 1
    first = (number - 1) * PAGE
    messages = await _messages(db, meta["view"], keys[first:first + PAGE], first)
    return await _page(datasette, request, "explore_conversation.html", {
        "release": meta["release"], "group": group, "messages": messages, "total": len(keys), "page": number,
        "pages": [{"number": n, "url": conversation_url(group, page=n)} for n in range(1, pages + 1)],
        "first": first + 1, "last": first + len(messages)})


def _unfold(value, field: str) -> list[dict]:
    """A field's value as rows of (path, value): an object unfolded member by member, a list of scalars kept whole."""
    if isinstance(value, str) and value[:1] in "[{":
        try:
            value = json.loads(value)
        except ValueError:
            pass
    if isinstance(value, dict):
        return [row for name, inner in value.items() for row in _unfold(inner, f"{field}.{name}")]
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return [row for i, inner in enumerate(value) for row in _unfold(inner, f"{field}[{i}]")]
    return [{"path": field, "value": value if not isinstance(value, list) else ", ".join(map(str, value))}]


async def record(datasette, request):
    db = datasette.get_database()
    meta = await _meta(db)
    view, resource, key = meta["view"], request.args.get("resource", ""), request.args.get("key", "")
    if resource not in meta["resources"]:
        return await _not_found(datasette, request, f"no resource {resource!r}")
    found = (await db.execute(f"select * from {_quote(resource)} where _key = ?", [key])).first()
    if found is None:
        return await _not_found(datasette, request, f"no record {key!r} in {resource}")
    row = dict(found)
    failures = [dict(f) for f in await db.execute(
        "select rule, severity, field, value, message from _failures where resource = ? and row = ?", [resource, key])]
    for name in meta["resources"][resource]["booleans"]:  # SQLite holds true and false as 1 and 0
        row[name] = None if row.get(name) is None else bool(row[name])
    fields = [{"name": name, "parts": _unfold(row.get(name), name)} for name in meta["resources"][resource]["fields"]]
    exact = {p["path"]: p for f in fields for p in f["parts"]}
    first = {f["name"]: f["parts"][0] for f in fields if f["parts"]}
    whole = []
    for part in exact.values():
        part["failures"] = []
    for failure in failures:
        top = failure["field"].split(",")[0].split(".")[0].split("[")[0]
        target = exact.get(failure["field"]) or first.get(top)
        (target["failures"] if target else whole).append(failure)
    children = await _children(db, meta, resource, row)
    context = await _in_place(db, view, meta, resource, key, row, children)
    return await _page(datasette, request, "explore_record.html", {
        "release": meta["release"], "resource": resource, "key": key, "fields": fields, "whole": whole,
        "children": children, "context": context, "row_url": _row_url(datasette, db, meta, resource, row)})


def _row_url(datasette, db, meta: dict, resource: str, row: dict) -> str | None:
    info = meta["resources"][resource]
    if not info["keyed"]:
        return None
    return datasette.urls.row(db.name, resource, ",".join(str(row[k]) for k in info["key"]))


async def _children(db, meta: dict, resource: str, row: dict) -> list[dict]:
    """The records that belong to this one: rows of another resource whose foreign key cites it."""
    out = []
    key = meta["resources"][resource]["key"]
    for name, info in meta["resources"].items():
        for column, parent in info["parents"].items():
            if parent != resource or name == resource or len(key) != 1:
                continue
            title = next((t for t in info["texts"]), None)
            columns = "_key" + (f", {_quote(title)} as title" if title else "")
            rows = [dict(r) for r in await db.execute(
                f"select {columns} from {_quote(name)} where {_quote(column)} = ? order by rowid", [row[key[0]]])]
            if rows:
                out.append({"resource": name, "rows": [{**r, "url": record_url(name, r["_key"])} for r in rows]})
    return out


async def _in_place(db, view: dict, meta: dict, resource: str, key: str, row: dict, children: list[dict]) -> dict | None:
    """The messages this record (and the records belonging to it) cite, in their place in the conversation, with a
    few around each, the gaps elided, and the line of its probe or cutoff."""
    owners = [(resource, key)] + [(c["resource"], r["_key"]) for c in children for r in c["rows"]]
    cites: dict[str, list[str]] = {}
    for owner, record_key in owners:
        for cite in await db.execute("select message, field from _cites where resource = ? and record = ?", [owner, record_key]):
            label = cite["field"] if owner == resource else f"{owner} {record_key}: {cite['field']}"
            cites.setdefault(cite["message"], []).append(label)
    point = (view.get("records") or {}).get(resource)
    table, group_field = _quote(view["conversation"]), view["group"]
    group = row.get(group_field)
    if group is None and cites:
        first = (await db.execute(f"select {_quote(group_field)} from {table} where _key = ?", [next(iter(cites))])).first()
        group = first[0] if first else None
    if group is None or (not cites and not point):
        return None
    ordered = await _ordered(db, view, group)
    at = {key: position for position, (key, _) in enumerate(ordered)}
    line = _line(point, row, ordered, at)
    wanted = {at[k] for k in cites if k in at} | ({line - 1, line} if line is not None else set())
    keep = sorted({p + d for p in wanted for d in range(-CONTEXT, CONTEXT + 1) if 0 <= p + d < len(ordered)})
    messages = []
    for run in _runs(keep):  # each run of consecutive positions fetched as one window
        messages += await _messages(db, view, [ordered[p][0] for p in run], run[0])
    shown, last = [], -1
    for m in messages:
        if m["position"] > last + 1:
            shown.append({ELIDED: m["position"] - last - 1})
        if line is not None and m["position"] == line:
            shown.append({"line": point["label"]})
        shown.append({**m, "cited_by": cites.get(m["key"], [])})
        last = m["position"]
    if last < len(ordered) - 1:
        shown.append({ELIDED: len(ordered) - 1 - last})
    if line is not None and line >= len(ordered):
        shown.append({"line": point["label"]})
    return {"group": group, "url": conversation_url(group, at=ordered[min(wanted)][0]) if wanted else conversation_url(group),
            "messages": shown, "point": point, "missing": sorted(k for k in cites if k not in at)}


def _runs(positions: list[int]) -> list[list[int]]:
    """Sorted positions cut into runs of consecutive ones."""
    runs: list[list[int]] = []
    for p in positions:
        if runs and p == runs[-1][-1] + 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    return runs


def _line(point: dict | None, row: dict, ordered: list[tuple], at: dict) -> int | None:
    """The position before which the record's probe or cutoff line is drawn, or None."""
    if not point or row.get(point["field"]) is None:
        return None
    value = row[point["field"]]
    if point["by"] == "turn":
        return next((p for p, (_, order) in enumerate(ordered) if order is not None and order >= value), len(ordered))
    if value not in at:
        return None
    return at[value] + (1 if point["through"] else 0)


async def validation(datasette, request):
    db = datasette.get_database()
    meta = await _meta(db)
    keyed = {}  # resource -> the failing rows that are records of it (the others name a file or a line)
    for name in meta["resources"]:
        keyed[name] = {r[0] for r in await db.execute(
            f"select row from _failures where resource = ? and row in (select _key from {_quote(name)})", [name])}
    by_rule: dict[str, list[dict]] = {}
    for f in await db.execute("select rule, severity, resource, row, field, value, message from _failures order by rowid"):
        f = dict(f)
        f["url"] = record_url(f["resource"], f["row"]) if f["row"] in keyed.get(f["resource"], ()) else None
        by_rule.setdefault(f["rule"], []).append(f)
    every = [f for rows in by_rule.values() for f in rows]
    return await _page(datasette, request, "explore_validation.html", {
        "release": meta["release"], "rules": meta["rules"], "failures": by_rule,
        "errors": sum(1 for f in every if f["severity"] == "error"),
        "warnings": sum(1 for f in every if f["severity"] == "warning")})
