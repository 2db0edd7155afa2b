"""The package's layout (docs/design.md): no import circles among its modules, and a shared engine that names no
format, reaching each format's parts through the registry (`realcompanion.formats`) only."""
from __future__ import annotations

import ast
import subprocess
import re
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

from realcompanion.formats import FORMATS, part
from realcompanion.paths import REPO_ROOT

# where the package's modules live: src/realcompanion is `realcompanion`, validators/ is `realcompanion.validators`
FOLDERS = {"realcompanion": REPO_ROOT / "src" / "realcompanion", "realcompanion.validators": REPO_ROOT / "validators"}
REGISTRY = "realcompanion.formats"
# Engine modules that still name a format, each for the reason given; the test fails when one of them stops naming
# one (the entry goes) as when another starts (it must not). None does: where the engine must assume a format, it
# takes the registry's default (`formats.DEFAULT`)
STILL_NAMING: dict[str, str] = {}


def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name."""
    found = {}
    for prefix, folder in FOLDERS.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([prefix, *parts])] = path
    return found


def _typing_only(tree: ast.AST) -> set[ast.AST]:
    """The import statements under `if TYPE_CHECKING:`, which never run."""
    return {node for block in ast.walk(tree) if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
            for statement in block.body for node in ast.walk(statement)}


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that module `name` imports, at module level or inside a function: a name imported
    from a package is its submodule when it is one, else the package."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped, out = _typing_only(tree), set()
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(tree):
        if node in skipped:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join([*package[:len(package) - node.level + 1], *filter(None, [node.module])]) if node.level \
                else node.module
            subs = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in known]
            targets = subs + ([base] if len(subs) < len(node.names) else [])
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_the_graph_sees_imports_inside_functions_and_relative_ones():
    found = graph()
    assert "realcompanion.names" in found["realcompanion.files"]  # inside `_into`
    assert "realcompanion.validators.catalogue" in found["realcompanion.validators.kept"]  # `from .catalogue`
    assert "realcompanion.formats.groupassist.judging" in found["realcompanion.formats.groupassist.judged"]


def test_no_import_circles():
    try:
        TopologicalSorter(graph()).prepare()
    except CycleError as exc:
        pytest.fail("modules importing one another in a circle: " + " -> ".join(exc.args[1]))


def test_a_circle_is_found():
    """The check itself: the graph of two modules importing each other does not sort."""
    with pytest.raises(CycleError):
        TopologicalSorter({"a": {"b"}, "b": {"a"}}).prepare()


def format_names() -> re.Pattern:
    """What names a format in source text: its title (`RealCompanion`), its block name quoted (`"groupassist"`), its
    folders (`formats.groupassist`, `validators/realcompanion`), and its name anywhere when that is not the
    package's own."""
    words = []
    for name in FORMATS:
        words += [re.escape(part(name, "release").TITLE), rf"[\"']{name}[\"']", rf"\b(formats|validators)[./]{name}\b"]
        if name != "realcompanion":
            words.append(rf"(?i:\b{name})")
    return re.compile("|".join(words))


def engine() -> dict[str, Path]:
    """The shared engine: every module but the formats' own folders and the registry."""
    own = tuple(f"{prefix}.{name}" for prefix in (REGISTRY, "realcompanion.validators") for name in FORMATS)
    return {name: path for name, path in modules().items()
            if name != REGISTRY and not any(name == o or name.startswith(o + ".") for o in own)}


def test_the_engine_names_no_format():
    """Neither in its text nor by importing a module of a format's folder."""
    pattern, imported, shared = format_names(), graph(), engine()
    naming = {name for name, path in shared.items() if pattern.search(path.read_text(encoding="utf-8"))
              or imported[name] - set(shared) - {REGISTRY}}
    assert naming - set(STILL_NAMING) == set(), "engine modules that name a format: reach it through formats.part"
    assert set(STILL_NAMING) - naming == set(), "these name no format any more: drop them from STILL_NAMING"


def test_format_names_are_found():
    pattern = format_names()
    for text in ('if release.BLOCK == "groupassist":', "from .formats.realcompanion.scoring import gold",
                 "a GroupAssistBench release", "on a RealCompanion release", "validators/groupassist/gates.py"):
        assert pattern.search(text), text
    assert not pattern.search("from realcompanion.release import Release  # `realcompanion validate`")


# A format's modules that import another format's, each for the reason given
ACROSS_FORMATS: dict[tuple[str, str], str] = {}


def format_of_module(name: str) -> str | None:
    return next((f for f in FORMATS for prefix in (REGISTRY, "realcompanion.validators")
                 if name == f"{prefix}.{f}" or name.startswith(f"{prefix}.{f}.")), None)


def test_a_format_imports_no_other_format():
    imported = graph()
    across = {(name, target) for name, targets in imported.items() for target in targets
              if format_of_module(name) and format_of_module(target) not in (None, format_of_module(name))}
    assert across - set(ACROSS_FORMATS) == set(), "a format's module imports another format's"
    assert set(ACROSS_FORMATS) - across == set(), "these import no other format any more: drop them"


def test_the_top_level_holds_only_what_design_md_lists():
    """A stray file at the top (a command's output written into the working tree and committed) fails here."""
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout: nothing is tracked")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, check=True).stdout
    tracked = {path.split("/", 1)[0] for path in listed.decode().split("\0") if path}
    section = (REPO_ROOT / "docs" / "design.md").read_text(encoding="utf-8").split("## The repository's top level")[1]
    documented = set(re.findall(r"`([^`/\s]+)/?`", section.split("\n## ")[0]))
    assert tracked <= documented, sorted(tracked - documented)
    assert {"datapackage.json", "README.md", "schemas", "data", "validators", "tests", "DATASHEET.md", "pyproject.toml"} <= tracked
