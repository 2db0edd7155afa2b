"""The release explorer: the SQLite copy of a release, and its pages in a real browser.

The browser tests drive Debian's Chromium (`/usr/bin/chromium`, installed by `.ci/run`) with Playwright against
`datasette` serving a site `explore --build` wrote; without the browser or Playwright they skip with one reason.
Set REALCOMPANION_SCREENSHOTS=docs/images to have them save the screenshots docs/exploring.md shows.
"""
from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import copy_release

from realcompanion.cli import main
from realcompanion.formats.groupassist import SPECIMEN
from realcompanion.paths import REPO_ROOT

CHROMIUM = Path("/usr/bin/chromium")
HOSTILE = '<script>window.__ran = 1</script>"><img src=x onerror="window.__ran = 2">'


def _built(folder: Path, release: Path) -> Path:
    assert main(["explore", str(release), "--build", str(folder)]) == 0
    return folder


@pytest.fixture(scope="session")
def sites(tmp_path_factory) -> dict[str, Path]:
    """Sites of the RealCompanion specimen, the GroupAssistBench specimen, and a broken RealCompanion copy: one
    probe no longer verbatim (gate A) and one question holding markup."""
    base = tmp_path_factory.mktemp("explore")
    broken = copy_release(REPO_ROOT, base / "broken")
    chat = (broken / "data" / "chat.jsonl").read_text(encoding="utf-8").splitlines()
    row = json.loads(chat[3])
    row["probe"] += " (edited)"
    chat[3] = json.dumps(row, ensure_ascii=False)
    (broken / "data" / "chat.jsonl").write_text("\n".join(chat) + "\n", encoding="utf-8")
    qa = (broken / "data" / "qa.jsonl").read_text(encoding="utf-8").splitlines()
    row = json.loads(qa[0])
    row["question"] = HOSTILE
    qa[0] = json.dumps(row, ensure_ascii=False)
    (broken / "data" / "qa.jsonl").write_text("\n".join(qa) + "\n", encoding="utf-8")
    return {"realcompanion": _built(base / "rc", REPO_ROOT), "groupassist": _built(base / "ga", SPECIMEN),
            "broken": _built(base / "broken-site", broken)}


def _query(site: Path, sql: str, params=()) -> list[tuple]:
    with sqlite3.connect(site / "release.db") as db:
        return db.execute(sql, params).fetchall()


def test_build_keeps_every_row_key_and_foreign_key(sites):
    site = sites["realcompanion"]
    for name in ("source", "profile", "persona", "chat", "qa"):
        lines = sum(1 for _ in (REPO_ROOT / "data" / f"{name}.jsonl").open(encoding="utf-8"))
        assert _query(site, f"select count(*) from {name}")[0][0] == lines
    with sqlite3.connect(site / "release.db") as db:
        chat_keys = [(r[3], r[2], r[4]) for r in db.execute("pragma foreign_key_list(chat)")]
        pk = [r[1] for r in db.execute("pragma table_info(persona)") if r[5]]
    assert ("probe_dayid", "source", "dayid") in chat_keys
    assert pk == ["participant_id", "slot"]  # a composite primary key, as the Table Schema declares it


def test_build_makes_text_searchable_and_vocabularies_facets(sites):
    site = sites["realcompanion"]
    word = _query(site, "select text from source where length(text) > 20 limit 1")[0][0].split()[0]
    found = _query(site, "select count(*) from source_fts where source_fts match ?", [f'"{word}"'])[0][0]
    assert found >= 1
    assert _query(site, "select count(*) from sqlite_master where name = 'chat_fts'") == [(1,)]
    facets = json.loads((site / "metadata.json").read_text())["databases"]["release"]["tables"]["chat"]["facets"]
    assert {"stratum", "tier", "locus"} <= set(facets) and "probe" not in facets


