"""`validate --html DIR`: Data Docs that name the failing rule and row, read offline, and touch nothing else."""
from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from realcompanion.validators.html import render_html
from realcompanion.validators.run import validate

REMOTE_ASSET = re.compile(r'<(?:script|link)\b[^>]*\b(?:src|href)=["\']?https?://', re.I)
INJECTED = "<script>alert(1)</script>"
NAMED = "x<img src=x onerror=alert(1)>"


def digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def corrupt_probe(release: Path) -> str:
    """Rewrite one chat row's probe so gate A fails on it; return the row's item_id."""
    path = release / "data" / "chat.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    row = json.loads(lines[2])
    row["probe"] = f"{INJECTED} not what the participant wrote"
    lines[2] = json.dumps(row, ensure_ascii=False) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    return row["item_id"]


def test_html_report_names_the_failure_offline_and_writes_only_into_dir(specimen, tmp_path):
    """Release text is escaped on every page: the package's name, which GE put raw into the breadcrumb of every
    page (a descriptor's `name` Frictionless lets through), and a failing row's value."""
    from lxml import html as lxml_html

    item_id = corrupt_probe(specimen)
    descriptor = json.loads((specimen / "datapackage.json").read_text(encoding="utf-8"))
    descriptor["name"] = NAMED
    (specimen / "datapackage.json").write_text(json.dumps(descriptor), encoding="utf-8")
    before = digest(specimen)
    out, home, cwd = tmp_path / "docs", tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    done = subprocess.run([sys.executable, "-m", "realcompanion.cli", "validate", str(specimen), "--html", str(out)],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300)

    assert done.returncode == 1, done.stderr
    index = (out / "index.html").read_text(encoding="utf-8")
    link = re.search(r'<a href="([^"]+)"\s*>A</a>', index)
    assert link, "gate A is not listed as fired on the index page"
    assert item_id in index
    page = (out / link.group(1)).read_text(encoding="utf-8")
    assert item_id in page and "not what the participant wrote" in page
    pages = list(out.rglob("*.html"))
    assert not [p for p in pages if REMOTE_ASSET.search(p.read_text(encoding="utf-8"))]
    assert not [p for p in pages if INJECTED in p.read_text(encoding="utf-8")], "release text reached a page raw"
    parsed = {p: lxml_html.document_fromstring(p.read_text(encoding="utf-8")) for p in pages}
    assert not [p for p, document in parsed.items() if document.xpath("//*[@onerror]")], "a name became markup"
    assert all(NAMED in document.findtext(".//title") for document in parsed.values())
    assert digest(specimen) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cwd", "docs", "home", "release"]
    assert not any(cwd.iterdir()) and not any(home.iterdir())


def test_valid_release_index_links_every_suite(specimen, tmp_path):
    report = validate(specimen)
    index = render_html(report, specimen, tmp_path / "docs")

    html = index.read_text(encoding="utf-8")
    assert index == (tmp_path / "docs" / "index.html").resolve()
    assert "release is VALID" in html
    links = re.findall(r'<a href="(validations/[^"]+)"', html)
    families = {o.rule.family for o in report.outcomes}
    assert {link.split("/")[1] for link in links} == families
    assert all((index.parent / link).is_file() for link in links)


def test_pages_are_titled_for_the_release_and_name_no_local_path(specimen, tmp_path):
    report = validate(specimen)
    index = render_html(report, specimen, tmp_path / "docs")
    title = re.search(r"<title>(.*?)</title>", index.read_text(encoding="utf-8"), re.S)
    assert title and f"{report.package} {report.version}" in title.group(1)
    pages = [p.read_text(encoding="utf-8") for p in (tmp_path / "docs").rglob("*.html")]
    assert all(f"<title>{report.package} {report.version} validation</title>" in page for page in pages)
    local = [str(specimen), str(tmp_path), str(Path.home()), str(Path.cwd())]
    assert not [f for f in (tmp_path / "docs").rglob("*") if f.is_file()
                and any(path.encode() in f.read_bytes() for path in local)]


def test_the_site_ships_only_the_static_files_its_pages_use(specimen, tmp_path):
    site = tmp_path / "docs"
    render_html(validate(specimen), specimen, site)
    linked = {(page.parent / ref).resolve() for page in site.rglob("*.html")
              for ref in re.findall(r'(?:src|href)="(?!https?:|#)([^"#]+)"', page.read_text(encoding="utf-8"))}
    shipped = {f.resolve() for f in (site / "static").rglob("*") if f.is_file()}
    assert shipped and shipped <= linked, sorted(str(f.relative_to(site)) for f in shipped - linked)


def test_the_files_a_folder_held_before_are_kept(specimen, tmp_path):
    """Only what GE copied is dropped: `--html` into a folder of one's own deleted every file of its static/ that no
    page linked to."""
    site = tmp_path / "site"
    (site / "static" / "img").mkdir(parents=True)
    (site / "static" / "img" / "logo.png").write_bytes(b"\x89PNG")
    (site / "static" / "notes.txt").write_text("mine\n", encoding="utf-8")
    before = digest(site)
    render_html(validate(specimen), specimen, site)
    assert {name: digest(site)[name] for name in before} == before
