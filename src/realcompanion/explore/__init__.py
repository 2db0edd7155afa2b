"""The release explorer: a release as a Datasette site, with a page per conversation, per record and for validation.

`database.py` copies a release into SQLite with sqlite-utils (keys, foreign keys, full-text search, the messages
each record cites, the validation report); `site.py` lays that database out as a Datasette configuration directory
(database, metadata with facets, templates, the `pages` plugin); `pages.py` is that plugin. What a format shows —
which resource is the conversation, which records have pages, what their probe or cutoff is — is the format's
`view` (registered in `formats.PARTS`); everything else is read from the Table Schemas.
"""
