"""RealCompanion: the release format, its validator, loader, generator and reference scorer."""
__version__ = "0.1.0"