def test_build_finds_every_citation_through_nested_schemas(sites):
    site = sites["realcompanion"]
    fields = {r[0] for r in _query(site, "select distinct resource || ' ' || field from _cites")}
    assert {"chat probe_dayid", "chat required_context.episode_refs", "chat trace.D.grounding_dayids", "qa evidence",
            "profile evidence", "persona evidence"} <= fields
    assert not any(f.startswith("source ") for f in fields)  # a message's own dayid cites nothing
    cited = sum(len(json.loads(line)["evidence"]) for line in (REPO_ROOT / "data" / "qa.jsonl").open(encoding="utf-8"))
    assert _query(site, "select count(*) from _cites where resource = 'qa' and field = 'evidence'")[0][0] == cited
    ga = {r[0] for r in _query(sites["groupassist"], "select distinct resource || ' ' || field from _cites")}
    assert {"anchors message_id", "criteria evidence", "feedback message_id", "messages reply_to"} <= ga


def test_build_carries_the_validation_report(sites):
    failures = _query(sites["broken"], "select resource, row, field from _failures where rule = 'A'")
    assert failures == [("chat", "U01:C0004", "probe")]
    assert _query(sites["realcompanion"], "select count(*) from _failures where severity = 'error'") == [(0,)]


def test_build_refuses_a_folder_that_is_not_empty(tmp_path, capsys):
    (tmp_path / "keep.txt").write_text("mine")
    assert main(["explore", str(REPO_ROOT), "--build", str(tmp_path)]) == 2
    assert "is not empty" in capsys.readouterr().err
    assert (tmp_path / "keep.txt").read_text() == "mine"


