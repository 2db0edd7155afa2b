"""One synthetic group: its history, members, instances and what cites the history.

Instances are placed first, each on free message slots of the history (anchors
close together, the cutoff 30-150 records after the last one, a native request
and its reply at the cutoff); feedback pairs (an assistant reply and the
member's correction) next; filler, placeholders and shared turns last. Each
group draws from its own seeded stream, so a plan and a seed fix every byte.
"""
from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

from . import text as T
from .plan import DEPENDENCIES, GroupPlan

WINDOW = 40  # records an instance's anchors are spread over
CUTOFF_GAP = (30, 150)  # records from the last anchor to the cutoff: inside delta_min..delta_max with shared turns
ATTEMPTS = 500  # random draws for a free place in the history before it is too short (an unbounded search never ended)
TZ = timezone(timedelta(hours=8))


class Group:
    def __init__(self, plan: GroupPlan, seed: int, params: dict):
        self.plan, self.params = plan, params
        self.rng = random.Random(f"groupassist:{seed}:{plan.group_id}")
        self.gid = plan.group_id
        self.members = [f"member_{i + 1:02d}" for i in range(plan.members)]
        self.slots: list[dict | None] = [None] * plan.messages
        self.code = 10_000 * int(self.gid[1:])  # values unique in the release: no group's is another's
        self.instances: list[dict] = []
        self.said = [set() for _ in T.MATTERS]  # per matter, the slots of records that name it
        self.live = [[] for _ in T.MATTERS]  # per matter, each M3 instance's (update, cutoff) slots on it
        self.updates = [[] for _ in T.MATTERS]  # per matter, the slots of its M3 updates
        self.ranges = [[] for _ in T.MATTERS]  # per matter, each authored instance's (last memory, cutoff) naming it

    # -- values and slots --------------------------------------------------

    def value(self) -> tuple[str, str]:
        self.code += 1
        zh, en = T.THINGS[self.code % len(T.THINGS)]
        return f"{zh}{self.code}号", f"{en} No. {self.code}"

    def _free(self, lo: int, hi: int) -> list[int]:
        return [p for p in range(max(lo, 0), min(hi, len(self.slots))) if self.slots[p] is None]

    def _others(self, *excluded: str) -> str:
        return self.rng.choice([m for m in self.members if m not in excluded])

    def _matters(self, where: list[int], cut: int, k: int, m3: bool, since: int | None) -> list | None:
        """`k` matters for an instance on slots `where` with its cutoff at `cut` (None if too few are free): none
        is named between another instance's M3 update and its cutoff (App. A.4: the new value is still current at
        the cutoff), none an authored instance (`since`: its last memory's slot, None for a native one) names is
        updated between `since` and its cutoff (A.5: no update of the same matter within the range), and an M3
        instance's own matter is named by no other between its update and its cutoff, nor updated within an
        authored one's range. Conservative: every slot of the instance counts for each of its matters, a profile
        anchored earlier moves no range's start, and the update is taken at either slot it may hold, `where[1]`
        or `where[2]` (at the first for the pair's own window)."""
        spots = [*where, cut]
        free = [m for m in range(len(T.MATTERS))
                if not any(lo < p < hi for lo, hi in self.live[m] for p in spots)
                and not (since is not None and any(since < u < cut for u in self.updates[m]))]
        first = [m for m in free if not any(where[1] < p < cut for p in self.said[m])
                 and not any(lo < u < hi for lo, hi in self.ranges[m] for u in where[1:3])] if m3 else free
        if not first or len(free) < k:
            return None
        chosen = [self.rng.choice(first)] if m3 else []
        chosen += self.rng.sample([m for m in free if m not in chosen], k - len(chosen))
        for m in chosen:
            self.said[m].update(spots)
            if since is not None:
                self.ranges[m].append((since, cut))
        if m3:
            self.live[chosen[0]].append((where[1], cut))
        return [T.MATTERS[m] for m in chosen]

    # -- instances -----------------------------------------------------------

    def build(self) -> dict[str, list[dict]]:
        p = self.plan
        specs = [("eval", "L1")] * p.eval_l1 + [("eval", "L2")] * p.eval_l2 + \
                [("pool", ("L1", "L2")[i % 2]) for i in range(p.pool)]
        # the M3 instances first, while the history is emptiest: each keeps its update out of every authored range
        # of its matter, and only then do the others choose matters around the updates
        for n in sorted(range(len(specs)), key=lambda n: self._dependency(n) != "M3"):
            self._instance(n, *specs[n])
        self.instances.sort(key=lambda inst: inst["n"])
        types = self.params["query_types"]  # rotating over the authored instances (App. A.5)
        for k, inst in enumerate(inst for inst in self.instances if not inst["native"]):
            inst["query_type"] = types[k % len(types)]
        self._earliest_profiles()
        self._feedback()
        self._fill()
        return self._records()

    def _dependency(self, n: int) -> str:
        return self.plan.dependencies[n] if n < len(self.plan.dependencies) else DEPENDENCIES[n % 3]

    def _instance(self, n: int, split: str, level: str) -> None:
        rng = self.rng
        dependency = self._dependency(n)
        native = (n // 3) % 3 == 0
        units = {"M1": 1, "M2": 2 + (n // 9) % 3, "M3": 2}[dependency]
        profile = n % 4 == 1
        premise = not native and n % 5 == 2
        shared_message = dependency == "M2" and units == 3 and n % 2 == 0
        relay = dependency == "M2" and n % 6 == 4
        # a relayed fact is a member's first (App. A.6, review iii): one record more, the member's, before the relay
        records = units + (1 if dependency == "M3" else 0) + profile + premise - shared_message + (relay and not shared_message)
        room = len(self.slots) - WINDOW - CUTOFF_GAP[1] - 2
        for _ in range(ATTEMPTS if room > 0 else 0):
            start = rng.randrange(0, room)
            free = self._free(start, start + WINDOW)
            if len(free) < records:
                continue
            where = sorted(rng.sample(free, records))
            cut = where[-1] + rng.randint(*CUTOFF_GAP)
            if self.slots[cut] is None and (not native or self.slots[cut + 1] is None):
                since = None if native else where[records - profile - premise - 1]  # memories first, then the rest
                matters = self._matters(where, cut, 2 if dependency == "M3" else units, dependency == "M3", since)
                if matters:
                    break
        else:
            raise ValueError(f"{self.gid}: history too short for its instances")
        requester = rng.choice(self.members)
        iid = f"{self.gid}:I{n + 1:04d}"
        anchors, positions = [], iter(where)

        def anchor(pos, span, fact, unit, **flags):
            anchors.append({"pos": pos, "span": span, "fact": fact, "unit": unit, "from_assistant": False,
                            "profile_only": False, "m3_role": None, "premise": False, **flags})

        def fact_of(matter, value):
            return (T.FACT[0].format(matter=matter[0], value=value[0]),
                    T.FACT[1].format(matter_cap=matter[1][0].upper() + matter[1][1:], value=value[1]))

        def say(pos, template, speaker, matter, value, role="member"):
            self.slots[pos] = {"speaker": speaker, "role": role,
                               "text": tuple(t.format(matter=m, value=v) for t, m, v in zip(template, matter, value))}

        if dependency == "M3":
            updater = rng.choice(self.members)
            old, new = self.value(), self.value()
            first, a, b = next(positions), next(positions), next(positions)
            support, last = (a, b) if rng.random() < 0.5 else (b, a)
            other = self.value()
            say(support, T.STATE, self._others(updater), matters[1], other)
            say(last, T.CURRENT, updater, matters[0], new)
            self.updates[T.MATTERS.index(matters[0])].append(last)
            say(first, T.SUPERSEDED, self._others(updater), matters[0], old)
            anchor(first, old, fact_of(matters[0], old), 1, m3_role="superseded")
            anchor(support, other, fact_of(matters[1], other), 2)
            anchor(last, new, fact_of(matters[0], new), 3, m3_role="current")
            named = [matters[0], matters[1]]
        else:
            named, unit = matters[:units], 0
            for i in range(units):
                value = self.value()
                if shared_message and i == 2:
                    pos = anchors[-1]["pos"]
                    slot = self.slots[pos]
                    slot["text"] = tuple(a[:-1] + b.format(matter=m, value=v) + end for a, b, m, v, end in
                                         zip(slot["text"], T.SECOND_FACT, matters[2], value, ("。", ".")))
                    anchor(pos, value, fact_of(matters[2], value), unit)
                    continue
                pos, unit = next(positions), unit + 1
                if relay and i == units - 1:
                    say(pos, T.STATE, rng.choice(self.members), matters[i], value)
                    pos = next(positions)
                    say(pos, T.RELAY, "assistant", matters[i], value, role="assistant")
                    anchor(pos, value, fact_of(matters[i], value), unit, from_assistant=True)
                else:
                    say(pos, T.STATE, rng.choice(self.members), matters[i], value)
                    anchor(pos, value, fact_of(matters[i], value), unit)
        premise_span = ("", "")
        if profile:
            pos = next(positions)
            span = T.PROFILE[n % len(T.PROFILE)]
            self.slots[pos] = {"speaker": requester, "role": "member",
                               "text": tuple(t.format(span=s) for t, s in zip(T.PROFILE_MESSAGE, span))}
            anchor(pos, span, span, None, profile_only=True)
        if premise:
            pos = next(positions)
            self.code += 1
            span = tuple(t.format(code=self.code) for t in T.PREMISE)
            self.slots[pos] = {"speaker": self._others(), "role": "member",
                               "text": tuple(t.format(span=s) for t, s in zip(T.PREMISE_MESSAGE, span))}
            anchor(pos, span, span, None, premise=True)
            premise_span = tuple(t.format(span=s) for t, s in zip(T.QUERY_PREMISE, span))
        names = tuple(j.join(m[k] for m in named) for k, j in enumerate(T.MATTER_JOIN))
        query = tuple(t.format(premise=p, matters=m) for t, p, m in zip(T.QUERY[level], premise_span, names))
        if native:
            query = tuple(prefix + q for prefix, q in zip(T.NATIVE_PREFIX, query))
            self.slots[cut] = {"speaker": requester, "role": "member", "text": query, "request": True}
            self.slots[cut + 1] = {"speaker": "assistant", "role": "assistant", "reply_to": cut,
                                   "text": T.FILLER_ASSISTANT[n % len(T.FILLER_ASSISTANT)]}
        self.instances.append({"query_type": None,
            "n": n, "iid": iid, "split": split, "level": level, "dependency": dependency, "native": native,
            "requester": requester, "cut": cut, "query": query, "anchors": anchors,
            "weak": n % 7 == 3,
        })

    def _earliest_profiles(self) -> None:
        """A profile its member states again is anchored where the member first stated it (App. A.3: a fact
        appearing repeatedly is anchored to the earliest message that establishes it)."""
        first = {}
        for pos, slot in enumerate(self.slots):
            if slot is not None:
                first.setdefault((slot["speaker"], slot["text"]), pos)
        for a in (a for inst in self.instances for a in inst["anchors"] if a["profile_only"]):
            slot = self.slots[a["pos"]]
            a["pos"] = first[(slot["speaker"], slot["text"])]

    # -- feedback, filler, records ---------------------------------------------

    def _feedback(self) -> None:
        self.feedback = []
        for pattern, count in self.plan.feedback.items():
            for _ in range(count):
                for _ in range(ATTEMPTS if len(self.slots) > 2 else 0):
                    pos = self.rng.randrange(1, len(self.slots) - 1)
                    if self.slots[pos] is None and self.slots[pos + 1] is None:
                        break
                else:
                    raise ValueError(f"{self.gid}: history too short for its feedback")
                self.slots[pos] = {"speaker": "assistant", "role": "assistant",
                                   "text": T.FILLER_ASSISTANT[pos % len(T.FILLER_ASSISTANT)]}
                self.slots[pos + 1] = {"speaker": self.rng.choice(self.members), "role": "member",
                                       "text": T.FEEDBACK[pattern], "reply_to": pos}
                self.feedback.append((pos + 1, pattern))

    def _fill(self) -> None:
        rng = self.rng
        for pos, slot in enumerate(self.slots):
            if slot is not None:
                continue
            draw = rng.random()
            if draw < 0.025:
                self.slots[pos] = {"speaker": rng.choice(self.members), "role": "member", "text": T.PLACEHOLDER["safety"],
                                   "placeholder": "safety"}
            elif draw < 0.045:
                self.code += 1
                self.slots[pos] = {"speaker": rng.choice(self.members), "role": "member", "placeholder": "attachment",
                                   "text": tuple(t.format(code=self.code) for t in T.PLACEHOLDER["attachment"])}
            elif draw < 0.15:
                self.slots[pos] = {"speaker": "assistant", "role": "assistant", "text": rng.choice(T.FILLER_ASSISTANT),
                                   "reply_to": pos - 1 if pos else None}
            else:
                self.slots[pos] = {"speaker": rng.choice(self.members), "role": "member",
                                   "text": rng.choice(T.FILLER_MEMBER), "filler": True,
                                   "reply_to": pos - 1 if pos and rng.random() < 0.1 else None}

    def _records(self) -> dict[str, list[dict]]:
        rng, gid = self.rng, self.gid
        ids, turns, messages = [], [], []
        turn, k = -1, 0
        clock = datetime(2025, 3, 1, 9, 0, tzinfo=TZ) + timedelta(days=int(gid[1:]))
        for pos, slot in enumerate(self.slots):
            shares = pos > 0 and slot.get("filler") and self.slots[pos - 1].get("filler") and rng.random() < 0.02
            turn, k = (turn, k + 1) if shares else (turn + 1, 0)
            clock += timedelta(seconds=0 if shares else rng.randint(5, 900))
            ids.append(f"{gid}:m{turn:06d}" + (f".{k}" if k else ""))
            turns.append(turn)
            reply = slot.get("reply_to")
            messages.append({"group_id": gid, "turn": turn, "message_id": ids[-1], "speaker": slot["speaker"],
                             "role": slot["role"], "timestamp": clock.isoformat(timespec="seconds"),
                             "reply_to": ids[reply] if reply is not None else None,
                             "placeholder": slot.get("placeholder"), "text_zh": slot["text"][0],
                             "text_en": slot["text"][1]})
        members = [{"group_id": gid, "member_id": m, "profile": None if i % 3 == 2 else T.MEMBER_PROFILE}
                   for i, m in enumerate(self.members)]
        out = {"messages": messages, "members": members, "instances": [], "anchors": [], "atoms": [],
               "criteria": [], "feedback": [], "audit": []}
        for inst in self.instances:
            self._emit(inst, ids, turns, out)
        for n, (pos, pattern) in enumerate(sorted(self.feedback), 1):
            wording = T.FEEDBACK[pattern]
            out["feedback"].append({"feedback_id": f"{gid}:F{n:03d}", "group_id": gid, "message_id": ids[pos],
                                    "pattern": pattern, "wording_zh": wording[0], "wording_en": wording[1]})
        checks = self.params["checks_by_layer"]
        for j in range(self.plan.audit):
            layer = ("gate", "review")[j % 2]
            check = checks[layer][(j // 2) % len(checks[layer])]
            quoted = messages[rng.randrange(len(messages))]["text_zh"][:6] if layer == "review" else None
            out["audit"].append({"instance_id": f"{gid}:I{len(self.instances) + j + 1:04d}", "layer": layer,
                                 "check": check, "reason": T.AUDIT_REASON[layer].format(check=check), "quote": quoted})
        return out

    def _emit(self, inst: dict, ids: list[str], turns: list[int], out: dict) -> None:
        iid, level = inst["iid"], inst["level"]
        anchors = inst["anchors"]
        counted = [a for a in anchors if a["unit"] is not None and a["m3_role"] != "superseded"]
        by_unit = {}
        for a in counted:
            by_unit.setdefault(a["unit"], a)
        facts = [a["fact"] for a in by_unit.values()]
        answer = tuple(j.join(f[k] for f in facts) for k, j in enumerate(T.ANSWER_JOIN)) if level == "L1" else (None, None)
        out["instances"].append({
            "instance_id": iid, "group_id": self.gid, "split": inst["split"], "level": level,
            "dependency": inst["dependency"], "origin": "native" if inst["native"] else "authored",
            "query_type": inst["query_type"],
            "requester": inst["requester"], "cutoff_turn": turns[inst["cut"]], "query_zh": inst["query"][0],
            "query_en": inst["query"][1], "history_contribution": "weak" if inst["weak"] else "strong",
            "reference_answer_zh": answer[0], "reference_answer_en": answer[1]})
        for i, a in enumerate(anchors, 1):
            out["anchors"].append({
                "anchor_id": f"{iid}:A{i:02d}", "instance_id": iid, "message_id": ids[a["pos"]],
                "span_zh": a["span"][0], "span_en": a["span"][1], "fact_zh": a["fact"][0], "fact_en": a["fact"][1],
                "unit": a["unit"], "from_assistant": a["from_assistant"], "profile_only": a["profile_only"],
                "m3_role": a["m3_role"], "premise": a["premise"]})
        if level == "L1":
            atoms = [(u, a["fact"], False) for u, a in by_unit.items()]
            atoms += [(a["unit"], a["fact"], True) for a in anchors if a["m3_role"] == "superseded"]
            for i, (unit, fact, distractor) in enumerate(atoms, 1):
                out["atoms"].append({"atom_id": f"{iid}:T{i:02d}", "instance_id": iid, "unit": unit,
                                     "text_zh": fact[0], "text_en": fact[1], "distractor": distractor})
        else:
            for i, row in enumerate(self._rubric(inst, by_unit, ids), 1):
                out["criteria"].append({"criterion_id": f"{iid}:C{i:02d}", "instance_id": iid, **row})

    def _rubric(self, inst: dict, by_unit: dict, ids: list[str]) -> list[dict]:
        """Grounding per unit, services up to the positive minimum, penalties by pattern (App. B)."""
        limits, weights, n = self.params["rubric"], self.params["weights"], inst["n"]
        rows = []

        def criterion(kind, mandatory, weight, text, pattern=None, evidence=None):
            rows.append({"kind": kind, "mandatory": mandatory, "weight": weight, "pattern": pattern,
                         "evidence": evidence, "text_zh": text[0], "text_en": text[1]})

        for a in by_unit.values():
            criterion("grounding", True, weights["grounding"],
                      tuple(t.format(fact=f) for t, f in zip(T.CRITERION["grounding"], a["fact"])),
                      evidence=ids[a["pos"]])
        for i in range(max(1, limits["positive_min"] - len(rows))):
            criterion("service", True, weights["service"], T.CRITERION["service"][(n + i) % len(T.CRITERION["service"])])
        # more than mandatory_max mandatory: the lowest-weight ones are downgraded to optional, optional_weight
        for row in sorted(rows, key=lambda r: r["weight"])[:max(0, len(rows) - limits["mandatory_max"])]:
            row.update(mandatory=False, weight=limits["optional_weight"])
        patterns = list(weights["penalty"])
        superseded = [a for a in inst["anchors"] if a["m3_role"] == "superseded"]
        first = next(iter(by_unit.values()))
        penalties = [("superseded_value", superseded[0])] if superseded else []
        others = [p for p in patterns if not superseded or p != "superseded_value"]
        penalties += [(others[(n + i) % len(others)], first) for i in range(n % (limits["penalty_max"] + 1 - len(penalties)))]
        for pattern, a in penalties:
            weight = weights["m3_superseded_value"] if superseded and pattern == "superseded_value" else weights["penalty"][pattern]
            criterion("penalty", False, weight, tuple(t.format(fact=f) for t, f in zip(T.CRITERION["penalty"], a["fact"])),
                      pattern=pattern, evidence=ids[a["pos"]])
        return rows
