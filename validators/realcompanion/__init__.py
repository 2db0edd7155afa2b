"""RealCompanion's own rules: gates, signals, arithmetic and validity, with the format's declared rules
(`format_rules.json`) and core definitions (`format_schemas.json`)."""
