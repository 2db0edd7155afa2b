"""Integrity, counts and privacy: declared hashes, rows and instance counts; contained paths; no code; PII screen."""
from __future__ import annotations

import pandas as pd

from realcompanion.formats.groupassist import RESOURCES
from realcompanion.names import stale_count

from ..catalogue import failure_rows
from ..documents import STATEMENT, documents_whole
from ..integrity import (
    DIGESTS,
    SYNTHETIC_LABELS,
    contained,
    data_not_code,
    declared_rows,
    hashes,
    loaded_as_written,
    schema_copies,
    standard_counts,
    synthetic_labelled,
    unread,
)
from ..kept import definitions_kept, format_rules_kept
from ..personal import PII_PATTERNS, digit_run, screened
from .catalogue import rule

# Read as `personal` reads text: a number in Chinese numerals is in digits. A resident ID number may be split after
# its region (6 digits) and birth date (8), or in fours; a landline is an area code from 0, then 7 or 8 digits
# (split after the third or fourth).
PII_PATTERNS_ZH = {"mainland mobile number": r"(?<!\d)1[3-9]\d{9}(?!\d)",
                   "resident ID number": r"(?<!\d)\d{6}[ -]?\d{4}[ -]?\d{4}[ -]?\d{3}[\dXx](?![\dXx])",
                   "mainland landline number": r"(?<!\d)(?:\(0\d{2,3}\)|0\d{2,3})[ -]?\d{3,4}[ -]?\d{4}(?!\d)"}

rule("GI3", "error", "integrity", (), "no resource path escapes the package folder (absolute, .., link or URL)",
      "GROUPASSIST.md §3 (no path escapes; SPEC §4)")(contained)
rule("GI4", "error", "integrity", (), "no data file is code or a pickle, and the release has no loading script",
      "GROUPASSIST.md §3 (no code; SPEC §4)")(data_not_code)
rule("GI7", "error", "integrity", (),
     "the rules file declares each of the format's own declared rules (validators/groupassist/format_rules.json) "
     "as the format does: a fork adds rules under new ids, it cannot drop or loosen these",
     "App. D (what the format's declared rules check); docs/forking.md (a fork adds rules)")(format_rules_kept)
rule("GI8", "error", "integrity", (),
     "the release's schemas define each core field as the format does (validators/groupassist/format_schemas.json): "
     "type, vocabulary, identifier, constraints kept or tightened, keys, missing values, vocabularies and identifier "
     "patterns; a fork adds fields and vocabularies, it cannot loosen these",
     "GROUPASSIST.md §2 (resources and fields); docs/forking.md (a fork adds fields)")(definitions_kept)
rule("GI6", "error", "integrity", (),
     "the enum and pattern copies in schemas/ are those of the vocabulary (the check `realcompanion schemas` runs)",
     "GROUPASSIST.md §3 (integrity as in the RealCompanion format; one vocabulary file, SPEC §1)")(schema_copies)


rule("GI1", "error", "integrity", (), DIGESTS.format(block="groupassist"),
     "GROUPASSIST.md §3 (integrity as in the RealCompanion format; SPEC §1, §4); Data Package v2 (resource hash)")(hashes)

rule("GI11", "error", "integrity", (), STATEMENT,
     "GROUPASSIST.md §5 (a self-contained folder: its own README.md card and DATASHEET.md); docs/validating.md (what "
     "the writers promise)")(documents_whole)

rule("GI9", "warning", "integrity", RESOURCES,
     "every number loads with datasets.load_dataset as the file writes it: in a resource whose card declares a Json "
     "field, datasets re-encodes each row to 10 decimal places (0.876543210987654 loads as 0.876543211, -0.0 as 0.0)",
     "GROUPASSIST.md §5 (a data package folder like the RealCompanion release); SPEC §1 (datasets.load_dataset "
     "loads every config, offline, typed)")(loaded_as_written)
rule("GI10", "warning", "integrity", (),
     "every file under data/ and schemas/ is one the release reads, a resource's data file or a schema: another (a "
     "fork's resource left out of datapackage.json) is neither validated nor published",
     "GROUPASSIST.md §3 (integrity as in the RealCompanion format; SPEC §1, §4)")(unread)

rule("GI12", "warning", "integrity", (), SYNTHETIC_LABELS.format(block="groupassist"),
     "GROUPASSIST.md §5 (a synthetic specimen from the project's generator; the real group chats' records); SPEC §1 "
     "(labelled synthetic everywhere it shows)")(synthetic_labelled)


@rule("GI2", "error", "integrity", RESOURCES,
      "row counts match groupassist.rows (and a resource's Data Package `rows` and `fields`, when declared), messages "
      "and instances per group groupassist.groups, and instances by split and level groupassist.instances",
      "App. D, Table 10 (counts, per group); GROUPASSIST.md §3; Data Package v2 (resource rows)")
def counts(ctx) -> pd.DataFrame:
    out = declared_rows(ctx) + standard_counts(ctx)
    groups = ctx.params.get("groups", {})
    for name in ("messages", "instances"):
        have = {c["values"]: c["counts"] for c in ctx.table(name).column("group_id").drop_null().value_counts().to_pylist()}
        want = {g: per[name] for g, per in groups.items() if name in per}
        out += [(name, g, "", have.get(g, 0), stale_count(want.get(g), f"{name} in the group", g in have))
                for g in sorted(set(have) | set(want)) if have.get(g) != want.get(g)]
    inst = ctx.frame("instances")
    have = inst.groupby(["split", "level"]).size().to_dict()
    declared = {(s, lv): n for s, levels in ctx.params.get("instances", {}).items() for lv, n in levels.items()}
    out += [("instances", f"{s}/{lv}", "", have.get((s, lv), 0), stale_count(declared.get((s, lv)), "instances",
                                                                           (s, lv) in have))
            for s, lv in sorted(set(have) | set(declared)) if have.get((s, lv)) != declared.get((s, lv))]
    return failure_rows(out)


@rule("GI5", "warning", "privacy", RESOURCES,
      "personal-data screen in both languages: e-mail, phone, social security, resident ID, mobile or landline number, "
      "URL with query, long digit run, in any free-text value (a fork's too, at any depth) or document the release "
      "ships, read as a person reads it (invisible characters dropped, look-alike forms and numerals as what they show)",
      "GROUPASSIST.md §3 (personal-data screen in both languages; SPEC §4)")
def personal_data(ctx) -> pd.DataFrame:
    return screened(ctx, PII_PATTERNS | PII_PATTERNS_ZH | digit_run(ctx))
