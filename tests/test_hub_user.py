"""What a person using the release from the Hub meets: the `datasets` the cards load with, the cards' sections, the
first screen of the README, and the Python API."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import built_once
from huggingface_hub import DatasetCard
from packaging.version import Version

from realcompanion import card
from realcompanion.requirements import datasets_floor

GROUPASSIST = Path(card.__file__).resolve().parents[2] / "specimens" / "groupassist"
CARDS = ("README.md", "specimens/groupassist/README.md")


def section(text: str, heading: str) -> str:
    """The text under a Markdown heading, up to the next heading of its level or above."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        found = re.match(r"(#+) (.*)", line)
        if found and found[2].strip() == heading:
            body = []
            for following in lines[i + 1:]:
                above = re.match(r"(#+) ", following)
                if above and len(above[1]) <= len(found[1]):
                    break
                body.append(following)
            return "\n".join(body)
    raise AssertionError(f"no section {heading!r}")


OLDER = ("4.6.1",)  # the last `datasets` before the floor

LOAD_EVERY_CONFIG = textwrap.dedent("""
    import json, sys, traceback, datasets, yaml
    root, cache = sys.argv[1], sys.argv[2]
    header = open(root + "/README.md", encoding="utf-8").read().split("---")[1]
    out = {"version": datasets.__version__, "rows": {}, "first": {}, "failed": {}}
    for config in yaml.safe_load(header)["configs"]:
        name = config["config_name"]
        try:
            loaded = datasets.load_dataset(root, name, split="test", cache_dir=cache)
        except Exception as exc:
            where = traceback.extract_tb(exc.__traceback__)[-1].name
            out["failed"][name] = f"{where}: {type(exc).__name__}: {exc}"
            continue
        out["rows"][name] = loaded.num_rows
        out["first"][name] = {k: v for k, v in loaded[0].items() if isinstance(v, str)}
    print(json.dumps(out))
""")


def overlay(version: str, folder: Path) -> dict[str, str]:
    """The environment of a Python that is this one with `datasets==version`, far quicker to make than a venv: pip
    resolves that version against what is installed here, and exactly what it would change (`datasets`, and each
    requirement the installed version does not meet: an older `fsspec`, `dill`, `huggingface_hub`, with what they
    need) is installed as resolved, without resolving again, into `folder`, first on PYTHONPATH. So every package
    the overlaid `datasets` imports is one pip's resolver chose for it; nothing installed here changes, and pip
    reads only the registries it is configured with. Returns the variables to set, or why it was skipped."""
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    report, site = folder / "pip-report.json", folder / "site-packages"
    done = subprocess.run([*pip, "install", "--dry-run", "--report", str(report), f"datasets=={version}"],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        reason = next((line for line in reversed(done.stderr.splitlines()) if line.startswith("ERROR")), done.stderr)
        return {"skip": f"pip could not resolve datasets=={version} from a package registry: {reason.strip()[:200]}"}
    changed = [item["download_info"]["url"] for item in json.loads(report.read_text(encoding="utf-8"))["install"]]
    if changed:  # nothing, where this environment has that version already
        subprocess.run([*pip, "install", "--no-deps", "--no-index", "--target", str(site), *changed], check=True,
                       capture_output=True, timeout=600)
    return {"PYTHONPATH": str(site), "HF_HOME": str(folder / "hf"), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


@pytest.fixture(scope="session")
def datasets_at(tmp_path_factory):
    """`datasets_at(version)`: the environment variables of this environment with that `datasets` laid over it
    (`overlay`), built (or skipped, saying why) once a run per version, however many workers ask."""
    def environment(version: str) -> dict[str, str]:
        _, built = built_once(tmp_path_factory, f"datasets-{version}", lambda folder: overlay(version, folder))
        if "skip" in built:
            pytest.skip(built["skip"])
        return {**os.environ, **built}
    return environment


def load_every_config(env: dict, folder: Path, cache: Path) -> dict:
    """Every config of the card in `folder`, loaded with `datasets.load_dataset` where `env` runs Python: the rows
    and first row's strings of each that loads, where and why each other failed."""
    done = subprocess.run([sys.executable, "-c", LOAD_EVERY_CONFIG, str(folder), str(cache)], cwd=cache.parent,
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("root", [".", "specimens/groupassist"])
def test_every_config_loads_with_the_oldest_datasets_the_card_states(repo, datasets_at, tmp_path, root):
    """`datasets` older than 4.7 could load no config (`dtype: json`): the card states the floor, and at that floor
    every config loads, its rows as declared and its timestamps as the file writes them."""
    folder = (repo / root).resolve()
    loaded = load_every_config(datasets_at(datasets_floor()), folder, tmp_path / "cache")
    descriptor = json.loads((folder / "datapackage.json").read_text(encoding="utf-8"))
    block = descriptor.get("realcompanion") or descriptor["groupassist"]
    assert loaded["version"] == datasets_floor() or loaded["version"].startswith(f"{datasets_floor()}.")
    assert loaded["failed"] == {} and loaded["rows"] == block["rows"]
    for res in descriptor["resources"]:
        first = json.loads((folder / res["path"]).read_text(encoding="utf-8").splitlines()[0])
        assert loaded["first"][res["name"]] == {k: v for k, v in first.items() if isinstance(v, str)}, res["name"]


@pytest.mark.parametrize("name", CARDS)
def test_each_card_states_the_datasets_it_needs_where_it_says_how_to_load(repo, name):
    text = (repo / name).read_text(encoding="utf-8")
    assert f"`datasets>={datasets_floor()}`" in section(text, "How to load")


@pytest.mark.parametrize("root", [".", "specimens/groupassist"])
@pytest.mark.parametrize("version", OLDER)
def test_an_older_datasets_cannot_load_the_card_which_says_so(repo, datasets_at, tmp_path, version, root):
    """What a person with an older `datasets` meets: every config stops on the card's `dtype: json` (read as an Arrow
    type), which is why the card's "How to load" states the floor; the same card with that one feature written
    `string` loads, so nothing else in the card or the files stands in the way."""
    assert Version(version) < Version(datasets_floor())
    folder = (repo / root).resolve()
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert f"`datasets>={datasets_floor()}`" in section(card, "How to load")
    env = datasets_at(version)
    loaded = load_every_config(env, folder, tmp_path / "cache")
    assert loaded["version"] == version and loaded["rows"] == {}
    assert set(loaded["failed"].values()) == {"string_to_arrow: TypeError: 'module' object is not callable"}
    assert len(loaded["failed"]) == len(DatasetCard(card).data["configs"])
    without_json = tmp_path / "without-json"
    shutil.copytree(folder / "data", without_json / "data")
    (without_json / "README.md").write_text(card.replace("dtype: json", "dtype: string"), encoding="utf-8")
    plain = load_every_config(env, without_json, tmp_path / "cache-plain")
    assert plain["rows"], plain["failed"]


@pytest.mark.parametrize("version", OLDER)
def test_load_refuses_an_older_datasets_in_one_line_naming_the_version(repo, datasets_at, tmp_path, version):
    done = subprocess.run([sys.executable, "-c", "import sys, realcompanion; realcompanion.load(sys.argv[1], 'qa')",
                           str(repo)], cwd=tmp_path, capture_output=True, text=True, env=datasets_at(version),
                          timeout=600)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        f"ImportError: datasets {version} cannot load this card (the `Json` feature that keeps dates and timestamps "
        f"as the file writes them came in datasets {datasets_floor()}): pip install 'datasets>={datasets_floor()}'")


def template_headings() -> list[str]:
    """The section headings of the Hub's dataset-card template, as huggingface_hub ships it."""
    import huggingface_hub

    template = Path(huggingface_hub.__file__).with_name("templates") / "datasetcard_template.md"
    return [re.sub(r"\s*\[optional\]$", "", line.lstrip("#").strip())
            for line in template.read_text(encoding="utf-8").splitlines()
            if re.match(r"#{2,4} ", line)]


@pytest.mark.parametrize("name", CARDS)
def test_each_card_has_every_section_of_the_hub_template_and_task_categories(repo, name):
    text = (repo / name).read_text(encoding="utf-8")
    headings = {line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")}
    assert not [h for h in template_headings() if h not in headings]
    assert DatasetCard(text).data.get("task_categories")


@pytest.mark.parametrize("name", CARDS)
def test_dataset_sources_link_to_what_they_name(repo, name):
    text = (repo / name).read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)]+)\)", section(text, "Dataset Sources"))
    assert "https://arxiv.org/abs/2611.04867" in links
    local = [link for link in links if "://" not in link]
    assert len(local) >= 5
    for link in local:
        assert ((repo / name).parent / link.split("#")[0]).exists(), link


