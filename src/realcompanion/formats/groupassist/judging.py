"""Judging GroupAssistBench responses: what the judge sees, what it must answer, and the checks both the
judge's answers and a verdicts file go through (paper §3.3, §4.1; GROUPASSIST.md §4).

Responses file: one JSON object per line, {"instance_id", "condition", "response"}, for `eval` instances
(`condition` names the system or setting, e.g. "full_context"). The judge sees the instance in the language of
evaluation, Chinese in the paper (§4.1), the first a release declares (`groupassist.languages`):

L1  the question, the reference answer and the instance's atoms ("id: fact", the M3 distractor marked
    SUPERSEDED); it lists every fact the answer states with the atom it states or null:
    {"facts": [{"fact": str, "atom": atom_id | null}]}.
L2  the request and the instance's criteria ("id [kind]: text"; weights and mandatory flags are not
    shown); it marks each criterion met or not (a penalty is met when the reply commits the failure):
    {"criteria": {criterion_id: bool}}, every criterion of the instance once.

Prompts are the versioned files `prompts/groupassist-l1.v1.txt` and `groupassist-l2.v1.txt`; every
verdict carries the judge's model, the prompt file's sha256 and the temperature. An answer that fails
the checks below is left unjudged (reported, exit 1), never guessed; a verdicts file that fails them is
unreadable (exit 2).
"""
from __future__ import annotations

import json
from collections.abc import Mapping

from ...errors import ReadError
from ...scoring.jsonl import condition as condition_of
from ...scoring.jsonl import field, problem, rows
from ...scoring.verdicts import Verdicts, judged_once, one_judge, reply_sha256

PROMPTS = {"L1": "groupassist-l1.v1.txt", "L2": "groupassist-l2.v1.txt"}
ANSWER = {"L1": {"facts": ((list,), None)}, "L2": {"criteria": ((dict,), None)}}


class Instances:
    """The eval instances of a release with their atoms and criteria, as judging and scoring read them."""

    def __init__(self, release):
        inst = release.frame("instances")
        self.rows = {r["instance_id"]: r for r in inst.to_dict("records")}
        self.lang = release.evaluation_language  # the texts the judge and the systems read
        self.vocabulary = release.schemas.vocabulary  # splits and dependencies; the levels are those the judge has a
        # prompt for (ANSWER)
        self.file, self.lines = release.path("instances"), {
            r: release.line("instances", k) for k, r in enumerate(inst["instance_id"])}
        self.eval = [i for i, r in self.rows.items() if r["split"] == "eval"]
        # eval instance -> level, for those `known` accepts (a level the judge has a prompt for)
        self.judgeable = {i: self.rows[i]["level"] for i in self.eval if "eval" in self.vocabulary["split"]
                          and self.rows[i]["level"] in ANSWER}
        self.atoms, self.criteria = (self._by_instance(release.frame(name)) for name in ("atoms", "criteria"))
        self._ids: dict = {}
        self.aside = {}  # instance -> (file, the first of its atoms or criteria the reader set aside: not its schema's)
        for name in ("atoms", "criteria"):
            for bad in release.invalid_rows.get(name, ()):
                owner = bad["row"].get("instance_id") if isinstance(bad["row"], dict) else None
                self.aside.setdefault(owner, (release.path(name), bad))

    def _by_instance(self, frame) -> "ByInstance":
        return ByInstance(frame, self.eval)

    def known(self, row: dict, path, line: int) -> dict:
        """The eval instance named by row["instance_id"]; anything else is a one-line error."""
        instance_id = field(row, "instance_id", (str,), path, line)
        found = self.rows.get(instance_id)
        if found is None:
            raise ReadError(path, f"unknown instance_id '{instance_id}'", line=line, field="instance_id")
        # a release that breaks GS2: not judged, not guessed
        for name, allowed in (("split", self.vocabulary["split"]), ("level", ANSWER)):
            if found[name] not in allowed:
                raise ReadError(self.file, f"instance '{instance_id}' has {name} {json.dumps(found[name])}, not one of "
                                f"{', '.join(allowed)}, so it cannot be judged or scored; run `realcompanion validate` "
                                "first", line=self.lines[instance_id], field=name)
        if found["split"] != "eval":
            raise ReadError(path, f"'{instance_id}' is a {found['split']} instance, not an evaluation instance",
                            line=line, field="instance_id")
        return found

    def ids(self, instance: dict) -> set[str]:
        """The atom ids (L1) or criterion ids (L2) a verdict on `instance` may name (taken once per instance)."""
        key = instance["instance_id"], instance["level"]
        if key not in self._ids:
            self._ids[key] = set(self.atoms.column(key[0], "atom_id") if key[1] == "L1" else
                                 self.criteria.column(key[0], "criterion_id"))
        return self._ids[key]


