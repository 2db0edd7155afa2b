"""RealCompanion's own rules: gates, signals, arithmetic and validity, with the format's declared rules
(`format_rules.json`) and core definitions (`format_schemas.json`), which every release of it keeps (INT6, INT7)."""

from pathlib import Path

FORMAT_RULES = Path(__file__).with_name("format_rules.json")
FORMAT_SCHEMAS = Path(__file__).with_name("format_schemas.json")
