"""`realcompanion publish`: every refusal, the plan, and the upload against a local stand-in for the Hub."""
from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from realcompanion.cli import main
from realcompanion.errors import ReadError
from realcompanion.names import ACKNOWLEDGED, DOCUMENTS
from realcompanion.publish import gate
from realcompanion.publish.plan import plan
from realcompanion.publish.upload import TagExists, upload
from realcompanion.release import Release
from realcompanion.stamp import sha256_of, stamp

VERSION = "0.1.0"
HEAD = "a" * 40  # the Hub's `main` before the release
NEW = "b" * 40  # the commit the release makes


def write_documents(root: Path, version: str = VERSION) -> Path:
    """Minimal documents, each stating `version` where the gate reads it."""
    (root / "README.md").write_text(
        "---\npretty_name: RealCompanion\n---\n\n# Card\n\n<!-- generated:citation -->\n```bibtex\n"
        f"@misc{{realcompanion,\n  version = {{{version}}},\n}}\n```\n<!-- /generated:citation -->\n",
        encoding="utf-8")
    (root / "CITATION.cff").write_text(f'cff-version: 1.2.0\ntitle: RealCompanion\nversion: "{version}"\n',
                                       encoding="utf-8")
    (root / "DATASHEET.md").write_text("# Datasheet\n", encoding="utf-8")
    (root / "CHANGELOG.md").write_text(f"# Changelog\n\n## [Unreleased]\n\n## [{version}] - 2026-11-29\n",
                                       encoding="utf-8")
    return root


@pytest.fixture
def documented(specimen):
    return write_documents(specimen)


@pytest.fixture
def gated_lightly(monkeypatch):
    """Only the document and version checks: the others are tested one by one and need the repository's documents."""
    monkeypatch.setattr(gate, "CHECKS", gate.CHECKS[:1])


@pytest.fixture
def publishable(specimen, repo):
    """The specimen with the repository's own documents, which describe exactly these files."""
    for name in DOCUMENTS:
        shutil.copy2(repo / name, specimen / name)
    return specimen


# -- refusals -----------------------------------------------------------------

