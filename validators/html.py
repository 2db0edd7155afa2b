"""Data Docs HTML for a validation report: Great Expectations renders, the catalogue decides.

Each rule family becomes an expectation suite and each catalogue rule one expectation
of a render-only type whose validation result is built from the rule's `Outcome`, so
no rule is evaluated twice. GE's SiteBuilder, run in an ephemeral context (no project
folder), writes the suite and validation pages into `out_dir` only.

Data Docs fetch Bootstrap, jQuery and Font Awesome from CDNs and fill the index with
JavaScript, so the site is made to read offline: the remote tags are dropped (the pages
are parsed and rewritten with lxml), a small stylesheet ships through GE's custom-styles
hook (`assets/custom_data_docs/styles`), and the index is rendered server-side from GE
content blocks. GE escapes the parameters of its string templates and the batch's keys,
but puts the data asset's name into each page's breadcrumb as it is: that name is this
module's own (SITE), and the release's name, version and folder are batch keys.
"""
from __future__ import annotations

import html
import sys
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

from realcompanion.errors import visible
from realcompanion.writing import write_text

from .catalogue import FAILURE_COLUMNS

PLUGINS = Path(__file__).parent / "assets"
SHOWN = 20  # failing rows listed per rule, as GE's SUMMARY format; the JSON report lists more (examples.py)
SITE = "release"
SEVERITY_BADGE = {"error": "badge-danger", "warning": "badge-warning"}
STATUS_BADGE = {"failed": "badge-danger", "warnings": "badge-warning", "passed": "badge-success"}


@cache
def _expectation_type():
    """The render-only expectation type standing for one catalogue rule (defined once per process)."""
    from great_expectations.expectations.expectation import BatchExpectation
    from great_expectations.render import (
        LegacyDiagnosticRendererType,
        LegacyRendererType,
        RenderedStringTemplateContent,
        RenderedTableContent,
    )
    from great_expectations.render.renderer.renderer import renderer

    class ExpectCatalogueRule(BatchExpectation):
        """A rule of `realcompanion.validators.catalogue`; its result comes from the report."""

        def _validate(self, metrics, runtime_configuration=None, execution_engine=None):
            raise NotImplementedError("catalogue rules are evaluated by realcompanion.validators, not by GE")

        @classmethod
        @renderer(renderer_type=LegacyRendererType.PRESCRIPTIVE)
        def _prescriptive_renderer(cls, configuration=None, result=None, runtime_configuration=None, **kwargs):
            meta = configuration.meta
            return [RenderedStringTemplateContent(content_block_type="string_template", string_template={
                "template": "$rule $severity $family $statement",
                "params": {k: meta[k] for k in ("rule", "severity", "family", "statement")},
                "styling": {"params": {
                    "rule": {"classes": ["badge", "badge-dark"]},
                    "severity": {"classes": ["badge", SEVERITY_BADGE[meta["severity"]]]},
                    "family": {"classes": ["badge", "badge-light"]}}}})]

        @classmethod
        @renderer(renderer_type=LegacyDiagnosticRendererType.STATUS_ICON)
        def _diagnostic_status_icon_renderer(cls, configuration=None, result=None, runtime_configuration=None):
            if result.success is False and result.expectation_config.meta["severity"] == "warning":
                return RenderedStringTemplateContent(content_block_type="string_template", string_template={
                    "template": "$icon", "params": {"icon": "", "markdown_status_icon": "⚠️"},
                    "styling": {"params": {"icon": {"tag": "i", "classes": ["fas", "fa-exclamation-circle",
                                                                            "text-warning"]}}}})
            return super()._diagnostic_status_icon_renderer(result=result)

        @classmethod
        @renderer(renderer_type=LegacyDiagnosticRendererType.UNEXPECTED_STATEMENT)
        def _diagnostic_unexpected_statement_renderer(cls, configuration=None, result=None,
                                                      runtime_configuration=None):
            # GE's own statement gives a percentage of one table's rows; a rule's failures may span files.
            info, count = result.exception_info, result.result.get("unexpected_count", 0)
            if info.get("raised_exception"):
                template, kind = "$reason", "warning"
            elif count > SHOWN:
                template, kind = "first $shown of $count failing rows", "danger"
            else:
                return []
            return [RenderedStringTemplateContent(content_block_type="string_template", string_template={
                "template": template, "tag": "p", "styling": {"classes": [f"text-{kind}"], "params": {}},
                "params": {"reason": visible(info.get("exception_message")), "shown": SHOWN, "count": count}})]

        @classmethod
        @renderer(renderer_type=LegacyDiagnosticRendererType.UNEXPECTED_TABLE)
        def _diagnostic_unexpected_table_renderer(cls, configuration=None, result=None, runtime_configuration=None):
            rows = result.result.get("partial_unexpected_list")
            if not rows:
                return None
            return [RenderedTableContent(content_block_type="table", header_row=FAILURE_COLUMNS,
                                         table=[[_text(row[c]) for c in FAILURE_COLUMNS] for row in rows],
                                         styling={"body": {"classes": ["table-bordered", "table-sm", "mt-3"]}})]

    return ExpectCatalogueRule


