"""Generated blocks are found by a Markdown parser: a marker quoted in a code block or in inline code is prose, and a
document may show its own marker syntax."""
from __future__ import annotations

import shutil

import pytest
from realcompanion.validators.documents import problems

from realcompanion import generated
from realcompanion.cli import main
from realcompanion.formats import open_release
from realcompanion.generated import block_body, fill_blocks

RENDERED = {"status": lambda: "current"}
BLOCK = "<!-- generated:status -->\ncurrent\n<!-- /generated:status -->\n"
FENCED = "```markdown\n<!-- generated:status -->\nwhat the block holds\n<!-- /generated:status -->\n```\n"
INDENTED = "    <!-- generated:status -->\n    what the block holds\n    <!-- /generated:status -->\n"


@pytest.mark.parametrize("example", [FENCED, INDENTED, FENCED.replace("\n", "\r\n")], ids=["fenced", "indented", "crlf"])
def test_a_marker_quoted_in_a_code_block_is_prose(example):
    """A README that documents the marker syntax in a code block before the block itself: the example was taken for
    the block, its text rewritten and the block called stale."""
    eol = "\r\n" if "\r\n" in example else "\n"
    text = f"# Card{eol}{eol}A block reads:{eol}{eol}{example}{eol}" + BLOCK.replace("\n", eol)
    assert fill_blocks(text, RENDERED) == (text, [])
    assert block_body(text, "status") == f"current{eol}"


def test_a_marker_in_inline_code_is_prose():
    """The closing marker deleted, and the prose after the block naming it in inline code: everything up to that
    mention was taken for the block's body, and a write replaced the prose with the rendered block."""
    text = ("<!-- generated:status -->\ncurrent\n\n## Editing\n\nNever delete the line `<!-- /generated:status -->` "
            "that closes a block.\n")
    assert fill_blocks(text, RENDERED) == (text, ["status (markers missing)"])
    assert block_body(text, "status") == ""


def test_a_code_fence_in_the_cards_yaml_header_hides_no_block():
    """The card's YAML header is not Markdown: a block scalar holding a code fence opens none."""
    text = "---\ndescription: |\n  ```\n  quoted\n---\n\n" + BLOCK.replace("current", "old")
    assert fill_blocks(text, RENDERED) == ("---\ndescription: |\n  ```\n  quoted\n---\n\n" + BLOCK, ["status"])


def test_blocks_that_are_html_stay_blocks():
    """Near miss: a marker is a line of an HTML block, wherever that block is (after a paragraph, a table, a
    fence; inside an HTML element; with an empty body)."""
    text = ("Prose.\n<!-- generated:status -->\n| a |\n|---|\n| 1 |\n<!-- /generated:status -->\n"
            "```\ncode\n```\n<!-- generated:notes -->\n<!-- /generated:notes -->\n"
            "<details>\n<!-- generated:more -->\nold\n<!-- /generated:more -->\n</details>\n")
    filled, stale = fill_blocks(text, {"status": lambda: "| a |\n|---|\n| 1 |", "notes": lambda: "new",
                                       "more": lambda: "new"})
    assert stale == ["notes", "more"]
    assert filled == text.replace("<!-- /generated:notes -->", "new\n<!-- /generated:notes -->").replace(
        "old", "new")


@pytest.fixture
def documented(specimen, repo):
    for name in ("README.md", "CITATION.cff", "DATASHEET.md"):
        shutil.copy2(repo / name, specimen / name)
    return specimen


@pytest.mark.parametrize("command, document", [("card", "README.md"), ("datasheet", "DATASHEET.md")])
def test_a_document_documenting_its_markers_is_current_and_written_unchanged(documented, command, document, capsys):
    """The shipped document with a section that quotes its first block's markers in code fences, the closing one
    first: `--check` passes, `--write` leaves every byte, and rule DOC1 finds the document whole (it took the quoted
    closing marker for the block's, before its opening)."""
    path = documented / document
    text = path.read_text(encoding="utf-8")
    quoted = "\n## Generated blocks\n\nA block closes with\n\n```\n<!-- /generated:status -->\n```\n\n" + FENCED + "\n"
    first = text.index("<!-- generated:status -->")
    path.write_text(text[:first] + quoted + text[first:], encoding="utf-8")
    before = path.read_bytes()
    assert main([command, str(documented)]) == 0, capsys.readouterr().out
    assert main([command, str(documented), "--write"]) == 0
    assert path.read_bytes() == before
    assert problems(open_release(documented), document) == []


@pytest.mark.parametrize("document", ["README.md", "DATASHEET.md", "docs/forking.md", "specimens/groupassist/README.md",
                                      "specimens/groupassist/DATASHEET.md"])
def test_markers_are_found_alike_with_the_text_inside_blocks_left_unparsed(repo, monkeypatch, document):
    """The parser leaves the text inside paragraphs, headings and table cells unparsed (validators/speed.py): every
    document finds the markers it finds when that text is parsed too, markers quoted in code included."""
    from markdown_it import MarkdownIt

    text = (repo / document).read_text(encoding="utf-8") + "\n" + FENCED + "\n| a `<!-- generated:x -->` |\n|---|\n" + BLOCK
    found = generated.markers(text)
    monkeypatch.setattr(generated, "_parser", lambda: MarkdownIt("commonmark").enable("table"))
    assert generated.markers(text) == found and found