def test_refuses_when_a_document_is_missing(documented, capsys):
    (documented / "CHANGELOG.md").unlink()
    assert main(["publish", str(documented), "--repo-id", "org/rc", "--version", VERSION, "--dry-run"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == "refused: missing release file(s): CHANGELOG.md"


@pytest.mark.parametrize("document, edit", [
    ("datapackage.json", lambda text: text.replace('"version": "0.1.0"', '"version": "0.1.1"')),
    ("CITATION.cff", lambda text: text.replace('"0.1.0"', '"0.2.0"')),
    ("README.md", lambda text: text.replace("version = {0.1.0}", "version = {0.0.9}")),
    ("CHANGELOG.md", lambda text: text.replace("## [0.1.0]", "## [0.1.1] - 2026-12-01\n\n## [0.1.0]")),
])
def test_refuses_when_a_document_states_another_version(documented, document, edit, capsys):
    path = documented / document
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    assert main(["publish", str(documented), "--repo-id", "org/rc", "--version", VERSION, "--dry-run"]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("refused: version mismatch: --version 0.1.0") and document in err


def test_refuses_when_the_argument_names_another_version(documented, capsys):
    assert main(["publish", str(documented), "--repo-id", "org/rc", "--version", "0.2.0", "--dry-run"]) == 1
    assert "version mismatch: --version 0.2.0, datapackage.json 0.1.0" in capsys.readouterr().err


def test_card_without_a_stated_version_is_a_mismatch(documented):
    card = documented / "README.md"
    card.write_text(re.sub(r"version = \{.*\}", "", card.read_text(encoding="utf-8")), encoding="utf-8")
    assert "README.md (none)" in gate.versions_disagree(Release(documented), VERSION)


def test_version_argument_must_be_semver(documented, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["publish", str(documented), "--repo-id", "org/rc", "--version", "v1", "--dry-run"])
    assert exit_.value.code == 2


def test_card_check(publishable):
    assert gate.card_stale(Release(publishable), VERSION) is None
    card = publishable / "README.md"
    card.write_text(card.read_text(encoding="utf-8").replace("config_name: chat", "config_name: talk"),
                    encoding="utf-8")
    assert gate.card_stale(Release(publishable), VERSION).startswith("card out of date")


def test_datasheet_check(publishable):
    assert gate.datasheet_stale(Release(publishable), VERSION) is None
    sheet = publishable / "DATASHEET.md"
    text = sheet.read_text(encoding="utf-8")
    block = re.search(r"<!-- generated:[\w-]+ -->\n", text)
    assert block, "DATASHEET.md has generated blocks"
    sheet.write_text(text[:block.end()] + "| stale | row |\n" + text[block.end():], encoding="utf-8")
    assert gate.datasheet_stale(Release(publishable), VERSION).startswith("DATASHEET.md out of date")


def test_croissant_check(publishable):
    assert main(["croissant", str(publishable)]) == 0
    assert gate.croissant_stale(Release(publishable), VERSION) is None
    path = publishable / "croissant.json"
    path.write_text(path.read_text(encoding="utf-8").replace('"version": "0.1.0"', '"version": "0.0.1"'),
                    encoding="utf-8")
    assert gate.croissant_stale(Release(publishable), VERSION) == \
        "croissant.json out of date: run `realcompanion refresh`"


def test_croissant_check_reports_a_rejected_description_as_a_read_error(publishable):
    assert main(["croissant", str(publishable)]) == 0
    path = publishable / "schemas" / "chat.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema["foreignKeys"][0]["reference"]["fields"] = ["no_such_field"]
    path.write_text(json.dumps(schema), encoding="utf-8")
    with pytest.raises(ReadError, match=r"croissant\.json: Croissant rejects the description: "):
        gate.croissant_stale(Release(publishable), VERSION)


def test_validation_check(specimen):
    assert gate.invalid(Release(specimen), VERSION) is None
    descriptor = json.loads((specimen / "datapackage.json").read_text(encoding="utf-8"))
    next(r for r in descriptor["resources"] if r["name"] == "qa")["hash"] = "sha256:" + "0" * 64
    (specimen / "datapackage.json").write_text(json.dumps(descriptor), encoding="utf-8")
    assert re.fullmatch(r"`realcompanion validate` reports \d+ error\(s\)", gate.invalid(Release(specimen), VERSION))


def leak_an_address(root) -> dict:
    """A companion message that now holds an e-mail address (a PII1 warning, not an error), re-stamped."""
    path = root / "data" / "source.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    row = next(r for r in rows if r["sender"] == "companion" and r["text"])
    row["text"] += " Write to ana@example.org"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    stamp(root)
    return {"resource": "source", "row": row["dayid"], "field": "text", "value": "ana@example.org"}


def acknowledge(root, findings) -> None:
    (root / ACKNOWLEDGED).write_text(json.dumps({
        "reviewed_by": "Data steward", "reviewed_on": "2026-11-30",
        "findings": [{**f, "reason": "the example domain, reserved by RFC 2606"} for f in findings]}), encoding="utf-8")


def test_personal_data_blocks_publishing_until_each_finding_is_acknowledged(specimen):
    finding = leak_an_address(specimen)
    assert gate.invalid(Release(specimen), VERSION) == (
        f"1 personal-data finding(s) (PII1) not acknowledged in {ACKNOWLEDGED}, first: "
        f"source {finding['row']} text='ana@example.org'")
    acknowledge(specimen, [{**finding, "value": "someone@else.org"}])  # another value: not this finding
    assert "not acknowledged" in gate.invalid(Release(specimen), VERSION)
    acknowledge(specimen, [finding])
    assert gate.invalid(Release(specimen), VERSION) is None
    assert ACKNOWLEDGED in {f.path for f in plan(write_documents(specimen), "org/rc", VERSION).files}


def test_an_acknowledgement_file_of_the_wrong_shape_is_one_line(specimen):
    finding = leak_an_address(specimen)
    acknowledge(specimen, [finding])
    path = specimen / ACKNOWLEDGED
    listed = json.loads(path.read_text(encoding="utf-8"))
    del listed["findings"][0]["reason"]
    path.write_text(json.dumps(listed), encoding="utf-8")
    with pytest.raises(ReadError, match=r"pii-acknowledged\.json field 'findings\.0': 'reason' is a required property"):
        gate.invalid(Release(specimen), VERSION)


@pytest.mark.parametrize("document", ["CHANGELOG.md", "schemas/rules.json"])
def test_a_file_linked_from_outside_is_never_published(documented, tmp_path, capsys, document):
    outside = tmp_path / "outside.md"
    outside.write_text("## [0.1.0] - 2026-11-29\nnot part of the package\n", encoding="utf-8")
    (documented / document).unlink(missing_ok=True)
    (documented / document).symlink_to(outside)
    with pytest.raises(ReadError, match="outside the release folder"):
        plan(documented, "org/rc", VERSION)
    assert main(["publish", str(documented), "--repo-id", "org/rc", "--version", VERSION, "--dry-run"]) == 1
    out, err = capsys.readouterr()
    assert err.startswith("refused: ") and str(outside) not in out


def test_a_resource_without_description_is_no_crash(publishable, capsys):
    path = publishable / "datapackage.json"
    package = json.loads(path.read_text(encoding="utf-8"))
    del package["resources"][0]["description"]
    path.write_text(json.dumps(package, indent=2), encoding="utf-8")
    assert main(["card", str(publishable)]) == 1  # the card's text for it is now stale
    assert main(["publish", str(publishable), "--repo-id", "org/rc", "--version", VERSION, "--dry-run"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("refused: ")


def test_refusal_reports_the_first_failing_check(documented, monkeypatch):
    ran = []

    def check(name, reason):
        def run(release, version):
            ran.append(name)
            return reason
        return run

    monkeypatch.setattr(gate, "CHECKS", (check("a", None), check("b", "b failed"), check("c", "c failed")))
    assert gate.refusal(documented, VERSION) == "b failed"
    assert ran == ["a", "b"]


# -- the plan -----------------------------------------------------------------

def test_plan_lists_exactly_the_release_files(documented):
    (documented / "src").mkdir()
    (documented / "src" / "code.py").write_text("x = 1\n")
    (documented / "notes.txt").write_text("not part of the release\n")
    planned = plan(documented, "org/rc", VERSION)
    schemas = sorted(p.relative_to(documented).as_posix() for p in (documented / "schemas").rglob("*.json"))
    data = [r["path"] for r in json.loads((documented / "datapackage.json").read_text())["resources"]]
    assert [f.path for f in planned.files] == [*DOCUMENTS, *schemas, *data]
    assert planned.tag == "v0.1.0"
    (documented / "croissant.json").write_text("{}")
    assert "croissant.json" in plan(documented, "org/rc", VERSION).paths


def test_dry_run_prints_the_plan_and_touches_nothing(documented, gated_lightly, capsys):
    before = {p: p.stat().st_mtime_ns for p in documented.rglob("*")}
    assert main(["publish", str(documented), "--repo-id", "org/rc", "--version", VERSION, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "tag v0.1.0" in out and "org/rc" in out and "dry run: nothing uploaded" in out
    source = documented / "data" / "source.jsonl"
    assert re.search(rf"data/source\.jsonl\s+{source.stat().st_size}\s+sha256:{sha256_of(source)}", out)
    assert {p: p.stat().st_mtime_ns for p in documented.rglob("*")} == before


# -- the upload, against a local stand-in for the Hub -------------------------

class FakeHub(ThreadingHTTPServer):
    """Answers the Hub API calls a release makes, enough for huggingface_hub to complete, and records them."""

    def __init__(self, files=(".gitattributes",), tags=(), deny=False):
        super().__init__(("127.0.0.1", 0), _HubHandler)
        self.files, self.tags, self.deny, self.calls = list(files), list(tags), deny, []
        self.url = f"http://127.0.0.1:{self.server_address[1]}"

    def calls_to(self, pattern: str) -> list[dict]:
        return [c for c in self.calls if re.search(pattern, f"{c['method']} {c['path']}")]


class _HubHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _answer(self, body, status=200):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _record(self) -> dict:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Type", "").startswith("application/x-ndjson"):
            body = [json.loads(line) for line in raw.decode().splitlines()]
        else:
            body = json.loads(raw) if raw else None
        call = {"method": self.command, "path": self.path.split("?")[0], "body": body,
                "authorization": self.headers.get("Authorization")}
        self.server.calls.append(call)
        return call

    def do_GET(self):
        path, hub = self._record()["path"], self.server
        if path.endswith("/refs"):
            return self._answer({
                "branches": [{"name": "main", "ref": "refs/heads/main", "targetCommit": HEAD}], "converts": [],
                "tags": [{"name": t, "ref": f"refs/tags/{t}", "targetCommit": HEAD} for t in hub.tags]})
        if "/tree/" in path:
            return self._answer([{"type": "file", "path": p, "oid": "0" * 40, "size": 1} for p in hub.files])
        return self._answer({"error": "not found"}, 404)

    def do_POST(self):
        call, hub = self._record(), self.server
        path, body = call["path"], call["body"]
        repo = re.match(r"/api/datasets/([^/]+/[^/]+)/", path)
        if path == "/api/repos/create" and hub.deny:
            return self._answer({"error": "Invalid credentials in Authorization header"}, 401)
        if path == "/api/repos/create":
            return self._answer({"url": f"{hub.url}/datasets/{body['organization']}/{body['name']}"})
        if path == "/api/validate-yaml":
            return self._answer({"errors": [], "warnings": []})
        if repo and "/preupload/" in path:
            return self._answer({"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False}
                                           for f in body["files"]]})
        if repo and "/commit/" in path:
            return self._answer({"commitUrl": f"{hub.url}/datasets/{repo[1]}/commit/{NEW}", "commitOid": NEW,
                                 "success": True})
        if repo and "/tag/" in path:
            return self._answer({})
        return self._answer({"error": "not found"}, 404)


@pytest.fixture
def hub(request):
    server = FakeHub(**getattr(request, "param", {}))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def local_hub(hub, monkeypatch):
    """huggingface_hub in this process pointed at the stand-in, with telemetry (an agent-registry fetch) off."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "ENDPOINT", hub.url)
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_TELEMETRY", True)
    return hub


def _commit(hub) -> tuple[dict, dict[str, bytes], list[str]]:
    (call,) = hub.calls_to(r"^POST /api/datasets/org/rc/commit/main$")
    lines = call["body"]
    added = {line["value"]["path"]: base64.b64decode(line["value"]["content"])
             for line in lines if line["key"] == "file"}
    deleted = [line["value"]["path"] for line in lines if line["key"] == "deletedFile"]
    return lines[0]["value"], added, deleted


@pytest.mark.parametrize("hub", [{"files": [".gitattributes", "README.md", "data/old.jsonl"]}], indirect=True)
def test_upload_commits_exactly_the_plan_and_tags_it(documented, local_hub):
    planned = plan(documented, "org/rc", VERSION)
    published = upload(planned, token="hf_dummy", endpoint=local_hub.url)

    (create,) = local_hub.calls_to(r"^POST /api/repos/create$")
    assert create["body"]["type"] == "dataset" and create["body"]["organization"] == "org"
    header, added, deleted = _commit(local_hub)
    assert header["summary"] == "Release 0.1.0" and header["parentCommit"] == HEAD
    assert set(added) == planned.paths
    assert all(added[f.path] == (documented / f.path).read_bytes() for f in planned.files)
    assert deleted == ["data/old.jsonl"]
    (tag,) = local_hub.calls_to(r"^POST /api/datasets/org/rc/tag/")
    assert tag["path"].endswith(f"/tag/{NEW}") and tag["body"]["tag"] == "v0.1.0"
    assert {c["authorization"] for c in local_hub.calls} == {"Bearer hf_dummy"}
    assert published.commit == NEW and published.tag == "v0.1.0" and published.url.endswith("/datasets/org/rc")


@pytest.mark.parametrize("hub", [{"tags": ["v0.1.0"]}], indirect=True)
def test_upload_refuses_a_published_version(documented, local_hub):
    with pytest.raises(TagExists, match="already has tag v0.1.0"):
        upload(plan(documented, "org/rc", VERSION), token="hf_dummy", endpoint=local_hub.url)
    assert not local_hub.calls_to("/commit/|/tag/")


def test_publish_command_prints_the_revision_to_cite(documented, local_hub, gated_lightly, monkeypatch, capsys):
    monkeypatch.setenv("HF_TOKEN", "hf_dummy")
    assert main(["publish", str(documented), "--repo-id", "org/rc", "--version", VERSION]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last == f"published {local_hub.url}/datasets/org/rc at tag v0.1.0, revision {NEW}"
    assert {c["authorization"] for c in local_hub.calls} == {"Bearer hf_dummy"}


@pytest.mark.parametrize("hub, message", [
    ({"tags": ["v0.1.0"]}, "refused: http://127.0.0.1:{port}/datasets/org/rc already has tag v0.1.0: "
                           "publish the correction as a new version"),
    ({"deny": True}, "error: upload failed (HfHubHTTPError): Client error '401 Unauthorized'"),
], indirect=["hub"])
def test_publish_command_hub_refusals_are_one_line(documented, local_hub, gated_lightly, monkeypatch, capsys,
                                                     message):
    monkeypatch.setenv("HF_TOKEN", "hf_dummy")
    assert main(["publish", str(documented), "--repo-id", "org/rc", "--version", VERSION]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith(message.format(port=local_hub.server_address[1]))
    assert not local_hub.calls_to("/commit/")


def test_publish_command_end_to_end(publishable, hub, tmp_path):
    """The command as a user runs it: real gates, huggingface_hub configured by its own environment variables."""
    env = {**os.environ, "HF_ENDPOINT": hub.url, "HF_TOKEN": "hf_dummy", "HF_HOME": str(tmp_path / "hf"),
           "HF_HUB_DISABLE_TELEMETRY": "1"}
    done = subprocess.run([sys.executable, "-m", "realcompanion.cli", "publish", str(publishable),
                           "--repo-id", "org/rc", "--version", VERSION], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"at tag v0.1.0, revision {NEW}" in done.stdout
    assert set(_commit(hub)[1]) == plan(publishable, "org/rc", VERSION).paths
    assert hub.calls_to(r"^POST /api/datasets/org/rc/tag/")[0]["body"]["tag"] == "v0.1.0"
    assert not (tmp_path / "hf" / "token").exists()


def test_refuses_a_file_under_schemas_that_no_resource_reads(publishable, capsys):
    (publishable / "schemas" / "helper.py").write_text("import os\n", encoding="utf-8")
    assert main(["publish", str(publishable), "--repo-id", "org/rc", "--version", VERSION, "--dry-run"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == ("refused: file(s) under data/ or schemas/ that the release does not read, so neither validated nor "
                   "published: schemas/helper.py")
    assert "schemas/helper.py" not in plan(publishable, "org/rc", VERSION).paths
