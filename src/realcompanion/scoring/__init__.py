"""Reference scoring of a RealCompanion release (SPEC §5; paper Tables 3-6, 28-44).

Gold sets, pools and populations are defined once, in `gold`; the scorer's
fixed settings (cut-offs, context sizes, windows) once, in `settings`; release
parameters such as `recent_window` are always read from the release's
`datapackage.json`. Every report carries the release version, the format
version and every parameter it used. Nothing here imports a heavy library at
module level, so the command line starts fast.
"""
