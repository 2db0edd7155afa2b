"""The GroupAssistBench rule catalogue: gates (i)-(v), construction invariants, integrity and privacy.

Same model as the RealCompanion catalogue: each rule declared once with id, severity, family and a
one-line statement, returning its failing rows; parameters come from the descriptor's `groupassist` block.
"""

from pathlib import Path

FORMAT_RULES = Path(__file__).with_name("format_rules.json")  # the declared rules every release keeps (GI7)
FORMAT_SCHEMAS = Path(__file__).with_name("format_schemas.json")  # the core definitions every release keeps (GI8)
