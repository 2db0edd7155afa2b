"""The GroupAssistBench rule catalogue: gates (i)-(v), construction invariants, integrity and privacy.

Same model as the RealCompanion catalogue: each rule declared once with id, severity, family and a
one-line statement, returning its failing rows; parameters come from the descriptor's `groupassist` block.
"""
