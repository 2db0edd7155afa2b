"""A fork's declared rules, written carelessly or to harm: each is one line at reading (exit 2), or fails its rows
(exit 1), and never runs for ever, takes the machine's memory, or silently checks nothing."""
from __future__ import annotations

import json
import time

import pytest
from realcompanion.validators.declared import _evaluator
from test_fuzz import check_contract, edit_line, restamp, run_quietly

QUICK = 20  # seconds a whole validation may take with any of these rules (a clean one takes about one)


def declare(root, **rule) -> None:
    path = root / "schemas" / "rules.json"
    rules = json.loads(path.read_text(encoding="utf-8"))
    rules["rules"].append({"id": "X1", "severity": "error", "statement": "declared by the test", **rule})
    path.write_text(json.dumps(rules, indent=2), encoding="utf-8")


@pytest.mark.parametrize("expression", [
    "99999 ** 3999999 > 0",  # within simpleeval's operand limits; half a minute on every row
    "(2 ** 9000) * (2 ** 9000) > 0",
    "question.ljust(10 ** 8) != ''",  # a method: with 10 ** 10, a 10 GB string
    "[[1] * 9999 for x in [1] * 999] != []",  # each item a list: with 99999 and 9999, 8 GB of them
    "round(1, -10 ** 7) == 0",  # 10 ** 10000000: 20 s a row
    "'%999999999d' % 1 != ''",  # a gigabyte a row
    "f'{1:>999999999}' != ''",
    "len(sorted([[0] * 999] * 999)) > 0",  # a list shared 999 times: a million items to compare
    "sum([[0] * 999] * 999, []) != []",  # adding lists is quadratic
    "sum([[0] * 999] * 999, start=[]) != []",
    "len(str([[[0] * 999] * 999] * 999)) > 0",  # a billion items to print
])
def test_a_pathological_expression_fails_its_rows_at_once(specimen, expression):
    """It can be evaluated on none of the rows: the rule as a whole could not be evaluated, an error."""
    declare(specimen, kind="expression", resource="qa", field="question", expression=expression)
    start = time.monotonic()
    code, out, err = run_quietly(["validate", str(specimen), "--json", "-"])
    assert time.monotonic() - start < QUICK
    assert code == 1, err
    report = json.loads(out)
    assert not [f for f in report["failures"] if f["rule"] == "X1"]
    mine = next(r for r in report["rules"] if r["id"] == "X1")
    assert mine["skipped"].startswith("could not be evaluated: its expression raises on every one of its 136 "
                                      "row(s)"), mine


@pytest.mark.parametrize("expression", ["2 ** 64 == 18446744073709551616", "3 * 7 == 21", "len('ab' * 3) == 6",
                                        "max([1, 2]) == 2", "-2 ** 3 == -8", "round(2.567, 2) == 2.57",
                                        "round(1234, -2) == 1200", "'%5d' % 3 == '    3'", "f'{3:>4}' == '   3'",
                                        "sum([1, 2.5]) == 3.5", "sorted([3, 1]) == [1, 3]", "str([1]) == '[1]'",
                                        "len([0] * 1000) == 1000", "len('x' * 100000) == 100000",
                                        "[1, 2] + [3] == [1, 2, 3]", "'%s-%s' % ('a', 'b') == 'a-b'"])
def test_ordinary_arithmetic_still_evaluates(expression):
    assert _evaluator().eval(expression) is True


