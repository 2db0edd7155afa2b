"""Publishing a release: the file plan, the gate it must pass, the Hub upload, Croissant metadata, diffs and citations.

Each step reads the release folder (datapackage.json, schemas/, the card and the
citation file) and nothing else, so a fork publishes its extension the same way.
"""
