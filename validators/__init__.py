"""The release rules (`realcompanion.validators`): the one pass, the checks every format shares, and each format's
rules in a folder of its own (validators/<format>/), every rule declared once.

A format's `Catalogue` (<format>/catalogue.py) imports its rule modules, which register their rules; its `Runner`
(<format>/run.py, the registry's `runner`) runs them with `run.validate(path)`.
"""