@pytest.mark.parametrize("rule,field,needle", [
    ({"kind": "not_null", "fields": ["question"], "where": "nofield == 1"}, "rules[4].where",
     "names 'nofield', which is not a field"),  # the rule would check no row, and pass
    ({"kind": "expression", "expression": "nofield > 1"}, "rules[4].expression", "names 'nofield'"),
    ({"kind": "expression", "expression": "answerable; False"}, "rules[4].expression", "must be one expression"),
    ({"kind": "expression", "expression": "x = 1"}, "rules[4].expression", "must be one expression"),
    ({"kind": "expression", "expression": "(" * 300 + "1" + ")" * 300}, "rules[4].expression", "does not parse"),
    ({"kind": "expression", "expression": "1 == " + "-" * 5000 + "1"}, "rules[4].expression", "is too long"),
    ({"kind": "not_null", "fields": ["trace.Z.tier"], "resource": "chat"}, "rules[4]", "has no field 'trace.Z.tier'"),
    ({"kind": "expression", "expression": "True", "resource": "nowhere"}, "rules[4].resource", "no resource"),
    ({"kind": "not_null", "fields": ["question"], "family": "../../x"}, "rules[4].family", "does not match"),
    ({"kind": "not_null", "fields": ["question"], "statement": "ok\x1b[2J\u2028VALID"}, "rules[4].statement",
     "does not match"),
], ids=["where-unknown-field", "expression-unknown-field", "two-expressions", "assignment", "too-deep",
        "too-long", "unknown-struct-member", "expression-unknown-resource", "family-a-path", "statement-escapes"])
def test_a_careless_declaration_is_one_line(specimen, rule, field, needle):
    declare(specimen, **{"resource": "qa", **rule})
    code, out, err = run_quietly(["validate", str(specimen)])
    assert code == 2, out + err
    check_contract(code, out, err, f"rules.json field '{field}'")
    assert needle in err and "\x1b" not in err, err


@pytest.mark.parametrize("where", ["category.upper() == 'MULTI_HOP'", "_hidden == 1", "len(answer) > 0"],
                         ids=["attribute", "underscore-name", "len-of-null"])
def test_a_where_that_cannot_be_evaluated_does_not_switch_its_rule_off(specimen, where):
    """Each row the `where` cannot be evaluated on fails the rule: those rows left its scope, and the rule passed. A
    `where` no row can be read by (an attribute, a `_name`) leaves the rule not evaluated at all, an error."""
    declare(specimen, kind="expression", resource="qa", field="question", where=where, expression="False")
    code, out, err = run_quietly(["validate", str(specimen), "--json", "-"])
    assert code == 1, err
    report = json.loads(out)
    mine = [f for f in report["failures"] if f["rule"] == "X1"]
    unread = [f for f in mine if f["message"].startswith("where cannot be evaluated: ")]
    skipped = next(r for r in report["rules"] if r["id"] == "X1")["skipped"] or ""
    if where.startswith("len"):  # a null answer's rows only
        assert unread and all(f["value"] == where for f in unread), mine[:2]
    else:
        assert not mine and "its where raises on every one of its 136 row(s)" in skipped, skipped


def test_a_where_on_a_set_aside_row_is_its_structure_failure_alone(specimen):
    """The `where` cannot read a record that did not fit its types (its question null): SCH1 names it, once."""
    declare(specimen, kind="not_null", resource="qa", fields=["answer"], where="len(question) > 1000")
    edit_line("qa", 3, lambda line: line.replace(b'"question":', b'"question":5,"was":', 1))(specimen)
    restamp(specimen)
    code, out, err = run_quietly(["validate", str(specimen), "--json", "-"])
    report = json.loads(out)
    errors = [f for f in report["failures"] if f["severity"] == "error"]
    assert code == 1 and {f["rule"] for f in errors} == {"SCH1"}, errors
    assert not [r["id"] for r in report["rules"] if r["skipped"]] and report["errors"] == len(errors)


@pytest.mark.parametrize("where", ["len(sorted([[0] * 999] * 999)) > 0", "round(1, -10 ** 7) == 0"])
def test_a_pathological_where_is_bounded_too(specimen, where):
    declare(specimen, kind="not_null", resource="qa", fields=["question"], where=where)
    start = time.monotonic()
    code, out, err = run_quietly(["validate", str(specimen), "--json", "-"])
    assert time.monotonic() - start < QUICK
    mine = next(r for r in json.loads(out)["rules"] if r["id"] == "X1")
    assert code == 1 and "its where raises on every one of its 136 row(s)" in mine["skipped"], mine


