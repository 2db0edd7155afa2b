"""`realcompanion.load` / `frames`: every config loads offline, typed, from a local clone; Hub ids pass through."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import datasets
import pandas as pd
import pytest
from tiny_release import build, write_jsonl

import realcompanion
from realcompanion import card
from realcompanion.errors import ReadError
from realcompanion.paths import REPO_ROOT
from realcompanion.release import Release
from realcompanion.schemas import RESOURCES
from realcompanion.stamp import stamp


@pytest.mark.parametrize("config", RESOURCES)
def test_every_config_loads_offline_with_its_declared_rows_and_features(repo, offline, config):
    release = Release(repo)
    ds = realcompanion.load(repo, config, cache_dir=str(offline))
    assert isinstance(ds, datasets.Dataset)
    assert ds.num_rows == release.params["rows"][config]
    assert ds.features == card.features(release, config)


def test_nested_fields_arrive_as_lists_and_structs(repo, offline):
    """With `datasets` alone: the card's header is what makes the clone load typed."""
    chat = datasets.load_dataset(str(repo), "chat", split="test", cache_dir=str(offline))
    row = next(r for r in chat if r["required_context"]["episode_refs"])
    assert isinstance(row["required_context"], dict)
    assert all(isinstance(row["required_context"][k], list) for k in ("recent_context", "profile_refs",
                                                                       "episode_refs"))
    assert isinstance(row["required_context"]["recent_needed"], bool)
    assert set(row["trace"]) == set("ABCDE") and isinstance(row["trace"]["B"]["removed"], list)
    assert isinstance(row["memory_bearing"]["strict2"], bool)
    profile = datasets.load_dataset(str(repo), "profile", split="test", cache_dir=str(offline))
    assert any(e is None for e in profile["evidence"]) and any(isinstance(e, list) for e in profile["evidence"])


def test_current_folder_is_loaded_by_its_absolute_path(repo, monkeypatch):
    calls = []
    monkeypatch.setattr(datasets, "load_dataset", lambda *a, **k: calls.append((a, k)))
    monkeypatch.chdir(repo)
    realcompanion.load(".", "qa")
    assert calls == [((str(repo), "qa"), {"split": "test", "revision": None})]


def test_hub_id_and_revision_pass_through_unchanged(monkeypatch):
    calls = []
    monkeypatch.setattr(datasets, "load_dataset", lambda *a, **k: calls.append((a, k)) or "dataset")
    assert realcompanion.load("some-org/RealCompanion", "chat", revision="v0.1.0") == "dataset"
    assert calls == [(("some-org/RealCompanion", "chat"), {"split": "test", "revision": "v0.1.0"})]


def frames_match(path, release) -> None:
    """`frames(path)` holds each resource of `release` with its schema's fields, its declared rows, Arrow dtypes."""
    frames = realcompanion.frames(path)
    assert list(frames) == release.resources
    for name, frame in frames.items():
        assert list(frame.columns) == [f["name"] for f in release.table_schema(name)["fields"]], name
        assert len(frame) == release.params["rows"][name], name
        assert all(isinstance(dtype, pd.ArrowDtype) for dtype in frame.dtypes)


def test_frames_have_the_schema_fields_and_declared_rows(repo):
    frames_match(repo, Release(repo))


def test_frames_read_a_groupassist_release_as_its_descriptor_names_it():
    """`frames`, like `load`, takes the format from the descriptor: a GroupAssistBench folder gave a RealCompanion
    reader's error ("no 'realcompanion' block")."""
    from realcompanion.formats.groupassist import SPECIMEN, GroupAssistRelease

    frames_match(SPECIMEN, GroupAssistRelease(SPECIMEN))


