"""The Croissant RAI statements, quoted from the sections of the dataset card that make them.

The card (README.md, laid out on the Hugging Face card template) is where the
release's authors write about collection, limitations, biases, personal
information, uses and maintenance; Croissant repeats that prose, it never
restates it, so the two cannot drift. Each RAI property names the card sections
it quotes, by heading.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import ReadError
from ..files import read_text

# mlcroissant.Metadata keyword -> card headings quoted (one text per heading).
SECTIONS = {
    "data_collection": ("Data Collection and Processing",),
    "data_annotation_protocol": ("Annotation process",),
    "data_limitations": ("Bias, Risks, and Limitations",),
    "data_biases": ("Bias, Risks, and Limitations",),  # the template's one section for both, with Recommendations
    "personal_sensitive_information": ("Personal and Sensitive Information",),
    "data_use_cases": ("Direct Use", "Out-of-Scope Use"),
    "data_release_maintenance_plan": ("Versions and errata",),
}
SINGLE_TEXT = {"data_collection", "data_release_maintenance_plan"}  # properties Croissant allows once


def sections(text: str) -> dict[str, str]:
    """Markdown source of each section of `text`, keyed by heading, up to the next heading of its level or above."""
    from markdown_it import MarkdownIt

    lines, tokens = text.splitlines(), MarkdownIt().parse(text)
    headings = [(token.map[0], int(token.tag[1:]), tokens[i + 1].content)
                for i, token in enumerate(tokens) if token.type == "heading_open"]
    out = {}
    for n, (start, level, title) in enumerate(headings):
        end = next((s for s, lvl, _ in headings[n + 1:] if lvl <= level), len(lines))
        out[title] = "\n".join(lines[start + 1:end]).strip()
    return out


def statements(card: Path) -> dict[str, str | list[str]]:
    """The RAI keyword arguments of `mlcroissant.Metadata`, quoted from the card at `card`."""
    found = sections(read_text(card))
    out = {}
    for key, headings in SECTIONS.items():
        missing = [h for h in headings if not found.get(h)]
        if missing:
            raise ReadError(card, f"no section '{missing[0]}' (quoted in Croissant as {key})")
        texts = [found[h] for h in headings]
        out[key] = "\n\n".join(texts) if key in SINGLE_TEXT else texts
    return out