def _result(outcome, failures: list[dict]) -> dict:
    count = outcome.count
    observed = "not evaluated" if outcome.skipped else f"{count} failing row{'s' * (count != 1)}"
    return {"observed_value": observed + (f", {outcome.set_aside} set aside" if outcome.set_aside else ""),
            "unexpected_count": count,
            "partial_unexpected_list": [{c: row[c] for c in FAILURE_COLUMNS} for row in failures[:SHOWN]]}


def render_html(report, path, out_dir) -> Path:
    """Write Data Docs for `report` (of the release at `path`) into `out_dir`; return its index page. A progress
    bar (off when stderr is not a terminal) counts loading GE, each suite stored, the build, each suite's pages
    finished and the index."""
    from tqdm import tqdm

    families: dict[str, list] = {}
    for outcome in report.outcomes:
        families.setdefault(outcome.rule.family, []).append(outcome)
    with tqdm(total=2 * len(families) + 3, unit="step", desc="HTML report", disable=None, leave=False,
              file=sys.stderr) as bar:
        return _render(report, path, Path(out_dir).resolve(), families, bar)


def _render(report, path, out_dir: Path, families: dict[str, list], bar) -> Path:
    import great_expectations as gx
    from great_expectations.core import ExpectationSuite, ExpectationSuiteValidationResult, ExpectationValidationResult
    from great_expectations.core.run_identifier import RunIdentifier
    from great_expectations.data_context.types.resource_identifiers import (
        ExpectationSuiteIdentifier,
        ValidationResultIdentifier,
    )

    bar.update()
    out_dir.mkdir(parents=True, exist_ok=True)
    there = set((out_dir / "static").rglob("*"))  # what the folder held before: never GE's to drop
    context = gx.get_context(mode="ephemeral")
    context.variables.plugins_directory = str(PLUGINS)
    context.add_data_docs_site(SITE, {
        "class_name": "SiteBuilder", "show_how_to_buttons": False,
        "store_backend": {"class_name": "TupleFilesystemStoreBackend", "base_directory": str(out_dir)}})
    rule_type = _expectation_type()
    run_id = RunIdentifier(run_name="validate", run_time=datetime.now(timezone.utc))
    batch_spec = {"data_asset_name": SITE, "package": report.package, "version": report.version,  # no local path
                  "format_version": report.format_version, "release": Path(path).resolve().name}
    failures: dict[str, list[dict]] = {}
    for row in report.to_json()["failures"]:
        failures.setdefault(row["rule"], []).append(row)
    suites = []
    for family, outcomes in families.items():
        suite = context.suites.add(ExpectationSuite(name=family, expectations=[
            rule_type(meta={"rule": o.rule.id, "severity": o.rule.severity, "family": o.rule.family,
                            "statement": o.rule.statement}) for o in outcomes]))
        results = [ExpectationValidationResult(
            success=o.passed, expectation_config=e.configuration, result=_result(o, failures.get(o.rule.id, [])),
            exception_info={"raised_exception": bool(o.skipped), "exception_message": o.skipped,
                            "exception_traceback": None})
            for o, e in zip(outcomes, suite.expectations)]
        passed = sum(o.passed for o in outcomes)
        key = ValidationResultIdentifier(ExpectationSuiteIdentifier(family), run_id, SITE)
        context.validation_results_store.set(key, ExpectationSuiteValidationResult(
            success=not any(o.is_error for o in outcomes),
            results=results, suite_name=family,
            statistics={"evaluated_expectations": len(outcomes), "successful_expectations": passed,
                        "unsuccessful_expectations": len(outcomes) - passed,
                        "success_percent": 100 * passed / len(outcomes)},
            meta={"run_id": run_id.to_json_dict(), "great_expectations_version": gx.__version__,
                  "batch_spec": batch_spec}))
        suites.append((family, outcomes, key))
        bar.update()
    context.build_data_docs(site_names=[SITE], build_index=False)
    bar.update()

    def page(identifier) -> Path:
        url = context.get_docs_sites_urls(resource_identifier=identifier, site_name=SITE)[0]["site_url"]
        return Path(url2pathname(urlparse(url).path))

    title = f"{report.package} {report.version} validation".strip()

    def finished(text: str) -> str:
        """No remote assets, and the release's own title instead of the generic one."""
        from lxml import html as lxml_html

        document = lxml_html.document_fromstring(text)
        for element, attribute, link, _ in list(document.iterlinks()):
            if element.tag in ("script", "link", "img") and attribute in ("src", "href") and _remote(link):
                element.drop_tree()
        for found in document.xpath("/html/head/title"):  # not an icon's <title> in the body
            found.text = title
        return lxml_html.tostring(document, doctype="<!DOCTYPE html>", encoding="unicode")

    for family, _, key in suites:
        for written in (page(key), page(ExpectationSuiteIdentifier(family))):
            write_text(written, finished(written.read_text(encoding="utf-8")))
        bar.update()
    index = out_dir / "index.html"
    links = [(family, outcomes, page(key).relative_to(out_dir).as_posix()) for family, outcomes, key in suites]
    write_text(index, finished(_index(report, links, failures)))
    _drop_unreferenced(out_dir, there)
    bar.update()
    return index