def test_import_stays_light_until_load_is_used():
    code = ("import sys, realcompanion; heavy = {'datasets', 'pyarrow', 'pandas'} & set(sys.modules); "
            "print(sorted(heavy)); from realcompanion.loader import load; print(realcompanion.load is load)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:2] == ["[]", "True"]


def _raw_rows(release: Release, config: str) -> list[dict]:
    with open(release.path(config), encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def _as_in_file(loaded: dict, raw: dict) -> dict:
    """The loaded row restricted to what the file states: `datasets` fills struct members the row omits with None."""
    if not isinstance(raw, dict) or not isinstance(loaded, dict):
        return loaded
    return {key: _as_in_file(loaded.get(key), value) for key, value in raw.items()}


@pytest.mark.parametrize("how", ["plain", "streaming", "realcompanion.load"])
@pytest.mark.parametrize("config", RESOURCES)
def test_every_loaded_row_equals_the_file_field_for_field(repo, offline, config, how):
    """Timestamps keep their offset and dates stay dates: `datasets` must not reinterpret a string."""
    release = Release(repo)
    kwargs = {"split": "test", "cache_dir": str(offline)}
    if how == "realcompanion.load":
        loaded = realcompanion.load(repo, config, cache_dir=str(offline))
    else:
        loaded = datasets.load_dataset(str(repo), config, streaming=how == "streaming", **kwargs)
    raw = _raw_rows(release, config)
    rows = list(loaded)
    assert len(rows) == len(raw)
    for number, (row, expected) in enumerate(zip(rows, raw), 1):
        assert set(row) == {f["name"] for f in release.table_schema(config)["fields"]}, f"line {number}"
        assert _as_in_file(row, expected) == expected, f"{config} line {number}"


def test_text_that_arrow_would_read_as_timestamps_loads_as_written(tmp_path, offline):
    """Arrow infers a text column as timestamps when its every value in a chunk of the file looks like a date or
    timestamp: a lone answer loaded as '2025-03-01 08:00:00', its offset applied, and a referent as a midnight in
    a chunk that held only it (`chunksize=1`: one line a chunk). The card declares such a field `Json`, as it does
    dates and datetimes, unless another of its values is JSON text ("42"), which a `Json` field would decode."""
    root = build(tmp_path / "release")
    for document in ("README.md", "CITATION.cff"):
        shutil.copy2(REPO_ROOT / document, root / document)
    qa, chat = (_raw_rows(Release(root), name) for name in ("qa", "chat"))
    qa[0]["answer"] = "2025-03-01T10:00:00+02:00"
    qa[0]["question"], qa[1]["question"] = "2025-03-01", "42"
    chat[0]["trace"]["A"]["referent_text"], chat[1]["trace"]["A"]["referent_text"] = "2025-03-01", "pottery"
    write_jsonl(root / "data" / "qa.jsonl", qa)
    write_jsonl(root / "data" / "chat.jsonl", chat)
    stamp(root)
    card.write(root)
    assert card.features(Release(root), "qa")["question"] == datasets.Value("string")
    for config, raw, chunks in (("qa", qa, {}), ("chat", chat, {"chunksize": 1})):
        loaded = datasets.load_dataset(str(root), config, split="test", cache_dir=str(offline), **chunks)
        assert [_as_in_file(row, expected) for row, expected in zip(loaded, raw)] == raw, config


def _git(root, *args) -> str:
    done = subprocess.run(["git", "-C", str(root), "-c", "user.name=Release", "-c", "user.email=release@example.org",
                           *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_local_revision_is_read_from_git_not_from_the_working_tree(specimen, repo, offline, monkeypatch, tmp_path):
    """A tagged folder whose working tree has changed since: the tag's rows load, from a checkout in the load's own
    cache (a folder of the checkout's name planted in the shared temporary directory is never read); an unknown tag
    is refused."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "shared"))
    shutil.copy2(repo / "README.md", specimen / "README.md")
    release = specimen / "release-at-tag"
    shutil.move(specimen / "data", specimen / "data-moved")  # the release sits in a sub-folder of the repository
    release.mkdir()
    for part in ("datapackage.json", "schemas", "README.md"):
        shutil.move(specimen / part, release / part)
    shutil.move(specimen / "data-moved", release / "data")
    _git(specimen, "init", "-q")
    _git(specimen, "add", "-A")
    _git(specimen, "commit", "-q", "-m", "release")
    _git(specimen, "tag", "v0.1.0")
    qa = release / "data" / "qa.jsonl"
    rows = [json.loads(line) for line in qa.read_text(encoding="utf-8").splitlines()]
    tagged = rows[0]["question"]
    rows[0]["question"] = "Edited after the release?"  # the working tree moves on
    qa.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert realcompanion.load(release, "qa", cache_dir=str(offline))[0]["question"] == "Edited after the release?"
    commit = _git(specimen, "rev-parse", "HEAD")
    digest = hashlib.sha256(f"{commit}:release-at-tag/".encode()).hexdigest()[:16]
    planted = tmp_path / "shared" / f"realcompanion-{commit[:12]}-{digest}"  # where a checkout used to be made
    shutil.copytree(release, planted)
    assert realcompanion.load(release, "qa", revision="v0.1.0", cache_dir=str(offline))[0]["question"] == tagged
    assert list((offline / "realcompanion-revisions").iterdir())[0].name.startswith(commit[:12])
    with pytest.raises(ReadError, match="no revision 'v9.9.9'"):
        realcompanion.load(release, "qa", revision="v9.9.9", cache_dir=str(offline))
    monkeypatch.setattr(os, "getuid", lambda: -1)  # the checkout as another user finds it: not reused
    with pytest.raises(ReadError, match="belongs to another user"):
        realcompanion.load(release, "qa", revision="v0.1.0", cache_dir=str(offline))


def test_a_revision_of_a_folder_outside_git_is_refused(specimen):
    with pytest.raises(ReadError, match="refusing to load the working tree"):
        realcompanion.load(specimen, "qa", revision="v0.1.0")


def test_int8_asks_ujson_of_every_float_it_may_write_otherwise():
    """INT8 re-encodes only the floats `_maybe_reencoded` picks: every float of every magnitude and number of
    decimals that ujson (datasets' encoder for a resource with a Json field) writes otherwise is among them."""
    import numpy as np
    from pandas.io.json import ujson_dumps
    from realcompanion.validators.integrity import _maybe_reencoded

    rng = np.random.default_rng(7)
    values = np.concatenate([np.round(rng.random(200) * 10.0 ** magnitude, decimals) * sign
                             for magnitude in range(-12, 19) for decimals in (0, 3, 10, 12, 17) for sign in (1, -1)])
    values = np.concatenate([values, [0.0, -0.0, 1e15, 2.0 ** 60, 1e-10, 0.876543210987654]])
    changed = np.array([float(ujson_dumps(float(v))) != v or (v == 0 and np.signbit(v)) for v in values])
    assert changed.any() and not (changed & ~_maybe_reencoded(values)).any()


def test_int8_names_the_rows_of_a_table_read_in_chunks():
    """A large file is read in chunks; INT8 walks each chunk without copying the column, and names each number's row
    across chunks (a list's items by the row holding the list)."""
    from types import SimpleNamespace

    import pyarrow as pa
    from realcompanion.validators.integrity import _json_floats

    kind = pa.struct([("at", pa.string()), ("w", pa.list_(pa.float64()))])
    chunks = [pa.array([{"at": "x", "w": [0.5]}, {"at": "x", "w": []}], kind),
              pa.array([{"at": "x", "w": [1.5, 2.5]}, None, {"at": "x", "w": [3.5]}], kind)]
    table = pa.table({"t": pa.chunked_array([["2025-01-01T00:00:00Z"] * 2, ["2025-01-01T00:00:00Z"] * 3]),
                      "m": pa.chunked_array(chunks)})
    release = SimpleNamespace(resources=["r"], table=lambda name: table, table_schema=lambda name: {
        "fields": [{"name": "t", "type": "datetime"}, {"name": "m", "type": "object"}]})
    found = [(path, rows.tolist(), values.tolist())
             for _, path, rows, values in _json_floats(SimpleNamespace(release=release, table=release.table))]
    assert found == [("m.w", [0], [0.5]), ("m.w", [2, 2, 4], [1.5, 2.5, 3.5])]


def test_a_truncated_data_file_is_named_with_its_line(specimen, offline):
    """`datasets` raised DatasetGenerationError, naming neither the file nor the line."""
    shutil.copy2(REPO_ROOT / "README.md", specimen / "README.md")
    qa = specimen / "data" / "qa.jsonl"
    lines = qa.read_bytes().splitlines(keepends=True)
    qa.write_bytes(b"".join(lines[:5]) + lines[5][:40])  # cut in the sixth line, as a full disk leaves it
    with pytest.raises(ReadError, match=r"data/qa\.jsonl:6: malformed JSON"):
        realcompanion.load(specimen, "qa", cache_dir=str(offline))


def test_a_config_the_card_does_not_declare_is_one_line(specimen, offline):
    shutil.copy2(REPO_ROOT / "README.md", specimen / "README.md")
    with pytest.raises(ReadError, match=r"README.md field 'configs': declares no config 'dialogue' \(it declares: chat,"):
        realcompanion.load(specimen, "dialogue", cache_dir=str(offline))
