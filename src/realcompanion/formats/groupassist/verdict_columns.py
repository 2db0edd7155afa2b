"""A GroupAssistBench verdicts file checked column by column: the fast way to accept a good file.

`judging.read_verdicts` checks each row in turn (instance, condition, repeats, judge, answer), which names the
first bad row exactly, and took seconds on 100,000 rows. Here the same checks are proved for every row at once,
each over a column taken out of the rows (types by set, membership by set, equality of lists), and only the first
row of each level goes through the row checks (its judge stamp, the one every other row of the level must equal).
The proof is conservative: it accepts only a file every row of which the row checks accept, and answers None for
any file it cannot prove so (a bad row, or an unusual good one: a stamp with extra keys, a temperature written
0.0 in one row and 0 in another); that file is then read row by row, which names its first bad row as before.
"""
from __future__ import annotations

from itertools import chain, repeat
from operator import itemgetter

from ...errors import ReadError
from ...scoring.verdicts import one_judge


class Shared:
    """Each verdict row as it is read, its repeated values made one object: the instance id the release's, the
    condition, the judge stamp, the criterion ids (keys of `criteria`) and the atom ids facts name those of an earlier
    row. A 100,000-row file held 185 MB of rows, of them a stamp, an instance id and a condition a row (70 MB) and the
    criterion ids (20 MB). The values are equal, of the same types, so every check reads the same rows (a stamp is
    shared only when each of its values is a string or a number of the same type as the other's: 0, 0.0 and false are
    equal to Python, not to the checks)."""

    def __init__(self, instances):
        self.names = {i: i for i in instances.rows}
        self.stamps: list[tuple[dict, tuple, tuple]] = []  # (stamp, its keys, the types of its values), a few

    def __call__(self, row: dict) -> dict:
        for key in ("instance_id", "condition"):
            value = row.get(key)
            if type(value) is str:
                row[key] = self.names.setdefault(value, value)
        criteria, facts, names = row.get("criteria"), row.get("facts"), self.names
        if type(criteria) is dict:  # the same ids in the same order
            row["criteria"] = {names.setdefault(key, key): met for key, met in criteria.items()}
        if type(facts) is list:
            for fact in facts:
                if type(fact) is dict and type(atom := fact.get("atom")) is str:
                    fact["atom"] = names.setdefault(atom, atom)
        stamp = row.get("judge")
        if type(stamp) is dict:
            for shared, keys, types in self.stamps:
                if shared == stamp and tuple(stamp) == keys and tuple(map(type, stamp.values())) == types:
                    row["judge"] = shared
                    return row
            types = tuple(map(type, stamp.values()))
            if len(self.stamps) < 8 and set(types) <= {str, int, float}:
                self.stamps.append((stamp, tuple(stamp), types))
        return row


def _types(values) -> set:
    return set(map(type, values))


def judges_if_all_pass(lines: list[tuple[int, dict]], instances, path) -> dict | None:
    """{level: judge stamp} (as the row checks give it) when every row of `lines` passes every check of
    `read_verdicts`; None when some row may not."""
    rows = [row for _, row in lines]
    ids = [row.get("instance_id") for row in rows]
    if _types(ids) != {str}:
        return None
    levels = list(map(instances.judgeable.get, ids))  # the level of a judgeable eval instance, else None
    conditions = [row.get("condition") for row in rows]
    if None in levels or _types(conditions) != {str} or not all(c.strip() for c in set(conditions)) \
            or len(set(zip(ids, conditions))) != len(rows):
        return None
    stamps, judges, firsts = [row.get("judge") for row in rows], {}, {}
    for level in sorted(set(levels)):
        k = levels.index(level)
        try:
            judges[level] = one_judge({}, level, rows[k], path, lines[k][0])
        except ReadError:
            return None
        firsts[level] = stamps[k]
    # equal to the first stamp of the level, which passed: the same keys and values, so the same judge, unless a
    # temperature false stands for 0 (a bool is no number to the row checks)
    if stamps != [firsts[level] for level in levels] or bool in _types(map(itemgetter("temperature"), stamps)):
        return None
    l1 = [(i, row.get("facts")) for i, row, level in zip(ids, rows, levels) if level == "L1"]
    l2 = [(i, row.get("criteria")) for i, row, level in zip(ids, rows, levels) if level == "L2"]
    return judges if _facts_pass(l1, instances) and _criteria_pass(l2, instances) else None


def _facts_pass(answers: list[tuple[str, object]], instances) -> bool:
    """Every L1 answer a list of facts, each an object with a non-blank `fact` text and an `atom` that is null or an
    atom of its instance (`judging.verdict_problem`)."""
    if answers and _types(answer for _, answer in answers) != {list}:
        return False
    facts = list(chain.from_iterable(answer for _, answer in answers))
    if not facts:
        return True
    if _types(facts) != {dict}:
        return False
    texts, atoms = [f.get("fact") for f in facts], [f.get("atom") for f in facts]
    if _types(texts) != {str} or not all(map(str.strip, texts)) or not _types(atoms) <= {str, type(None)}:
        return False
    owners = chain.from_iterable(repeat(i, len(answer)) for i, answer in answers)
    known = instances.atoms.pairs("atom_id")
    return all((owner, atom) in known for owner, atom in zip(owners, atoms) if atom is not None)


def _criteria_pass(answers: list[tuple[str, object]], instances) -> bool:
    """Every L2 answer an object judging each criterion of its instance, and only those, true or false."""
    if not answers:
        return True
    if _types(answer for _, answer in answers) != {dict}:
        return False
    rows = instances.rows
    return all(answer.keys() == instances.ids(rows[i]) for i, answer in answers) and \
        _types(chain.from_iterable(answer.values() for _, answer in answers)) <= {bool}
