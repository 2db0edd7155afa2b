"""The release's documents (README.md, DATASHEET.md, CITATION.cff, CHANGELOG.md, croissant.json), broken or careless:
every command that reads one refuses in one line naming it, as it refuses a data file (files.read_text)."""
from __future__ import annotations

import os
import shutil

import pytest
from test_fuzz import check_contract, digest, run_quietly

from realcompanion.paths import REPO_ROOT

DOCUMENTS = ("README.md", "DATASHEET.md", "CITATION.cff", "CHANGELOG.md")
PUBLISH = ["publish", "--repo-id", "org/rc", "--version", "0.1.0", "--dry-run"]


@pytest.fixture
def documented(specimen):
    for name in DOCUMENTS:
        shutil.copy2(REPO_ROOT / name, specimen / name)
    return specimen


def edit(name, change):
    def mutate(root):
        path = root / name
        path.write_bytes(change(path.read_bytes()))
    return mutate


def replace_with(name, make):
    def mutate(root):
        (root / name).unlink()
        make(root / name)
    return mutate


ALIAS_BOMB = "".join(f"x-{n}: &x{n} [{', '.join([f'*x{n - 1}'] * 10)}]\n" for n in range(1, 6)).encode()
ALIAS_BOMB = b"x-0: &x0 [a, a, a, a, a, a, a, a, a, a]\n" + ALIAS_BOMB + b"keywords: *x5\n"


CASES = [  # (id, mutation, commands that read the document, the one line must hold)
    ("card-latin-1", edit("README.md", lambda b: b.replace(b"pretty_name: RealCompanion", b"pretty_name: Real\xe9", 1)),
     [["croissant"], PUBLISH, ["card"]], "README.md:2 field 'encoding': not UTF-8"),
    ("card-a-fifo", replace_with("README.md", os.mkfifo), [["card"], ["croissant"]],
     "README.md: is a FIFO (named pipe)"),
    ("citation-latin-1", edit("CITATION.cff", lambda b: b.replace(b"Behnam", b"Behn\xe4m", 1)),
     [["cite"], ["card"], ["croissant"], PUBLISH], "CITATION.cff:11 field 'encoding': not UTF-8"),
    ("citation-impossible-date", edit("CITATION.cff", lambda b: b.replace(b"date-released: 2026-11-29",
                                                                          b"date-released: 2026-13-45")),
     [["cite"], ["card"], ["croissant"], PUBLISH], "CITATION.cff: not valid YAML (month must be in 1..12)"),
    ("citation-authors-a-string", edit("CITATION.cff", lambda b: b.replace(b"authors:\n- given-names: Arman",
                                                                           b"authors: nobody\nx:\n- given-names: Arman", 1)),
     [["cite"], ["cite", "--format", "apa"], ["card"], ["croissant"], PUBLISH],
     "CITATION.cff field 'authors': 'nobody' is not of type 'array'"),
    ("citation-a-folder", replace_with("CITATION.cff", lambda p: p.mkdir()), [["cite"], ["card"]],
     "CITATION.cff: is a directory"),
    # YAML forbids a key twice in a mapping; PyYAML kept the last, so the citation named the second title
    ("citation-a-key-twice", edit("CITATION.cff", lambda b: b + b"title: Another title\n"), [["cite"], PUBLISH],
     "field 'title': duplicate key 'title' in one object"),
    # a kilobyte whose aliases expand to a million values (ten levels, ten billion: 23 GB before `cite` was killed)
    ("citation-an-alias-bomb", edit("CITATION.cff", lambda b: b + ALIAS_BOMB), [["cite"], ["card"], PUBLISH],
     "CITATION.cff: expands to more than 100,000 values"),
    # JSON's and YAML's \ud800 escape reads as a lone surrogate, which no UTF-8 holds: a title holding one was VALID,
    # then `stamp` stopped writing the descriptor, and `cite` rendering the citation, each with a traceback
    ("descriptor-a-lone-surrogate", edit("datapackage.json", lambda b: b.replace(b'"title": "', b'"title": "\\ud800', 1)),
     [["validate"], ["stamp"], ["cite"], PUBLISH], "datapackage.json field 'title': holds a lone surrogate ('\\ud800'"),
    ("citation-a-lone-surrogate", edit("CITATION.cff", lambda b: b.replace(b"\ntitle: ", b'\ntitle: "\\ud800" #', 1)),
     [["cite"], ["cite", "--format", "apa"], PUBLISH], "CITATION.cff field 'title': holds a lone surrogate"),
    ("datasheet-latin-1", edit("DATASHEET.md", lambda b: b + b"\xe9\n"), [["datasheet"], PUBLISH],
     "DATASHEET.md:"),
    ("changelog-latin-1", edit("CHANGELOG.md", lambda b: b + b"\xe9\n"), [PUBLISH], "CHANGELOG.md:"),
]


@pytest.mark.parametrize("mutate,commands,needle", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_broken_document_is_one_line_for_every_command(documented, mutate, commands, needle):
    mutate(documented)
    before = digest(documented)
    for command in commands:
        code, out, err = run_quietly([command[0], str(documented), *command[1:]])
        assert code == 2, (command, out, err)
        check_contract(code, out, err, needle)
    assert digest(documented) == before


def test_a_croissant_file_that_is_not_strict_json_is_one_line(documented):
    (documented / "croissant.json").write_text('{"name": "a", "name": "b"}', encoding="utf-8")
    code, out, err = run_quietly([PUBLISH[0], str(documented), *PUBLISH[1:]])
    assert code == 2, out + err
    check_contract(code, out, err, "croissant.json field 'name': duplicate key 'name'")


def test_a_card_without_a_header_is_stale_in_one_line(documented):
    """huggingface_hub logs its own warning for a card with no YAML header; the refusal is the one line."""
    import subprocess
    import sys

    card = documented / "README.md"
    card.write_text(card.read_text(encoding="utf-8").split("\n---\n", 1)[1], encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "realcompanion.cli", PUBLISH[0], str(documented), *PUBLISH[1:]],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and done.stderr.startswith("refused: card out of date"), done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr


def test_whole_documents_edited_by_hand_stay_valid(documented):
    """DOC1's near miss: each document present, edited (prose added, a generated block's body stale, a CFF key
    changed, croissant.json written by `croissant`), none cut: the release stays VALID."""
    from realcompanion.validators.run import validate

    readme = documented / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8") + "\nA paragraph of our own.\n", encoding="utf-8")
    sheet = documented / "DATASHEET.md"
    sheet.write_text(sheet.read_text(encoding="utf-8").replace("<!-- generated:counts -->\n",
                                                               "<!-- generated:counts -->\nstale\n"), encoding="utf-8")
    cff = documented / "CITATION.cff"
    cff.write_text(cff.read_text(encoding="utf-8").replace("type: dataset", "type: software"), encoding="utf-8")
    assert run_quietly(["croissant", str(documented)])[0] == 0
    report = validate(documented)
    assert report.errors == 0 and "DOC1" not in report.fired(), report.failure_frame().head().to_string()
