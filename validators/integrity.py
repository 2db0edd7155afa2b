"""Integrity and safety: the files are the ones declared, stay inside the package, are data, and leak nothing obvious."""
from __future__ import annotations

import pandas as pd

from realcompanion.refresh import STALE
from realcompanion.schemas import RESOURCES
from realcompanion.stamp import sha256_of

from .catalogue import combined, failure_rows, failures, release_rule

CODE_SUFFIXES = {".py", ".pyc", ".pkl", ".pickle", ".joblib", ".pt", ".pth", ".npy", ".npz", ".so", ".sh", ".exe"}
PICKLE_MAGIC = (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05")
PII_PATTERNS = {
    "e-mail address": r"[\w.+-]+@[\w-]+\.[\w.-]+",
    "phone number": r"\+?\(?\d{2,4}\)?[ .-]\d{3,4}[ .-]\d{3,4}",
    "URL with query string": r"https?://\S+\?\S+=",
}
PII_FIELDS = {"source": ["text"], "profile": ["text"], "persona": ["value"], "chat": ["probe", "gold_response"],
              "qa": ["question", "answer"]}


@release_rule("INT1", "error", "integrity", (), "every data file's sha256 matches realcompanion.sha256 in datapackage.json")
def hashes(ctx) -> pd.DataFrame:
    declared = ctx.params.get("sha256", {})
    rows = []
    for name in ctx.release.resources:
        path = ctx.release.resource(name)["path"]
        actual = sha256_of(ctx.release.path(name))
        if declared.get(path) != actual:
            rows.append(("", path, "sha256", actual[:16], f"declared {str(declared.get(path))[:16]} ({STALE})"))
    return failure_rows(rows)


@release_rule("INT2", "error", "integrity", RESOURCES, "every resource's row count matches realcompanion.rows")
def row_counts(ctx) -> pd.DataFrame:
    declared = ctx.params.get("rows", {})
    return failure_rows([(name, name, "rows", ctx.table(name).num_rows, f"declared {declared.get(name)} ({STALE})")
                  for name in ctx.release.resources if declared.get(name) != ctx.table(name).num_rows])


def escapes(release) -> list[tuple[str, str]]:
    """Resource paths that leave the package folder; checked before any file is read."""
    root = release.root.resolve()
    out = []
    for res in release.descriptor.get("resources", []):
        path = str(res.get("path", ""))
        target = (release.root / path).resolve()
        if "://" in path or path.startswith("/") or not target.is_relative_to(root):
            out.append((res.get("name", "?"), path))
    return out


@release_rule("INT3", "error", "integrity", (), "no resource path escapes the package folder (absolute, .., link or URL)")
def contained(ctx) -> pd.DataFrame:
    return failure_rows([(name, path, "path", path, "resource path leaves the package folder")
                  for name, path in escapes(ctx.release)])


@release_rule("INT4", "error", "integrity", (),
              "no data file is code or a pickle, and the release has no loading script")
def data_not_code(ctx) -> pd.DataFrame:
    root = ctx.release.root
    data_files = [p for p in (root / "data").rglob("*") if p.is_file()] if (root / "data").is_dir() else []
    rows = [("", str(p.relative_to(root)), "path", p.suffix, "code or serialized object among data files")
            for p in data_files if p.suffix in CODE_SUFFIXES or _is_pickle(p)]
    rows += [("", p.name, "path", p.suffix, "loading script at the release root")
             for p in root.glob("*.py")]
    return failure_rows(rows)


def _is_pickle(path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(2) in PICKLE_MAGIC


@release_rule("PII1", "warning", "privacy", RESOURCES,
              "personal-data screen: no e-mail address, phone number, URL with query string or long digit run in text")
def personal_data(ctx) -> pd.DataFrame:
    patterns = dict(PII_PATTERNS, **{"long digit run": rf"\d{{{ctx.params['pii_digit_run']},}}"})
    parts = []
    for name, fields in PII_FIELDS.items():
        frame, ids = ctx.frame(name), ctx.row_ids(name)
        for field in fields:
            text = frame[field].fillna("")
            text = text[text.str.contains("|".join(patterns.values()), regex=True)]  # one pass, then name it
            for label, pattern in patterns.items():
                hit = text.str.contains(pattern, regex=True)
                if hit.any():
                    found = text[hit].str.extract(f"({pattern})")[0]
                    parts.append(failures(name, ids.loc[found.index], field, found, f"looks like a {label}"))
    return combined(parts)


@release_rule("NUL1", "warning", "coverage", ("profile",),
              "allowed nulls are counted: profile claims without evidence, or without first_seen / last_seen")
def allowed_nulls(ctx) -> pd.DataFrame:
    profile = ctx.frame("profile")
    parts = [failures("profile", profile["claim_id"][bad], field, "null", message) for field, bad, message in (
        ("evidence", profile["evidence"].isna(), "claim cites no message"),
        ("first_seen", profile["first_seen"].isna() | profile["last_seen"].isna(), "observation window not recorded"),
    )]
    return pd.concat(parts)