# ---- in a real browser -------------------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def browser():
    """Chromium, for this module's tests: Playwright's synchronous API holds an event loop open in this thread
    until it stops, which would refuse the `asyncio.run` of tests that run after it in the same process."""
    playwright = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (the test extra)")
    if not CHROMIUM.exists():
        pytest.skip("no browser: Debian's chromium is not installed (`apt-get install chromium`; .ci/run does)")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def served(sites):
    """Each site served by `datasette` on 127.0.0.1, as `datasette DIR` serves a shared one."""
    servers, urls = [], {}
    for name, site in sites.items():
        port = _free_port()
        servers.append(subprocess.Popen([sys.executable, "-m", "datasette", "serve", str(site), "--host", "127.0.0.1",
                                         "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
        urls[name] = f"http://127.0.0.1:{port}"
    try:
        for url, server in zip(urls.values(), servers):
            for _ in range(200):
                try:
                    urllib.request.urlopen(url + "/-/versions.json", timeout=1)
                    break
                except OSError:
                    assert server.poll() is None, server.stderr.read().decode()
                    time.sleep(0.05)
        yield urls
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=10)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    yield page
    context.close()
    assert not errors


def _shot(page, name: str) -> None:
    folder = os.environ.get("REALCOMPANION_SCREENSHOTS")
    if folder:
        page.screenshot(path=str(Path(folder) / f"explore-{name}.png"))


def test_conversation_page_marks_each_citing_record_at_its_message(served, page):
    page.goto(served["realcompanion"] + "/-/conversation?group=U01")
    first = json.loads((REPO_ROOT / "data" / "qa.jsonl").open(encoding="utf-8").readline())
    message = page.locator(f'[data-key="{first["evidence"][0]}"]')
    assert message.count() == 1
    message.get_by_role("link", name=f"qa {first['item_id']}").click()
    page.wait_for_url("**/-/record?resource=qa*")
    assert page.locator("h1").inner_text() == f"qa {first['item_id']}"
    assert page.locator(".xp-break").count() > 0  # day and session breaks
    _shot(page, "record")


def test_groupassist_conversation_highlights_anchor_spans(served, page):
    anchor = json.loads((SPECIMEN / "data" / "anchors.jsonl").open(encoding="utf-8").readline())
    group = anchor["message_id"].split(":")[0]
    page.goto(served["groupassist"] + f"/-/conversation?group={group}")
    message = page.locator(f'[data-key="{anchor["message_id"]}"]')
    marked = message.locator("mark").all_inner_texts()
    assert anchor["span_zh"] in marked and anchor["span_en"] in marked
    message.evaluate("node => node.scrollIntoView({block: 'center'})")
    _shot(page, "conversation")


def test_record_page_draws_the_cutoff_before_the_first_unseen_turn(served, page):
    instance = json.loads((SPECIMEN / "data" / "instances.jsonl").open(encoding="utf-8").readline())
    page.goto(served["groupassist"] + f"/-/record?resource=instances&key={instance['instance_id']}")
    assert page.locator("#xp-line").inner_text() == "cutoff"
    after = page.locator("#xp-line ~ .xp-msg").first.get_attribute("data-key")
    turn = int(after.split(":m")[1].split(".")[0])
    assert turn >= instance["cutoff_turn"]
    assert page.get_by_role("heading", name="anchors").count() == 1  # the instance's anchors, atoms and rubric


def test_validation_failure_links_to_its_record_and_back(served, page):
    page.goto(served["broken"] + "/-/validation")
    _shot(page, "validation")
    page.locator("#rule-A ~ table a", has_text="U01:C0004").first.click()
    page.wait_for_url("**/-/record?resource=chat*")
    failure = page.locator('tr[data-field="probe"] .xp-fail')
    assert failure.get_attribute("data-rule") == "A" and "character" in failure.inner_text()
    assert page.locator("#xp-line").inner_text() == "probe"
    page.go_back()
    assert page.url.endswith("/-/validation")


def test_search_finds_a_word(served, page):
    word = "electrician"
    page.goto(served["realcompanion"] + f"/release/source?_search={word}")
    assert page.locator("table.rows-and-columns tbody tr").count() >= 1
    assert word in page.locator("table.rows-and-columns").inner_text().lower()


def test_no_value_of_the_release_runs_as_markup(served, page):
    first = json.loads((REPO_ROOT / "data" / "qa.jsonl").open(encoding="utf-8").readline())
    for path in (f"/-/record?resource=qa&key={first['item_id']}", "/-/conversation?group=U01",
                 "/release/qa", "/release/qa?_search=script"):
        page.goto(served["broken"] + path)
        assert page.evaluate("window.__ran") is None
    page.goto(served["broken"] + f"/-/record?resource=qa&key={first['item_id']}")
    assert HOSTILE in page.locator('tr[data-field="question"] td').inner_text()
    assert page.locator("img[src=x]").count() == 0


def test_a_long_conversation_is_paged_and_a_link_lands_on_its_message(sites, monkeypatch):
    """`at` opens the page holding the message, scrolled to it (Datasette's own client, the pages module
    registered in this process; in a thread of its own, beside the browser's event loop)."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from datasette.app import Datasette
    from datasette.plugins import pm

    from realcompanion.explore import pages

    site = sites["realcompanion"]
    monkeypatch.setattr(pages, "PAGE", 50)
    keys = [k for (k,) in _query(site, "select _key from source where participant_id = 'U01' order by turn")]
    pm.register(pages, name="explore-test-pages")
    try:
        app = Datasette([str(site / "release.db")], template_dir=str(site / "templates"))

        async def fetch(path):
            return (await app.client.get(path)).text

        with ThreadPoolExecutor(1) as thread:
            html = thread.submit(lambda: asyncio.run(fetch(pages.conversation_url("U01", at=keys[120])))).result()
    finally:
        pm.unregister(name="explore-test-pages")
    assert f"Messages 101–150 of {len(keys)}" in html
    assert f'data-key="{keys[120]}"' in html and f'data-key="{keys[99]}"' not in html
    assert pages.conversation_url("U01", at=keys[120]).endswith(f"#m-{keys[120]}")