class ByInstance(Mapping):
    """Each eval instance's rows of a frame, in the frame's order (none: an empty frame with the same columns): the
    frame is ordered by instance once, and an instance's rows are a slice of it, cut when first asked for (cutting
    every instance's rows at once, or taking each one's rows from the whole frame, cost seconds at paper scale)."""

    def __init__(self, frame, eval_ids):
        import numpy as np

        self.eval, self.cut, self._pairs = set(eval_ids), {}, {}
        ids = frame["instance_id"].to_numpy(dtype=object)
        order = np.argsort(ids, kind="stable")
        self.frame, ordered = frame.iloc[order], ids[order]
        names, starts = np.unique(ordered, return_index=True) if len(ordered) else ([], [])
        ends = [*starts[1:], len(ordered)]
        self.bounds = {name: (start, end) for name, start, end in zip(names, starts, ends)}

    def __getitem__(self, instance_id):
        if instance_id not in self.cut:
            if instance_id not in self.eval:
                raise KeyError(instance_id)
            start, end = self.bounds.get(instance_id, (0, 0))
            self.cut[instance_id] = self.frame.iloc[start:end]
        return self.cut[instance_id]

    def column(self, instance_id, name: str) -> list:
        """One column of the instance's rows, without cutting a frame."""
        start, end = self.bounds.get(instance_id, (0, 0)) if instance_id in self.eval else self[instance_id]
        return self.frame[name].iloc[start:end].tolist()

    def pairs(self, name: str) -> set[tuple]:
        """(instance id, value of column `name`) of every eval instance's rows, taken once."""
        if name not in self._pairs:
            self._pairs[name] = {(i, value) for i, value in zip(self.frame["instance_id"].tolist(),
                                                                 self.frame[name].tolist()) if i in self.eval}
        return self._pairs[name]

    def __iter__(self):
        return iter(self.eval)

    def __len__(self) -> int:
        return len(self.eval)


def verdict_problem(level: str, value, ids: set[str]) -> str | None:
    """Why `value` (the `facts` list or the `criteria` object) is not a verdict on an instance whose atom or
    criterion ids are `ids`; None when it is."""
    if level == "L1":
        for k, fact in enumerate(value):
            if not isinstance(fact, dict):
                return f"facts[{k}] is not an object"
            why = problem(fact.get("fact"), (str,))
            if why:
                return f"facts[{k}].fact: {why}"
            if not fact["fact"].strip():  # a stated fact that says nothing: neither correct nor an error
                return f"facts[{k}].fact is empty"
            atom = fact.get("atom")
            if atom is not None and (not isinstance(atom, str) or atom not in ids):
                return f"facts[{k}].atom {atom!r} is not an atom of this instance"
        return None
    unknown, absent = sorted(set(value) - ids), sorted(ids - set(value))
    if unknown:
        return f"names criteria not of this instance: {', '.join(unknown)}"
    if absent:
        return f"leaves criteria unjudged: {', '.join(absent)}"
    bad = sorted(k for k, met in value.items() if not isinstance(met, bool))
    return f"criteria not judged true or false: {', '.join(bad)}" if bad else None


def read_responses(path, instances: Instances, data: bytes | None = None) -> list[dict]:
    out, seen = [], set()
    for line, row in rows(path, data):
        instance = instances.known(row, path, line)
        condition = condition_of(row, path, line)
        key = (instance["instance_id"], condition)
        if key in seen:
            raise ReadError(path, f"'{key[0]}' under '{condition}' appears twice", line=line, field="condition")
        seen.add(key)
        response = field(row, "response", (str,), path, line)
        out.append({"instance_id": key[0], "condition": condition, "response": response,
                    "reply_sha256": reply_sha256(response)})
    return out


def prompt_values(instances: Instances, instance: dict, response: str) -> dict:
    instance_id, lang = instance["instance_id"], instances.lang
    if instance["level"] == "L1":
        listed = [f"{a['atom_id']}{' (SUPERSEDED)' if a['distractor'] else ''}: {a[f'text_{lang}']}"
                  for a in instances.atoms[instance_id].to_dict("records")]
        reference = instance[f"reference_answer_{lang}"]
        return {"question": instance[f"query_{lang}"], "reference": reference if isinstance(reference, str) else "",
                "atoms": "\n".join(listed), "answer": response}
    listed = [f"{c['criterion_id']} [{c['kind']}]: {c[f'text_{lang}']}"
              for c in instances.criteria[instance_id].to_dict("records")]
    return {"request": instance[f"query_{lang}"], "criteria": "\n".join(listed), "reply": response}