def _remote(link: str) -> bool:
    """Whether a page's link fetches from another host (`https://`, `//host/`)."""
    parsed = urlparse(link)
    return bool(parsed.scheme in ("http", "https") or parsed.netloc)


def _links(file: Path) -> list[str]:
    """What a page (its attributes, inline styles) or a stylesheet (its `url()`s) links to, as lxml finds them."""
    from lxml import html as lxml_html

    text = file.read_text(encoding="utf-8")
    if file.suffix == ".css":  # lxml finds a stylesheet's url()s inside a <style> element
        document = lxml_html.fragment_fromstring(text, create_parent="style")
    else:
        document = lxml_html.document_fromstring(text)
    return [link for _, _, link, _ in document.iterlinks()]


def _drop_unreferenced(out_dir: Path, there: set[Path]) -> None:
    """GE copies its whole static folder (fonts, logos, templates); keep only the files a page or stylesheet
    links to, so the site ships nothing it does not use. What was `there` before is kept: `--html` into a folder
    of one's own deleted every file of its static/ that no page linked to."""
    used: set[Path] = set()
    pending = list(out_dir.rglob("*.html"))
    while pending:  # pages, then the stylesheets they link (whose url()s name fonts and images)
        page = pending.pop()
        for ref in _links(page):
            target = urlparse(ref)
            found = (page.parent / url2pathname(target.path)).resolve()
            if not target.scheme and not target.netloc and target.path and found not in used:
                used.add(found)
                pending += [found] if found.suffix == ".css" and found.is_file() else []
    static = out_dir / "static"
    for file in sorted(set(static.rglob("*")) - there, reverse=True):  # files before the folders holding them
        if file.is_file() and file.resolve() not in used:
            file.unlink()
        elif file.is_dir() and not any(file.iterdir()):
            file.rmdir()


