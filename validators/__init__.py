"""The release rules (`realcompanion.validators`): one catalogue, every rule declared once.

`catalogue.all_rules()` imports every rule module, which registers its rules; `run.validate(path)` runs them.
"""
