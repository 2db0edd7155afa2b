"""RealCompanion's ids for the checks both formats run: the structure, key, document and integrity checks of the
engine (validators/structure.py, resources.py, documents.py, integrity.py) declared as this format's rules, with its
statements and sources. GroupAssistBench declares the same checks under its own ids (validators/groupassist/).

Each check keeps its place in the rules list by its own module (`Catalogue.order`), so listing them here changes no
order.
"""
from __future__ import annotations

from realcompanion.schemas import RESOURCES

from .. import documents, integrity, kept, resources, structure
from .catalogue import frame_rule, release_rule

# structure.py
release_rule("SCH1", "error", "structure", RESOURCES,
             "every record has only declared fields, each of its declared type (a field a record after the first "
             "omits reads as null, as Frictionless and datasets read it)",
             "Table 11 (the five files); Tables 12, 13 (fields); SPEC §3")(structure.declared_fields)
release_rule("SCH2", "error", "structure", RESOURCES,
             "every field meets its Table Schema constraints: required, enum, pattern, range, unique, primary key",
             "Tables 12, 13 (fields); SPEC §2 (identifiers), §3")(structure.table_constraints)
release_rule("SCH3", "error", "structure", RESOURCES,
             "every nested field (lists, required_context, memory_bearing, trace) matches its JSON Schema",
             "Table 13 (required_context, trace); Table 16 (what each phase writes); SPEC §3")(structure.nested_fields)
release_rule("ID1", "error", "structure", RESOURCES,
             "every record's own identifier carries its participant_id as prefix",
             "SPEC §2 (identifiers)")(structure.own_participant)
frame_rule("FLD1", "error", "structure", "source", "text",
           "a message's text is empty only when it carries a media marker",
           "Table 11 (source: every message, with its media marker); SPEC §3")(structure.text_or_media)
release_rule("FLD3", "error", "structure", RESOURCES,
             "a text field whose schema asks for content (minLength) is not blank: whitespace alone states nothing",
             "Table 12 (text: the claim); Table 27 and SPEC §3 (question; answer, never empty); Table 25, Arithmetic "
             "(the unanswerable count reconciles)")(structure.not_blank)
release_rule("FLD2", "error", "structure", RESOURCES,
             "every date is a calendar day (YYYY-MM-DD) and every datetime RFC 3339 with an explicit UTC offset on a "
             "calendar day, T and Z upper-case (a timestamp's date is the participant's local day)",
             "Table 11 (source: timestamp); Table 12 (first_seen, last_seen); SPEC §3")(structure.calendar)
release_rule("FMT1", "error", "structure", (),
             "format_version names a format this validator knows, and the release's copies of that format's "
             "constants (the parameters that decide VALID) equal them",
             "SPEC §1 (release-level parameters); Table 9 (the validity conditions they decide)")(structure.format_constants)

# resources.py
release_rule("KEY1", "error", "structure", RESOURCES,
             "every foreign key a Table Schema declares (foreignKeys) resolves to a row of the resource it names",
             "SPEC §2 (identifiers: every reference resolves); SPEC §6 (a fork's resources are validated)")(resources.foreign_keys)
release_rule("HDR1", "error", "structure", RESOURCES,
             "every file has a first record, and it names each declared field once, in schema order (Frictionless "
             "reads it as the header; null where there is no value)",
             "SPEC §1 (one JSON record per line; Frictionless validates the same files)")(resources.header)

# documents.py
release_rule("DOC1", "error", "integrity", (), documents.STATEMENT,
             "SPEC §1 (what ships: the card with its YAML header, the datasheet); docs/validating.md (what the "
             "writers promise)")(documents.documents_whole)

# integrity.py
release_rule("INT1", "error", "integrity", (), integrity.DIGESTS.format(block="realcompanion"),
             "SPEC §1 (a sha256 per data file), §4 (integrity and safety); Data Package v2 (resource hash)")(integrity.hashes)
release_rule("INT2", "error", "integrity", RESOURCES,
             "every resource's row count matches realcompanion.rows, and its Data Package `rows` and `fields` in "
             "datapackage.json, when declared",
             "Table 11 (corpus totals); SPEC §4; Data Package v2 (resource rows)")(integrity.row_counts)
release_rule("INT3", "error", "integrity", (),
             "no path of the package leaves its folder (absolute, .., URL, or a link to a file outside)",
             "SPEC §4 (integrity and safety)")(integrity.contained)
release_rule("INT4", "error", "integrity", (),
             "no file under data/ or schemas/ is code, a notebook or a pickle (by name or content, also inside "
             "gzip and zip), and the release has no loading script",
             "SPEC §1, §4 (no loading script, no pickle)")(integrity.data_not_code)
release_rule("INT5", "error", "integrity", (),
             "the enum and pattern copies in schemas/ are those of the vocabulary (the check `realcompanion schemas` runs)",
             "SPEC §1 (one vocabulary, declared once in schemas/)")(integrity.schema_copies)
release_rule("INT6", "error", "integrity", (),
             "the rules file declares each of the format's own declared rules "
             "(validators/realcompanion/format_rules.json) as the format does: a fork adds rules under new ids, it "
             "cannot drop or loosen these",
             "the tables the format's declared rules cite (Tables 3, 11, 12, 13, 25, 27: Table 3 for SIG1); "
             "docs/forking.md (a fork adds rules)")(kept.format_rules_kept)
release_rule("INT7", "error", "integrity", (),
             "the release's schemas define each core field as the format does "
             "(validators/realcompanion/format_schemas.json): type, vocabulary, identifier, nested schema, "
             "constraints kept or tightened, keys, missing values, the nested schemas, vocabularies and identifier "
             "patterns; a fork adds fields and vocabularies, it cannot loosen these",
             "SPEC §3 (the fields, their types and vocabularies: Tables 11-27); docs/forking.md (a fork adds fields)"
             )(kept.definitions_kept)
release_rule("PII1", "warning", "privacy", RESOURCES,
             "personal-data screen: no e-mail address, phone or US social security number, URL with query string or "
             "long digit run in any free-text value (a fork's too, at any depth) or document the release ships, read "
             "as a person reads it (invisible characters dropped, look-alike forms and numerals as what they show)",
             "SPEC §4 (personal-data screen)")(integrity.personal_data)
release_rule("INT8", "warning", "integrity", RESOURCES,
             "every number loads with datasets.load_dataset as the file writes it: in a resource whose card declares a "
             "Json field, datasets re-encodes each row to 10 decimal places (0.876543210987654 loads as 0.876543211, "
             "-0.0 as 0.0)",
             "SPEC §1 (datasets.load_dataset loads every config, offline, typed)")(integrity.loaded_as_written)
release_rule("NUL1", "warning", "coverage", ("profile",),
             "allowed nulls are counted: profile claims without evidence, or without first_seen / last_seen",
             "Table 12 (evidence on 3,579 of 3,580 claims; first_seen, last_seen on 3,109)")(integrity.allowed_nulls)
release_rule("INT9", "warning", "integrity", (),
             "every file under data/ and schemas/ is one the release reads, a resource's data file or a schema: "
             "another (a fork's resource left out of datapackage.json) is neither validated nor published",
             "SPEC §1 (the release is its files), §4 (integrity)")(integrity.unread)
release_rule("INT10", "warning", "integrity", (), integrity.SYNTHETIC_LABELS.format(block="realcompanion"),
             "SPEC §1 (the specimen labelled synthetic everywhere it shows: card, datasheet, datapackage.json; the "
             "real participants' files dropped into data/)")(integrity.synthetic_labelled)
