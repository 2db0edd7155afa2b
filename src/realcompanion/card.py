"""The Hugging Face dataset card (README.md), kept current from the release's own files.

`datasets` reads the card's YAML header, not datapackage.json: `configs` tells it
which file is which config, and `dataset_info` gives the features that make
nested fields load as lists and structs instead of opaque JSON. Both are
generated here from datapackage.json and the schemas (through the same Arrow
schema `Release` reads with), so the two faces of the package cannot drift.
The body is hand-written prose; only its generated blocks (`generated.py`) are
rewritten. CITATION.cff carries the version, date and licence of
datapackage.json; `card --write` keeps them in step.
"""
from __future__ import annotations

import io
import json
import logging
import re
from functools import partial, reduce
from operator import getitem
from typing import Callable, Iterator

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pajson

from .files import read_text, write_own
from .formats import open_release, part
from .generated import fill_blocks, markdown_table
from .names import CARD, CITATION
from .nested import scalars
from .publish.documents import cff, dump_cff, released, stated
from .release import ReadError, Release

SPLIT = "test"
MAX_LISTED = 13  # vocabularies up to this size are spelled out in the field tables
GENERATED_KEYS = ("pretty_name", "license", "license_name", "license_link", "tags", "size_categories", "configs",
                  "dataset_info")
OWN_TERMS = "LicenseRef-"  # SPDX's prefix for a licence not on its list: a dataset publisher's own terms
# The licence identifiers a Hub card's header may give: the table between the `region licenses` markers of
# huggingface/hub-docs docs/hub/repositories-licenses.md (huggingface.co/docs/hub/repositories-licenses);
# neither huggingface_hub nor datasets ships it. Checked equal, all 69, to that file at
# hub-docs commit 008d54d. The Hub names the SPDX licences among them by their lower case, but for the three in
# HUB_NAMES and the GNU licences, whose -only and -or-later variants it names as one.
HUB_LICENSES = frozenset("""apache-2.0 mit openrail bigscience-openrail-m creativeml-openrail-m
    bigscience-bloom-rail-1.0 bigcode-openrail-m afl-3.0 artistic-2.0 bsl-1.0 bsd bsd-2-clause bsd-3-clause
    bsd-3-clause-clear c-uda cc cc0-1.0 cc-by-2.0 cc-by-2.5 cc-by-3.0 cc-by-4.0 cc-by-sa-3.0 cc-by-sa-4.0 cc-by-nc-2.0
    cc-by-nc-3.0 cc-by-nc-4.0 cc-by-nd-4.0 cc-by-nc-nd-3.0 cc-by-nc-nd-4.0 cc-by-nc-sa-2.0 cc-by-nc-sa-3.0
    cc-by-nc-sa-4.0 cdla-sharing-1.0 cdla-permissive-1.0 cdla-permissive-2.0 wtfpl ecl-2.0 epl-1.0 epl-2.0 etalab-2.0
    eupl-1.1 agpl-3.0 gfdl gpl gpl-2.0 gpl-3.0 lgpl lgpl-2.1 lgpl-3.0 isc lppl-1.3c ms-pl mpl-2.0 odc-by odbl
    openrail++ osl-3.0 postgresql ofl-1.1 ncsa unlicense zlib pddl lgpl-lr deepfloyd-if-license llama2 gemma unknown
    other""".split())
HUB_NAMES = {"odc-by-1.0": "odc-by", "odbl-1.0": "odbl", "pddl-1.0": "pddl"}
# Hugging Face `size_categories` labels; label i covers totals below 10**(3 + i).
SIZE_LABELS = ("n<1K", "1K<n<10K", "10K<n<100K", "100K<n<1M", "1M<n<10M", "10M<n<100M", "100M<n<1B",
               "1B<n<10B", "10B<n<100B", "100B<n<1T")
VERBATIM_TYPES = ("datetime", "date")  # Table Schema types Arrow would reinterpret; see `verbatim_paths`
# every text Arrow's JSON reader may read as a timestamp matches this (a date, then a time and an offset): it alone is
# parsed by Arrow to decide (`_needs_json`)
ISO_LIKE = r"^\d{4}-\d\d-\d\d([T ][\d:.]*)?(Z|[+-][\d:]*)?$"
_FORMATS = {"datetime": "RFC 3339 date-time with UTC offset", "date": "date, YYYY-MM-DD"}