def _text(value, **styling) -> dict:
    """A table cell: GE HTML-escapes template params (not bare strings), and cells carry release data, whose
    unprintable characters are escaped as in the terminal report (`\x1b`, `\u2028`)."""
    return {"content_block_type": "string_template", "string_template": {
        "template": "$value", "params": {"value": "" if value is None else visible(value)},
        "styling": {"params": {"value": styling}}}}


def _index(report, suites, failures: dict[str, list[dict]]) -> str:
    """The site's front page: overall status, one row per suite, every rule that fired with its first rows."""
    from great_expectations.render import (
        RenderedDocumentContent,
        RenderedHeaderContent,
        RenderedSectionContent,
        RenderedStringTemplateContent,
        RenderedTableContent,
    )
    from great_expectations.render.view import DefaultJinjaIndexPageView

    def title(text: str) -> RenderedStringTemplateContent:
        return RenderedStringTemplateContent(content_block_type="string_template",
                                             string_template={"template": text, "tag": "h5"})

    def table(heading: str, header_row: list[str], rows: list[list]) -> RenderedTableContent:
        return RenderedTableContent(content_block_type="table", header=title(heading), header_row=header_row,
                                    table=rows, styling={"classes": ["col-12"], "body": {"classes": ["table"]}})

    def status(outcomes) -> dict:
        fired = {o.rule.severity for o in outcomes if not o.passed}
        word = "failed" if "error" in fired else "warnings" if fired else "passed"
        return _text(word, classes=["badge", STATUS_BADGE[word]])

    valid = report.errors == 0
    header = RenderedHeaderContent(
        content_block_type="header",
        header=RenderedStringTemplateContent(content_block_type="string_template", string_template={
            "template": "$package $version (format $format)", "tag": "h4", "styling": {"params": {}},
            "params": {"package": visible(report.package), "version": visible(report.version),
                       "format": visible(report.format_version)}}),
        subheader=RenderedStringTemplateContent(content_block_type="string_template", string_template={
            "template": "$status $errors error(s), $warnings warning(s)", "tag": "p",
            "params": {"status": "release is VALID" if valid else "release is INVALID",
                       "errors": report.errors, "warnings": report.warnings},
            "styling": {"params": {"status": {"classes": ["badge", "badge-success" if valid else "badge-danger"]}}}}),
        styling={"classes": ["col-12"], "header": {"classes": ["alert", "alert-secondary"]}})
    blocks = [header, table(
        "Expectation suites, one per rule family", ["Suite", "Status", "Rules", "Fired", "Failing rows"],
        [[_text(family, tag="a", attributes={"href": href}), status(outcomes), len(outcomes),
          sum(not o.passed for o in outcomes), sum(o.count for o in outcomes)]
         for family, outcomes, href in suites])]
    pages = {family: href for family, _, href in suites}
    fired = [o for o in report.outcomes if not o.passed]
    if fired:
        blocks.append(table("Rules that fired", ["Rule", "Severity", "Statement", "Failing rows", "First failing rows"],
                            [[_text(o.rule.id, tag="a", attributes={"href": pages[o.rule.family]}),
                              _text(o.rule.severity, classes=["badge", SEVERITY_BADGE[o.rule.severity]]),
                              _text(o.rule.statement), _text(o.skipped or o.count),
                              _text(", ".join(f"{f['resource']} {f['row']}" for f in failures.get(o.rule.id, [])[:5])
                                    + (" …" if o.count > 5 else ""))]
                             for o in fired]))
    document = RenderedDocumentContent(
        renderer_type="SiteIndexPageRenderer",  # GE puts the page title into the breadcrumb unescaped
        page_title=html.escape(visible(f"{report.package} {report.version} validation")),
        sections=[RenderedSectionContent(section_name="Overview", content_blocks=blocks)], utm_medium="index-page")
    styles = PLUGINS / "custom_data_docs" / "styles"
    return DefaultJinjaIndexPageView(custom_styles_directory=str(styles)).render(document)