@pytest.mark.parametrize("part", ["expression", "where"])
def test_a_warning_rule_that_reads_no_row_is_an_error(specimen, part):
    """A warning rule none of whose rows it can read did not run: FAIL, counted as an error (it gave one warning a
    row, and the release was VALID)."""
    rule = {"expression": "question.upper() != ''"} if part == "expression" else \
        {"where": "question.upper() != ''", "expression": "False"}
    declare(specimen, kind="expression", resource="qa", field="question", severity="warning", **rule)
    code, out, err = run_quietly(["validate", str(specimen)])
    assert code == 1, out + err
    shown = " ".join(out.split())  # the terminal report wraps its messages
    assert "FAIL X1" in out and f"could not be evaluated: its {part} raises on every one of its" in shown
    assert out.strip().endswith("release is INVALID")


def test_a_warning_rule_that_reads_some_rows_still_warns(specimen):
    """The near miss: a null answer cannot be measured, the other rows can; the unread rows are warnings."""
    declare(specimen, kind="expression", resource="qa", field="answer", severity="warning",
            expression="len(answer) < 10000")
    code, out, err = run_quietly(["validate", str(specimen), "--json", "-"])
    assert code == 0, err
    mine = [f for f in json.loads(out)["failures"] if f["rule"] == "X1"]
    assert mine and all(f["message"].startswith("cannot be evaluated") for f in mine)


def test_a_yaml_alias_bomb_is_one_line(specimen):
    """A kilobyte of YAML whose aliases expand to billions of values: refused once composed, before it is built."""
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, 10)]
    (specimen / "schemas" / "rules.yaml").write_text("\n".join(lines) + "\nrules: *a9\n", encoding="utf-8")
    edit_rules_name(specimen, "schemas/rules.yaml")
    start = time.monotonic()
    code, out, err = run_quietly(["validate", str(specimen)])
    assert time.monotonic() - start < QUICK
    check_contract(code, out, err, "rules.yaml")
    assert code == 2 and "expands to more than 100,000 values" in err, err


def test_a_yaml_file_with_ordinary_aliases_is_read(specimen):
    rules = json.loads((specimen / "schemas" / "rules.json").read_text(encoding="utf-8"))["rules"]
    text = "rules:\n" + "".join(f"  - {json.dumps(rule, ensure_ascii=False)}\n" for rule in rules)
    text += "  - {id: X1, severity: error, kind: not_null, resource: qa, statement: by the test, fields: &f [question]}\n"
    text += "  - {id: X2, severity: error, kind: not_null, resource: qa, statement: by the test, fields: *f}\n"
    (specimen / "schemas" / "rules.yaml").write_text(text, encoding="utf-8")
    edit_rules_name(specimen, "schemas/rules.yaml")
    (specimen / "schemas" / "rules.json").unlink()
    code, out, err = run_quietly(["validate", str(specimen)])
    assert code == 0 and "X1" in out, err


def test_more_rules_than_the_limit_is_one_line(specimen):
    path = specimen / "schemas" / "rules.json"
    rules = json.loads(path.read_text(encoding="utf-8"))
    rules["rules"] += [{"id": f"X{n}", "severity": "error", "statement": "declared by the test", "kind": "not_null",
                        "resource": "qa", "fields": ["question"]} for n in range(1000)]
    path.write_text(json.dumps(rules), encoding="utf-8")
    code, out, err = run_quietly(["validate", str(specimen)])
    check_contract(code, out, err, "rules.json field 'rules'")
    assert code == 2 and "is too long" in err, err


def edit_rules_name(root, name: str) -> None:
    path = root / "datapackage.json"
    descriptor = json.loads(path.read_text(encoding="utf-8"))
    descriptor["realcompanion"]["rules"] = name
    path.write_text(json.dumps(descriptor, indent=2), encoding="utf-8")