def status(release: Release) -> str:
    """The status statement every face of the release opens with: synthetic specimen or real release, or, when
    the release says how its records were made (`provenance` in its format's block, e.g. a converted dataset), that."""
    version = release.version
    synthetic, provenance = release.params.get("synthetic"), " ".join(release.params.get("provenance", "").split())
    if provenance:
        if synthetic:
            return f"> **Synthetic release (version {version}).** {provenance}"
        return f"> **{release.TITLE} release {version}.** {provenance} Read the personal-information section before use."
    return part(release.BLOCK, "status")(release)


# -- the YAML header ----------------------------------------------------------

def features(release: Release, name: str):
    """`datasets.Features` of one resource, from the Arrow schema the package itself reads with, each field of
    `verbatim_paths` declared `Json`."""
    import datasets

    feats = datasets.Features.from_arrow_schema(release.arrow_schema(name))
    for path in verbatim_paths(release, name):
        feats = _as_json(feats, path)
    return feats


def _as_json(feature, path: list):
    """`feature` with the member at `path` (keys, 0 for a list's items) declared `Json`."""
    import datasets

    if not path:
        return datasets.Json()
    head, *rest = path
    if head == 0:
        feature.feature = _as_json(feature.feature, rest)
    else:
        feature[head] = _as_json(feature[head], rest)
    return feature


def verbatim_paths(release: Release, name: str) -> Iterator[list]:
    """Where the card declares `Json` (datasets' JSON field paths: a key, or 0 for a list's items), date and
    datetime fields first.

    The `datasets` JSON reader lets Arrow infer every column before it applies the features, and Arrow reads a
    column of text that all looks like dates or timestamps as timestamps (dropping an offset; a date becomes a
    midnight), which a cast back to string cannot undo. A `Json` field reaches Arrow as the JSON text of its value
    and is decoded on access, so every row (plain, streamed or through `realcompanion.load`) holds the file's own
    string. That is every date and datetime field, and every text, at the top level or nested, with a value Arrow
    would read as a timestamp (a fork's birthday field, a lone date answer; `_needs_json`).
    """
    table = release.table(name)
    typed = {f["name"] for f in release.table_schema(name)["fields"] if f.get("type") in VERBATIM_TYPES}
    yield from ([column] for column in table.column_names if column in typed)
    for column in table.column_names:
        if column not in typed:
            yield from (path for path, _, values in scalars(table.column(column), [column], positions=False)
                        if pa.types.is_string(values.type) and _needs_json(values))


def _needs_json(values: pa.ChunkedArray) -> bool:
    """Whether Arrow's JSON reader, inferring, may read these strings as timestamps, and a `Json` field keeps them.

    `datasets` reads a file in chunks (10 MiB by default) and Arrow infers each chunk's columns on its own: a chunk
    whose values of a field all look like dates is read as timestamps even when the file's other values do not. So
    one such value is enough, unless another value is itself JSON text ("42", "true"), which a `Json` field would
    decode into a number or a boolean: that column stays text.
    """
    values = values.drop_null()
    dated = values.filter(pc.match_substring_regex(values, ISO_LIKE)).to_pylist()
    if not any(pa.types.is_timestamp(pajson.read_json(io.BytesIO(json.dumps({"v": value}).encode())).schema[0].type)
               for value in dated):
        return False
    return not any(decodes(value) for value in values.to_pylist())


def decodes(text: str | bytes) -> bool:
    """Whether the JSON decoder `datasets` runs on each line of a file with a `Json` feature, and on each value of
    such a field, reads `text` (pandas' ujson: it reads "-" as 0, and no whole number past 64 bits)."""
    from pandas.io.json import ujson_loads

    try:
        ujson_loads(text)
    except Exception:  # noqa: BLE001 - whatever the decoder raises, it does not read the text
        return False
    return True


def size_category(total: int) -> str:
    return next((label for i, label in enumerate(SIZE_LABELS) if total < 10 ** (3 + i)), "n>1T")


def _one_or_list(values: list):
    return values[0] if len(values) == 1 else values


