"""Benchmark data releases in the formats of the registry (`formats`): their validator, loader, generators and
reference scorers; the package bears its first format's name."""
__version__ = "0.1.0"

_LAZY = {"load": "loader", "frames": "loader"}


def __getattr__(name):
    """`realcompanion.load` / `realcompanion.frames`, imported on first use so `import realcompanion` stays light."""
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    """The lazy `load` and `frames` listed beside the module's own names (tab completion, `help`)."""
    return sorted([*globals(), *_LAZY])
