"""Table 25's records: a referent exception recorded with its reason stands (REF1 is an error outside it), and the
chat rows whose probe carries no session index are counted, as relabels by record are (CAT3)."""
from __future__ import annotations

import json

from realcompanion.validators.run import validate
from test_rules import read, write

from realcompanion.stamp import stamp


def test_an_ungrounded_referent_recorded_as_an_exception_is_valid(specimen):
    rows = read(specimen, "chat")
    row = next(r for r in rows if r["memory_bearing"]["recorded"])
    row["trace"]["A"]["referent_text"] = "zebra crossing"
    row["trace"]["A"]["ungrounded"] = {"reason": "the probe names it; the cited turns paraphrase it"}
    write(specimen, "chat", rows)
    stamp(specimen)
    report = validate(specimen)
    assert report.errors == 0 and "REF1" not in report.fired(), report.failure_frame().head().to_string()
    assert json.loads((specimen / "datapackage.json").read_text())["realcompanion"]["referent_exceptions"] == 1


def test_an_ungrounded_referent_without_a_record_is_an_error(specimen):
    rows = read(specimen, "chat")
    row = next(r for r in rows if r["memory_bearing"]["recorded"])
    row["trace"]["A"]["referent_text"] = "zebra crossing"
    write(specimen, "chat", rows)
    stamp(specimen)
    report = validate(specimen)
    assert report.fired() - {"NUL1"} == {"REF1"} and report.errors == 1


def test_a_probe_without_a_session_index_is_valid_once_counted(specimen):
    rows = read(specimen, "source")
    probes = {r["probe_dayid"] for r in read(specimen, "chat")}
    message = next(m for m in rows if m["dayid"] in probes and m["session"] is not None
                   and m["dayid"] not in {d for q in read(specimen, "qa") for d in q["evidence"]})
    message["session"] = None
    write(specimen, "source", rows)
    stamp(specimen)
    report = validate(specimen)
    assert report.errors == 0, report.failure_frame().head().to_string()
    counted = json.loads((specimen / "datapackage.json").read_text())["realcompanion"]["sessionless"]
    assert counted == sum(1 for r in read(specimen, "chat") if r["probe_dayid"] in
                          {m["dayid"] for m in rows if m["session"] is None})