def header(release: Release) -> dict:
    """The generated keys of the card's YAML header (pretty_name: the package title up to its colon, ASCII or
    full-width as a Chinese title writes it)."""
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCardData

    other = off_hub(release)
    data = DatasetCardData(
        pretty_name=re.split("[:\uff1a]", stated(release, "title"), maxsplit=1)[0].strip(),
        license=_one_or_list([hub_licence(name) or "other" for name in licences(release)]),
        license_name=other and other["name"], license_link=other and other["link"],
        tags=list(release.descriptor.get("keywords", [])),
        size_categories=size_category(sum(release.table(name).num_rows for name in release.resources)),
    )
    MetadataConfigs({
        name: {"data_files": [{"split": SPLIT, "path": _literal(release.resource(name)["path"])}]}
        for name in release.resources
    }).to_dataset_card_data(data)
    DatasetInfosDict({name: _info(release, name) for name in release.resources}).to_dataset_card_data(data)
    return {key: data[key] for key in GENERATED_KEYS} | release.card_header()


def _literal(path: str) -> str:
    """`path` as a `datasets` data_files pattern matching that one file: the glob it goes through (fsspec's, locally
    and on the Hub) reads `*`, `?` and `[` as wildcards, so `data/qa[1].jsonl` would load `data/qa1.jsonl`; each is
    bracketed (`[[]` matches a `[`)."""
    return re.sub(r"[*?[]", lambda found: f"[{found[0]}]", path)


def _info(release: Release, name: str):
    """A config's features and its split's size: records (which `datasets` checks on loading), Arrow bytes as the
    package reads the file, and the file's own size as the download size."""
    from datasets.info import DatasetInfo
    from datasets.splits import SplitDict, SplitInfo

    table = release.table(name)
    splits = SplitDict()
    splits.add(SplitInfo(name=SPLIT, num_examples=table.num_rows, num_bytes=table.nbytes))
    return DatasetInfo(features=features(release, name), splits=splits, dataset_size=table.nbytes,
                       download_size=release.path(name).stat().st_size)


# -- generated blocks of the card ---------------------------------------------

def _walk(release: Release, node: dict, prefix: str, inside: tuple[str, ...] = ()):
    """(dotted name, schema node) for a field and, depth first, every member of its objects ($ref resolved;
    `inside`, the nested schemas followed: `Schemas.follow`)."""
    target, node = release.schemas.follow(node, inside)
    inside = inside if target is None else (*inside, target)
    yield prefix, node
    for key, member in node.get("properties", {}).items():
        yield from _walk(release, member, f"{prefix}.{key}", inside)


def members(release: Release, name: str):
    """(dotted name, schema node, nullable) for every field of a resource and every member of its structs."""
    for field in release.table_schema(name)["fields"]:
        for dotted, node in _walk(release, field, field["name"]):
            kind = node.get("type")
            nullable = (not field.get("constraints", {}).get("required") if dotted == field["name"]
                        else isinstance(kind, list) and "null" in kind)
            yield dotted, node, nullable


def _type_label(feature) -> str:
    if isinstance(feature, dict):
        return "struct"
    if hasattr(feature, "feature"):
        return f"list<{_type_label(feature.feature)}>"
    return getattr(feature, "dtype", "string (json)")


def _values(release: Release, node: dict) -> str:
    from .schemas import enum_of

    if "vocabulary" in node:
        values = enum_of(release.schemas.vocabulary, node["vocabulary"])
        listed = ", ".join(f"`{v}`" for v in values) if len(values) <= MAX_LISTED else f"{len(values)} values"
        return f"{listed} (vocabulary `{node['vocabulary']}`)"
    if "identifier" in node or "identifier" in node.get("items", {}):
        return f"identifier `{node.get('identifier') or node['items']['identifier']}`"
    return _FORMATS.get(node["type"], "") if isinstance(node.get("type"), str) else ""