def judge_responses(instances: Instances, out, judge, prompts: dict, concurrency: int = 1, progress=None) -> list[dict]:
    """Ask the judge about each response `out` has no verdict for, `concurrency` at a time, writing each verdict as
    it comes (`verdicts.ask_each`); returns the responses left unjudged."""
    from ...scoring.judge_client import JudgeError
    from ...scoring.verdicts import ask_each

    async def verdict_of(response: dict) -> dict:
        instance = instances.rows[response["instance_id"]]
        level = instance["level"]
        answer = await judge.ask_async(prompts[level], prompt_values(instances, instance, response["response"]),
                                       ANSWER[level])
        name = next(iter(ANSWER[level]))
        why = verdict_problem(level, answer[name], instances.ids(instance))
        if why:
            raise JudgeError(f"{name} in the answer: {why}")
        return {**answer, "judge": judge.stamp(prompts[level])}

    return ask_each(out, verdict_of, concurrency, progress)


def read_verdicts(path, instances: Instances, data: bytes | None = None) -> Verdicts:
    """A verdicts file on the release's instances, each verdict checked as a judge's answer is (`verdict_problem`)."""
    import pandas as pd

    from ...stamp import sha256_of
    from .verdict_columns import Shared, judges_if_all_pass

    lines = rows(path, data, kept=Shared(instances))
    judge = judges_if_all_pass(lines, instances, path) if lines else None
    if judge is not None:  # every row passes every check below: proved column by column
        return Verdicts(str(path), sha256_of(path), judge, _frame(lines, instances.judgeable))
    records, judges, seen = [], {}, {}
    for line, row in lines:
        instance = instances.known(row, path, line)
        instance_id, level = instance["instance_id"], instance["level"]
        condition = condition_of(row, path, line)
        judged_once(seen, instance_id, condition, path, line)
        one_judge(judges, level, row, path, line)
        (name, (kinds, _)), = ANSWER[level].items()
        value = field(row, name, kinds, path, line)
        why = verdict_problem(level, value, instances.ids(instance))
        if why and instance_id in instances.aside:  # the release's row the verdict names or misses, not the file's
            file, bad = instances.aside[instance_id]
            raise ReadError(file, f"does not match its schema ({bad['message']}): the verdicts on {instance_id} cannot "
                            "be checked; run `realcompanion validate` first", line=bad["line"], field=bad["field"])
        if why:
            raise ReadError(path, why, line=line, field=name)
        records.append({"instance_id": instance_id, "condition": condition, name: value})
    if not records:
        raise ReadError(path, "no verdicts")
    judge = {level: stamp for level, (stamp, _) in sorted(judges.items())}
    return Verdicts(str(path), sha256_of(path), judge, pd.DataFrame.from_records(records))


def _frame(lines: list[tuple[int, dict]], levels: dict):
    """The verdicts frame `read_verdicts` makes of rows that passed its checks, taken column by column."""
    import numpy as np
    import pandas as pd

    rows = [row for _, row in lines]
    ids = [row["instance_id"] for row in rows]
    answers = [next(iter(ANSWER[levels[i]])) for i in ids]  # facts or criteria, a column each in the order they come
    return pd.DataFrame({"instance_id": ids, "condition": [row["condition"] for row in rows],
                         **{name: [row[name] if answer == name else np.nan for row, answer in zip(rows, answers)]
                            for name in dict.fromkeys(answers)}})


def run(args) -> int:
    """`realcompanion judge <GroupAssistBench folder> --replies R --endpoint URL --model NAME --out V [--resume]`."""
    from tqdm import tqdm

    from ...files import output_file
    from ...scoring.checked import opened
    from ...scoring.judge_client import PROMPTS_DIR, judge_from, load_prompt
    from ...scoring.verdicts import VerdictsOut
    from . import GroupAssistRelease

    release = opened(GroupAssistRelease, args)
    out = output_file(args.out, release.root, (args.replies,))
    instances = Instances(release)
    responses = read_responses(args.replies, instances)
    prompts = {level: load_prompt(level, PROMPTS_DIR / name) for level, name in PROMPTS.items()}
    judge = judge_from(args)
    verdicts = VerdictsOut(out, "instance_id", responses,
                           lambda response: judge.stamp(prompts[instances.rows[response["instance_id"]]["level"]]),
                           (lambda path, data: read_verdicts(path, instances, data)) if args.resume else None)
    with verdicts, tqdm(total=len(verdicts.pending), unit="response", desc="judge", disable=None) as bar:
        failures = judge_responses(instances, verdicts, judge, prompts, args.concurrency, progress=bar.update)
    verdicts.list_unjudged(failures)
    used = ", ".join(f"{level} {p.path.name} sha256 {p.sha256[:12]}" for level, p in prompts.items())
    print(f"wrote {out}: {verdicts.summary()} by {args.model} (prompts {used}); {len(failures)} responses unjudged")
    return 1 if failures else 0
