"""Where this repository's own release lives.

The repository is the dataset: the generator uses its `datapackage.json` and
`schemas/` as the template of every release it writes. The package is meant to
be installed from a clone (`pip install -e .`), so the root is found from here.
"""
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
