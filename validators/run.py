"""Run the catalogue over a release and collect one report.

Order: resource paths are checked before anything is read (INT3); each table is
read once (an unreadable file raises `ReadError`, exit 2); the structure rules
run; a resource with a structure error is withheld from the rules that read it
(they are reported as skipped, with the reason); frame rules run as pandera
checks, one schema per resource; release rules run as joins. Nothing is
written to the release folder.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from realcompanion.release import Release
from realcompanion.schemas import RESOURCES

from .catalogue import FAILURE_COLUMNS, Rule, select
from .context import Context
from .integrity import escapes
from .structure import STRUCTURE_RULES


@dataclass
class Outcome:
    rule: Rule
    failures: pd.DataFrame
    skipped: str | None = None
    crashed: bool = False

    @property
    def passed(self) -> bool:
        return self.skipped is None and self.failures.empty

    @property
    def fired(self) -> bool:
        """Found failing rows, or could not evaluate; a rule skipped behind a structure error has not fired."""
        return not self.failures.empty or self.crashed


@dataclass
class Report:
    package: str
    version: str
    format_version: str
    outcomes: list[Outcome] = field(default_factory=list)

    def count(self, severity: str) -> int:
        return sum(len(o.failures) for o in self.outcomes if o.rule.severity == severity)

    @property
    def errors(self) -> int:
        return self.count("error") + sum(1 for o in self.outcomes if o.crashed and o.rule.severity == "error")

    @property
    def warnings(self) -> int:
        return self.count("warning")

    def fired(self, severity: str | None = None) -> set[str]:
        """Ids of the rules that fired, optionally of one severity."""
        return {o.rule.id for o in self.outcomes if o.fired and severity in (None, o.rule.severity)}

    def failure_frame(self) -> pd.DataFrame:
        parts = [o.failures.assign(rule=o.rule.id, severity=o.rule.severity) for o in self.outcomes
                 if not o.failures.empty]
        if not parts:
            return pd.DataFrame(columns=["rule", "severity", *FAILURE_COLUMNS])
        return pd.concat(parts, ignore_index=True)[["rule", "severity", *FAILURE_COLUMNS]]

    def to_json(self) -> dict:
        failures = self.failure_frame().astype(object).where(lambda f: f.notna(), None)
        return {
            "package": self.package, "version": self.version, "format_version": self.format_version,
            "errors": self.errors, "warnings": self.warnings,
            "rules": [{"id": o.rule.id, "severity": o.rule.severity, "family": o.rule.family,
                       "statement": o.rule.statement, "passed": o.passed, "failures": len(o.failures),
                       "skipped": o.skipped} for o in self.outcomes],
            "failures": [{k: (None if v is None else (v if isinstance(v, (int, float)) else str(v)))
                          for k, v in row.items()} for row in failures.to_dict("records")],
        }


def _frame_outcomes(ctx: Context, resource: str, rules: list[Rule]) -> list[Outcome]:
    """All frame rules of one resource as checks of one pandera schema, evaluated lazily."""
    import pandera.pandas as pa
    from pandera.errors import SchemaErrors

    frame = ctx.frame(resource)
    checks = [pa.Check(lambda df, r=r: r.check(ctx, df).fillna(False).astype(bool), name=r.id) for r in rules]
    cases = pd.DataFrame(columns=["check", "index"])
    try:
        pa.DataFrameSchema(checks=checks).validate(frame, lazy=True)
    except SchemaErrors as exc:
        cases = exc.failure_cases.drop_duplicates(["check", "index"])
    ids = ctx.row_ids(resource)
    out = []
    for rule in rules:
        index = cases.loc[cases["check"] == rule.id, "index"].dropna().astype(int).to_numpy()
        head = rule.field.split(".")[0]
        values = frame[head].iloc[index].astype(str).str.slice(0, 80) if head in frame else ""
        found = pd.DataFrame({"resource": resource, "row": ids.iloc[index].to_numpy(), "field": rule.field,
                              "value": list(values) if len(index) else [], "message": rule.statement},
                             columns=FAILURE_COLUMNS)
        out.append(Outcome(rule, found))
    return out


def _guarded(rule: Rule, ctx: Context) -> Outcome:
    try:
        found = rule.check(ctx)
    except Exception as exc:  # a rule that cannot evaluate this release is a failure to report, not a crash
        return Outcome(rule, pd.DataFrame(columns=FAILURE_COLUMNS), skipped=f"could not be evaluated: {exc}",
                       crashed=True)
    return Outcome(rule, found.reset_index(drop=True))


def validate(path=".", rules: str | None = None, progress=None) -> Report:
    """Validate the release at `path`; `rules` is a comma-separated list of ids or families."""
    release = Release(path)
    report = Report(release.descriptor.get("name", ""), release.version, release.params.get("format_version", ""))
    chosen = select(rules)
    chosen_ids = {r.id for r in chosen}
    ctx = Context(release)
    escaping = escapes(release)
    by_id = {r.id: r for r in select(None)}
    if escaping:
        report.outcomes.append(_guarded(by_id["INT3"], ctx))
        return report
    for name in RESOURCES:
        release.table(name)
    structure = [_guarded(by_id[i], ctx) for i in STRUCTURE_RULES]
    blocked = {res for o in structure for res in o.failures["resource"].unique()} | set(release.invalid_rows)
    report.outcomes += [o for o in structure if o.rule.id in chosen_ids or not o.passed]
    pending = [r for r in chosen if r.id not in STRUCTURE_RULES]
    ready = [r for r in pending if not set(r.reads) & blocked]
    for rule in pending:
        if rule not in ready:
            reason = "skipped: " + ", ".join(sorted(set(rule.reads) & blocked)) + " failed structure"
            report.outcomes.append(Outcome(rule, pd.DataFrame(columns=FAILURE_COLUMNS), skipped=reason))
    frame_rules: dict[str, list[Rule]] = {}
    for rule in ready:
        if rule.kind == "frame":
            frame_rules.setdefault(rule.resource, []).append(rule)
    for resource, rules_ in frame_rules.items():
        report.outcomes += _frame_outcomes(ctx, resource, rules_)
        if progress:
            progress(len(rules_))
    for rule in ready:
        if rule.kind == "release":
            report.outcomes.append(_guarded(rule, ctx))
            if progress:
                progress(1)
    order = {r.id: i for i, r in enumerate(select(None))}
    report.outcomes.sort(key=lambda o: order[o.rule.id])
    return report
