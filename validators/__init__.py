"""The release rules (`realcompanion.validators`): one catalogue, every rule declared once.

Importing this package registers every rule module; `run.validate(path)` runs them.
"""
