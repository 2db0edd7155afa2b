"""The explorer's site: a Datasette configuration directory, built from a release and served on 127.0.0.1.

The directory is what `datasette DIR` serves anywhere Datasette is installed: `release.db` (`database.py`),
`metadata.json` (title, licence, source, facets on the vocabulary fields, searchable text), `templates/` (the pages'
Jinja templates) and `plugins/pages.py` (the pages' routes). `realcompanion explore PATH --build DIR` writes it for
sharing; `realcompanion explore PATH` writes it to a temporary folder and serves it.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

HERE = Path(__file__).parent
DATABASE = "release.db"


def metadata(release, resources: dict) -> dict:
    """Datasette's metadata: the release's title and licence, and per table its facets (Datasette finds the full-text
    index sqlite-utils made beside each table by itself)."""
    licence = (release.descriptor.get("licenses") or [{}])[0]
    return {
        "title": release.descriptor.get("title") or release.descriptor.get("name") or "release",
        "license": licence.get("name"), "license_url": licence.get("path"),
        "databases": {Path(DATABASE).stem: {"tables": {
            name: {"facets": info["facets"], "label_column": "_key", "sort": "_line"}
            for name, info in resources.items()} | {
            "_cites": {"hidden": True}, "_meta": {"hidden": True}, "_failures": {"facets": ["rule", "severity", "resource"]}}}},
    }


def build_site(release, folder: Path, progress=None) -> dict:
    """Validate `release` (opened), copy it into `folder`/release.db and lay out the rest of the site; returns the
    rows written per table. `folder` must not exist or be empty (nothing of the user's is overwritten)."""
    from ..errors import ReadError
    from ..formats import part
    from .database import build

    folder = Path(folder)
    if folder.exists() and any(folder.iterdir()):
        raise ReadError(folder, "is not empty: the site is built into a new or empty folder")
    report = part(release.BLOCK, "runner").validate(release.root, opened=release, examples=None).to_json()
    view = part(release.BLOCK, "view")

    folder.mkdir(parents=True, exist_ok=True)
    counts = build(release, view, report, folder / DATABASE, progress=progress)
    from .database import vocabulary_fields

    resources = {name: {"facets": vocabulary_fields(release.table_schema(name))} for name in release.resources}
    (folder / "metadata.json").write_text(json.dumps(metadata(release, resources), indent=2, ensure_ascii=False) + "\n",
                                          encoding="utf-8")
    shutil.copytree(HERE / "templates", folder / "templates")
    (folder / "plugins").mkdir()
    shutil.copy2(HERE / "pages.py", folder / "plugins" / "pages.py")
    (folder / "settings.json").write_text(json.dumps({"default_page_size": 100, "max_returned_rows": 5000}) + "\n",
                                          encoding="utf-8")
    return counts


def serve(folder: Path, port: int, host: str = "127.0.0.1") -> None:
    """Serve the site in `folder` with Datasette until interrupted."""
    from datasette.cli import cli

    cli.main(["serve", str(folder), "--host", host, "--port", str(port)], standalone_mode=False)
