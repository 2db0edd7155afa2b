"""`realcompanion baselines <GroupAssistBench folder>`: full context and BM25 top-k, per instance and by level x dependency.

Chinese and English text are scored separately (the language of evaluation is Chinese). Dense retrieval
is not part of this command yet.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from . import GroupAssistRelease
from .scoring import baselines


def run(args) -> int:
    release = GroupAssistRelease(args.path)
    k = release.params["retrieval_k"]
    out, text = {"package": release.descriptor.get("name"), "version": release.version,
                 "tokenizer": release.params["tokenizer"], "k": k, "languages": {}}, []
    for lang in ("zh", "en"):
        frame = baselines(release, k, lang)
        table = frame.groupby(["level", "dependency"]).mean(numeric_only=True)
        out["languages"][lang] = {"instances": frame.to_dict("records"),
                                  "by_level_dependency": table.reset_index().to_dict("records")}
        text += [f"{lang}: anchor recall and context tokens by level x dependency", table.round(3).to_string(), ""]
    if args.json == "-":
        json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        print("\n".join(text))
        if args.json:
            Path(args.json).write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0
