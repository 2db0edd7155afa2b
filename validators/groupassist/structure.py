"""Structure: declared fields and types, Table Schema constraints, relationships and timestamps."""
from __future__ import annotations

from realcompanion.formats.groupassist import RESOURCES

from ..resources import foreign_keys, header
from ..structure import calendar, declared_fields, not_blank, table_constraints
from .catalogue import rule

STRUCTURE_RULES = ("GS1", "GS2", "GS4")  # their failing rows are set aside from the other rules

rule("GS1", "error", "structure", RESOURCES,
     "every record has only declared fields, each of its declared type (a field a record after the first omits "
     "reads as null, as Frictionless and datasets read it)",
     "GROUPASSIST.md §1-§2 (resources and field types)")(declared_fields)


rule("GS2", "error", "structure", RESOURCES,
     "every field meets its Table Schema constraints: required, enum, pattern, range, unique, primary key",
     "GROUPASSIST.md §2 (fields and their constraints)")(table_constraints)


rule("GS3", "error", "structure", RESOURCES,
     "every foreign key the Table Schemas declare resolves (to instances and messages; a fork's keys too)",
     "GROUPASSIST.md §1 (resources and their keys)")(foreign_keys)


rule("GS4", "error", "structure", RESOURCES,
     "every date is a calendar day and every datetime RFC 3339 with an explicit UTC offset on a calendar day, "
     "T and Z upper-case",
     "GROUPASSIST.md §2 (timestamp)")(calendar)


rule("GS5", "error", "structure", RESOURCES,
     "every file has a first record, and it names each declared field once, in schema order (Frictionless reads "
     "it as the header)", "GROUPASSIST.md §1 (one JSON record per line; Frictionless validates the same files)")(header)


rule("GS7", "error", "structure", RESOURCES,
     "a text field whose schema asks for content (minLength) is not blank: whitespace alone states nothing (a span "
     "of it is found in nearly any message)",
     "GROUPASSIST.md §2 (fields and their constraints); App. A.6, gate ii (a span is evidence)")(not_blank)