def field_tables(release: Release) -> str:
    parts = []
    for name in release.resources:
        feats = features(release, name)
        rows = [{"field": f"`{dotted}`", "type": _type_label(reduce(getitem, dotted.split("."), feats)),
                 "null": "yes" if nullable else "", "values": _values(release, node),
                 "description": node.get("description") or ""}
                for dotted, node, nullable in members(release, name)]
        described = release.resource(name).get("description") or "(no description)"
        parts.append(f"#### `{name}`\n\n{described}\n\n{markdown_table(rows)}\n")
    return "\n".join(parts)


def configs(release: Release) -> str:
    owner, label = release.OWNER
    rows = [{"config": f"`{name}`", "file": f"`{release.resource(name)['path']}`",
             "records": release.table(name).num_rows,
             label: len(release.table(name).column(owner).unique()) if owner in release.table(name).column_names
             else ""}
            for name in release.resources]
    return markdown_table(rows)


def citation(release: Release) -> str:
    """The version statement and the citations `realcompanion cite` prints, without the git revision."""
    from .publish.cite import Citation, apa, bibtex

    cited = Citation.of(release, revision_from_git=False)
    return "\n".join([
        f"This card describes **release {release.version}** (released {released(release)}, format "
        f"{release.params.get('format_version')}). Cite the paper and the release version you used "
        "(`realcompanion cite` adds the git revision):",
        "", "**BibTeX:**", "", "```bibtex", bibtex(cited).strip(), "```", "", "**APA:**", "", apa(cited).strip(),
    ])


def licences(release: Release) -> list[str]:
    """The licence ids of datapackage.json (`licenses[].name`, such as CC-BY-4.0). The card's header and CITATION.cff
    name a licence by its SPDX id (CITATION.cff's schema allows no other), so one given only by its `path`, which
    Data Package allows, is named as missing, and a name that is not an SPDX id (`Proprietary`, `cc-by-nc-4.0`,
    `MIT OR Apache-2.0`) as such: the SPDX list is `packaging`'s."""
    from packaging.licenses import InvalidLicenseExpression, canonicalize_license_expression

    names = [lic.get("name") for lic in stated(release, "licenses")]
    for n, name in enumerate(names):
        if not name:
            raise ReadError(release.root / "datapackage.json", "a licence without its id ('name', such as "
                            "CC-BY-4.0), which the card's header and CITATION.cff state", field=f"licenses.{n}.name")
        try:
            spdx = canonicalize_license_expression(name) if isinstance(name, str) else None
        except InvalidLicenseExpression:
            spdx = None
        if spdx != name or " " in name:
            hint = f" (its SPDX id is {spdx})" if spdx and " " not in spdx else ""
            raise ReadError(release.root / "datapackage.json", f"licence '{name}' is not an SPDX licence id{hint}, "
                            "which the card's header and CITATION.cff state", field=f"licenses.{n}.name")
    own_terms(release)
    return names


def own_terms(release: Release) -> dict | None:
    """The licence of the dataset's own terms (`LicenseRef-NAME`), or None. Neither the Hub's licence list nor CFF's
    names such a licence: the card's header says `other` with `license_name` and `license_link`, CITATION.cff gives
    `license-url`, and each holds one, so it needs its `path` and is the only one."""
    own = [(n, lic) for n, lic in enumerate(stated(release, "licenses")) if str(lic.get("name")).startswith(OWN_TERMS)]
    if not own:
        return None
    (n, lic), descriptor = own[0], release.root / "datapackage.json"
    if len(own) > 1:
        raise ReadError(descriptor, f"a second licence not on the SPDX list ({own[1][1]['name']}): the card's header "
                        "and CITATION.cff link to one", field=f"licenses.{own[1][0]}.name")
    if not isinstance(lic.get("path"), str) or not lic["path"]:
        raise ReadError(descriptor, f"licence '{lic['name']}' is not on the SPDX list, so the card's header and "
                        "CITATION.cff link to its terms: give their URL", field=f"licenses.{n}.path")
    return lic


def hub_licence(name: str) -> str | None:
    """The Hub's identifier of an SPDX licence id (`ODC-By-1.0`: `odc-by`), or None where its list has none."""
    spdx = re.sub("-(only|or-later)$", "", name.lower())
    spdx = HUB_NAMES.get(spdx, "gfdl" if spdx.startswith("gfdl-") else spdx)
    return spdx if spdx in HUB_LICENSES else None