def first_screen(repo) -> list[str]:
    """The commands of the README's first code block after the card's title."""
    body = (repo / "README.md").read_text(encoding="utf-8").split("\n---\n", 1)[1]
    block = re.search(r"```bash\n(.*?)```", body, re.S)
    assert body.index(block[0]) < body.index("<!-- generated:status -->")  # above everything but the introduction
    return [line.split("  #")[0].strip() for line in block[1].splitlines() if line.strip()]


def test_the_first_screen_is_load_validate_score_each_one_line_and_true(repo):
    """The first screen held the second format's commands and the test suite (23 minutes); a researcher's path
    comes first, and each of its lines works as written from the repository's root."""
    install, *steps = first_screen(repo)
    assert "pip install" in install and "pytest" not in " ".join([install, *steps])
    assert ["load" in steps[0], steps[1], steps[2].split()[1]] == [True, "realcompanion validate .", "baselines"]
    bin_dir = Path(sys.executable).parent
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(Path.home()), "PYTHONUTF8": "1"}
    for step in steps:
        done = subprocess.run(["bash", "-c", step], cwd=repo, capture_output=True, text=True, timeout=600, env=env)
        assert done.returncode == 0, (step, done.stderr[-1000:])
        assert done.stdout.strip(), step


def test_the_readme_loads_at_a_revision_that_exists_in_a_fresh_clone(repo):
    """`revision="v0.1.0"` named a tag no clone has: every `realcompanion.load(".", ..., revision=...)` example
    names a revision every clone has."""
    text = (repo / "README.md").read_text(encoding="utf-8")
    revisions = re.findall(r'realcompanion\.load\("\.", "\w+", revision="([^"]+)"\)', text)
    assert revisions
    for revision in revisions:
        done = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
                              capture_output=True, text=True)
        assert done.returncode == 0, revision


def test_load_and_frames_are_listed_and_the_package_is_typed():
    import realcompanion

    assert {"load", "frames"} <= set(dir(realcompanion))
    assert (Path(realcompanion.__file__).parent / "py.typed").is_file()


def test_frames_give_typed_offset_aware_timestamps_on_request(repo):
    from datetime import date, datetime

    import realcompanion

    plain = realcompanion.frames(repo)
    typed = realcompanion.frames(repo, typed_dates=True)
    text = plain["source"]["timestamp"].iloc[0]
    value = typed["source"]["timestamp"].iloc[0]
    assert isinstance(text, str) and isinstance(value, datetime) and value.utcoffset() is not None
    assert value.isoformat().replace("+00:00", "Z")[:19] == text[:19]
    assert value.utcoffset() == datetime.fromisoformat(text.replace("Z", "+00:00")).utcoffset()
    dated = [f["name"] for f in json.loads((repo / "schemas" / "profile.schema.json").read_text())["fields"]
             if f.get("type") == "date"]
    for field in dated:
        kept = typed["profile"][field].dropna()
        assert all(isinstance(v, date) and not isinstance(v, datetime) for v in kept)
