"""Scoring machinery every format's scorer shares: the JSON Lines files users bring, judges and embeddings behind an
OpenAI-compatible endpoint, verdicts files, participant (or group) intervals, BM25, reports and figures.

A format's own scorer lives in its folder (formats/<name>/: the first format's gold sets, pools and populations
defined once in `gold`, the method's fixed settings once in `settings`). Release parameters such as
`recent_window` are always read from the release's `datapackage.json`. Every report carries the release version,
the format version and every parameter it used. Nothing here imports a heavy library at module level, so the
command line starts fast.
"""