def off_hub(release: Release) -> dict | None:
    """The licence the Hub's list does not name, which the card's header gives beside `license: other` as
    `license_name` (the SPDX id in lower case, a publisher's own terms without `LicenseRef-`) and `license_link`
    (its `path`, or an SPDX licence's page on spdx.org), or None. The header gives one such licence."""
    names = licences(release)  # a publisher's own terms have their `path` (`own_terms`)
    off = [(n, name) for n, name in enumerate(names) if not hub_licence(name)]
    if len(off) > 1:
        raise ReadError(release.root / "datapackage.json", f"a second licence the Hub's licence list does not name "
                        f"({off[1][1]}, after {off[0][1]}): a card's header links to one",
                        field=f"licenses.{off[1][0]}.name")
    if not off:
        return None
    n, name = off[0]
    link = stated(release, "licenses")[n].get("path") or f"https://spdx.org/licenses/{name}.html"
    return {"name": name.removeprefix(OWN_TERMS).lower(), "link": link}


def renderers(release: Release) -> dict[str, Callable[[], str]]:
    blocks = {"status": status, "configs": configs, "fields": field_tables, "citation": citation}
    return {name: partial(render, release) for name, render in blocks.items()}


# -- check and write ----------------------------------------------------------

def _cff_fixes(release: Release, current: dict) -> dict:
    """CITATION.cff keys that disagree with datapackage.json, with the value they should have."""
    from datetime import date

    listed = [name for name in licences(release) if not name.startswith(OWN_TERMS)]
    own = own_terms(release)
    want = {"version": release.version, "date-released": date.fromisoformat(released(release)),
            "license": _one_or_list(listed) if listed else None, "license-url": own and own["path"]}
    return {key: value for key, value in want.items() if str(current.get(key)) != str(value)}


def read_card(path, text: str | None = None):
    """The card at `path` (or its `text`) as a `huggingface_hub.DatasetCard`; an unreadable YAML header is a
    ReadError. A card without a header reads as one with an empty header (`_render` calls that stale)."""
    import yaml
    from huggingface_hub import DatasetCard

    quiet = logging.getLogger("huggingface_hub.repocard")
    level, quiet.level = quiet.level, logging.ERROR
    try:
        return DatasetCard(read_text(path) if text is None else text)
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        raise ReadError(path, f"YAML header unreadable ({str(exc).splitlines()[0]})") from None
    finally:
        quiet.setLevel(level)


def languages(release: Release) -> list[str] | None:
    """The languages the card's header states (`language`, the Hub's key, one or a list), or None."""
    stated = read_card(release.root / CARD).data.get("language")
    return [stated] if isinstance(stated, str) else stated or None


def _render(release: Release) -> tuple[str, list[str], dict | None]:
    """README.md as it should read, what is stale in it and in CITATION.cff, and CITATION.cff's data as it
    should read when that is stale (None when current); the file is read once for both."""
    path = release.root / CARD
    before = read_text(path)
    card = read_card(path, before)
    generated = header(release)
    stale = [f"{CARD} header: {key}" for key, value in generated.items() if card.data.get(key) != value]
    for key, value in generated.items():
        card.data[key] = value
    card.text, blocks = fill_blocks(card.text, renderers(release))
    stale += [f"{CARD} block: {name}" for name in blocks]
    cited = cff(release.root)
    fixes = _cff_fixes(release, cited)
    stale += [f"{CITATION}: {key}" for key in fixes]
    text = str(card)
    if text != before and not stale:
        stale.append(f"{CARD} header: layout")
    return text, stale, {key: value for key, value in (cited | fixes).items() if value is not None} if fixes else None


def check(release: Release) -> list[str]:
    """What in README.md / CITATION.cff disagrees with the files of an open release (empty = current)."""
    return _render(release)[1]


def stale(root) -> list[str]:
    """`check` of the release at `root`."""
    return check(open_release(root))


def write(root) -> list[str]:
    """Rewrite README.md's generated parts and CITATION.cff's version, date and licence; returns what was stale."""
    release = open_release(root)
    text, stale_parts, cited = _render(release)
    write_own(release.root, CARD, text)
    if cited:
        write_own(release.root, CITATION, dump_cff(cited))
    return stale_parts
