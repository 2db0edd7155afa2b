"""One synthetic participant: a stream with planted facts and episodes, and the
four derived files that cite it.

Every record is built to satisfy the release rules by construction: a claim's
evidence messages contain the claim's words; a callback probe comes after the
episode or claim it calls back to, outside the recent window unless its
on-screen verdict is `clear`; tier comes from the vocabulary's tier rule
(`Schemas.tier_of`); the strict readings derive from the on-screen verdict.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from .. import EMPTIED_BY_B
from . import text as T
from .plan import ParticipantPlan
from .stream import OFFSETS, Message, skeleton

# The shape the paper's findings rest on (Tables 19-21, 33 and the abstract): almost every probe has its
# current thread recorded (recency finds a required message for 95.9% of probes), the referent of most of them
# lives in that thread (86% of the proportional stratum) and of the rest in nothing prior; memory-bearing
# probes are 3.4% of the proportional stratum (40 of 1,169), carry their thread too, take the on-screen
# verdicts of Table 20 (154 clear, 45 borderline, 205 not on screen), and only 11 of the 154 clear ones cite a
# reference inside the recent window.
SHAPE = {"thread": 0.97, "thread_locus": 0.89, "callback_thread": 0.95, "natural_rate": 0.034,
         "on_screen": {"clear": 154, "borderline": 45, "not_on_screen": 205}, "on_screen_ref": 11 / 154}


@dataclass
class Claim:
    index: int
    field: str
    slot: str
    value: str
    text: str
    evidence: list[Message]


@dataclass
class Episode:
    words: dict
    message: Message


@dataclass
class ChatRow:
    probe: Message
    stratum: str
    tier: str = "basic"
    sampled_as: str = "basic"
    locus: str = "none"
    recent: list[Message] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    episodes: list[Episode] = field(default_factory=list)
    removed: list[Message] = field(default_factory=list)
    on_screen: str | None = None
    withdrawn: str | None = None
    referent: str | None = None
    gold: str | None = None


class Participant:
    def __init__(self, plan: ParticipantPlan, seed: int, params: dict, schemas, index: int):
        self.plan, self.pid, self.schemas = plan, plan.pid, schemas
        self.vocab = schemas.vocabulary
        self.rng = random.Random(f"{seed}:{plan.pid}")
        self.window = params["recent_window"]
        self.long_range = params["long_range_min_days"]
        self.cuts = params["confidence_bands"]
        self.index = index
        self.msgs = skeleton(self.rng, plan.days, plan.active_days, plan.messages, params["session_gap_minutes"],
                             start_offset_days=7 * (index % 52), offset=OFFSETS[index % len(OFFSETS)])
        self.users = [m for m in self.msgs if m.sender == "user"]
        self.claims: list[Claim] = []
        self.rows: list[ChatRow] = []
        self._clear_seen = False

    # -- planting ---------------------------------------------------------

    def _free(self, pool, *, after=-1, before=None, avoid=("cold_open", "probe")):
        before = len(self.msgs) if before is None else before
        return [m for m in pool if after < m.turn < before and not (m.roles & set(avoid)) and m.media is None]

    def _plant_facts(self):
        candidates = self._free(self.users)
        for i in range(self.plan.claims):
            field_, slot, value, sentence, claim = T.FACTS[i % len(T.FACTS)]
            words = {"w": self.rng.choice(T.FACT_WORDS), "name": self.rng.choice(T.NAMES),
                     "place": self.rng.choice(T.PLACES)}
            k = self.rng.choice((1, 1, 2, 2, 3))
            bare = self.index == 0 and i == 0  # the real release has one claim without evidence
            evidence = [] if bare else sorted(self.rng.sample(candidates, min(k, len(candidates))),
                                              key=lambda m: m.turn)
            for m in evidence:
                m.parts.append(sentence.format(**words))
                m.roles.add("fact")
            self.claims.append(Claim(i + 1, field_, slot, value.format(**words), claim.format(**words), evidence))

    def _new_episode(self, probe: Message, inside_window: bool, companion: bool) -> Episode | None:
        lo, hi = (probe.turn - self.window, probe.turn) if inside_window else (-1, probe.turn - self.window)
        pool = self._free(self.msgs, after=lo - 1 if inside_window else -1, before=hi,
                          avoid=("cold_open", "probe", "episode"))
        pool = [m for m in pool if (m.sender == "companion") == companion] or pool
        if not pool:
            return None
        m = self.rng.choice(pool)
        a, b = self.rng.sample(T.EPISODE_WORDS, 2)
        words = {"a": a, "b": b, "name": self.rng.choice(T.NAMES)}
        m.parts.append((T.EPISODE_COMPANION if m.sender == "companion" else T.EPISODE_USER).format(**words))
        m.roles.add("episode")
        return Episode(words, m)

    def _old_claim(self, probe: Message) -> Claim | None:
        pool = [c for c in self.claims if c.evidence and c.evidence[-1].turn < probe.turn - self.window]
        return self.rng.choice(pool) if pool else None

    # -- chat rows --------------------------------------------------------

    def _strata_sizes(self):
        """The session openers, then how many cold opens, the withdrawn rows' codes, how many enriched, proportional
        and proportional memory-bearing rows: the plan's where it fixes them (the paper's), else in the real
        release's proportions, every withdrawn code in turn."""
        n = self.plan.chat
        openers = [m for m in self.users if m.opens_session and m.turn > 0]
        if self.plan.chat_strata:
            abst, enriched, codes = self.plan.chat_strata
        else:
            abst, enriched = max(2, round(0.21 * n)), max(3, round(0.18 * n))
            cycle = self.vocab["withdrawn"]
            codes = tuple(cycle[(self.index * 2 + k) % len(cycle)] for k in range(max(2, round(0.019 * n))))
        abst = min(abst, len(openers))
        proportional = n - abst - len(codes) - enriched
        return openers, abst, codes, enriched, proportional, max(1, round(SHAPE["natural_rate"] * proportional))

    def _callback(self, probe: Message, stratum: str, tier: str) -> ChatRow:
        rng = self.rng
        verdict = rng.choices(list(SHAPE["on_screen"]), list(SHAPE["on_screen"].values()))[0]
        row = ChatRow(probe, stratum, on_screen=verdict)
        claim = self._old_claim(probe) if tier in ("intermediate", "edge") else None
        if claim is None and tier != "hard":
            tier = "hard"
        if tier in ("hard", "edge"):
            companion = tier == "hard" and rng.random() < 0.25
            # the first participant's first clear callback always shows the case, as the real release does
            inside = verdict == "clear" and (self._first_clear() or rng.random() < SHAPE["on_screen_ref"])
            episode = self._new_episode(probe, inside_window=inside, companion=companion)
            if episode is None:
                return self._basic(probe, "proportional")
            row.episodes = [episode]
        if claim is not None:
            row.claims = [claim]
        row.tier = tier
        row.sampled_as = tier if rng.random() < 0.7 else rng.choice(self.vocab["tier"])
        lexical = rng.random() < 0.75
        if row.episodes:
            ep = row.episodes[0]
            row.referent = f"{ep.words['a']} {ep.words['b']}"
            if ep.message.sender == "companion":
                row.locus, sentence = "companion_behavior", T.CALLBACK_COMPANION
            else:
                row.locus, sentence = "earlier_exchange", rng.choice(T.CALLBACK_LEXICAL)
            probe.parts.append(sentence.format(**ep.words) if lexical or row.locus == "companion_behavior"
                               else rng.choice(T.CALLBACK_BLIND))
            if claim is not None:
                probe.parts.append(T.CALLBACK_PROFILE.format(w=claim.value))
                row.gold = T.GOLD["edge"].format(w=claim.value, **ep.words)
            else:
                row.gold = T.GOLD["episode"].format(**ep.words)
        else:
            row.locus, row.referent = "profile_claim", claim.value
            probe.parts.append(T.CALLBACK_PROFILE.format(w=claim.value) if lexical else rng.choice(T.CALLBACK_BLIND))
            row.gold = T.GOLD["profile"].format(w=claim.value)
        if rng.random() < SHAPE["callback_thread"]:
            row.recent = [self.msgs[probe.turn - 1]]
        if rng.random() < 0.2:
            cited = {m.turn for m in row.recent} | {e.message.turn for e in row.episodes}
            spare = [m for m in self.msgs[: probe.turn] if m.turn not in cited]
            row.removed = [rng.choice(spare)] if spare else []
        return row

    def _first_clear(self) -> bool:
        first = self.index == 0 and not self._clear_seen
        self._clear_seen = True
        return first

    def _basic(self, probe: Message, stratum: str) -> ChatRow:
        rng = self.rng
        row = ChatRow(probe, stratum, sampled_as=rng.choices(self.vocab["tier"], [0.7, 0.15, 0.05, 0.1])[0])
        probe.parts.append(rng.choice(T.FILLER_USER))
        if probe.turn > 0 and rng.random() < SHAPE["thread"]:
            row.recent = self.msgs[max(0, probe.turn - rng.randint(1, 3)): probe.turn]
            row.locus = "current_thread" if rng.random() < SHAPE["thread_locus"] else "none"
        row.gold = T.GOLD["basic"]
        return row

    def _plan_chat(self):
        rng = self.rng
        openers, n_abst, codes, n_enriched, n_prop, n_prop_mb = self._strata_sizes()
        for m in rng.sample(openers, n_abst):
            m.roles.add("cold_open")
            m.parts.append(rng.choice(T.OPENERS))
            self.rows.append(ChatRow(m, "abstention", locus="none"))
        self._plant_facts()
        late = self._free(self.users, after=self.window + 4)
        callbacks = sorted(rng.sample(late, min(len(late), n_enriched + n_prop_mb)), key=lambda m: m.turn)
        for m in callbacks:
            m.roles.add("probe")
        natural = set(rng.sample(range(len(callbacks)), min(n_prop_mb, len(callbacks))))
        tiers = ["hard", "intermediate", "edge", "hard", "edge"]
        for k, m in enumerate(callbacks):
            stratum = "proportional" if k in natural else "enriched"
            self.rows.append(self._callback(m, stratum, tiers[k % len(tiers)]))
        rest = self._free(self.users, after=0)
        basics = rng.sample(rest, min(len(rest), n_prop - n_prop_mb + len(codes)))
        for k, m in enumerate(basics):
            m.roles.add("probe")
            row = self._basic(m, "proportional")
            if k < len(codes):
                row.withdrawn = codes[k]
                if row.withdrawn == EMPTIED_BY_B:
                    self._emptied_by_b(row)
            self.rows.append(row)
        if basics:
            basics[-1].session = None  # a probe that carries no session index, as 13 real rows do
        self.rows.sort(key=lambda r: r.probe.turn)

    def _emptied_by_b(self, row: ChatRow) -> None:
        """A row withdrawn because phase B removed every reference: what phase A found in the current thread (the
        message before the probe, at least) is trace B's `removed`, and the context B left is empty (SIG11)."""
        row.removed, row.recent = row.recent or self.msgs[row.probe.turn - 1: row.probe.turn], []
        row.locus = "current_thread"

    # -- text -------------------------------------------------------------

    def _fill_text(self):
        rng, media = self.rng, self.vocab["media"]
        plain = [m for m in self.msgs if not m.parts]
        for k, m in enumerate(rng.sample(plain, max(len(media), len(plain) // 15))):
            m.media = media[k % len(media)]
        for m in self.msgs:
            if m.media and not m.parts:
                m.parts.append("" if rng.random() < 0.6 else "look at this")
            elif not m.parts or (m.sender == "user" and "probe" not in m.roles and rng.random() < 0.3):
                m.parts.insert(0, rng.choice(T.FILLER_USER if m.sender == "user" else T.FILLER_COMPANION))

    # -- records ----------------------------------------------------------

    def dayid(self, m: Message) -> str:
        return m.dayid(self.pid)

    def _ids(self, msgs) -> list[str]:
        """dayids of the messages, in stream order, each once."""
        return [self.dayid(m) for m in sorted({m.turn: m for m in msgs}.values(), key=lambda m: m.turn)]

    def source(self) -> list[dict]:
        return [{"participant_id": self.pid, "turn": m.turn, "dayid": self.dayid(m), "db_id": m.db_id,
                 "sender": m.sender, "timestamp": m.timestamp, "session": m.session, "media": m.media,
                 "text": " ".join(m.parts)} for m in self.msgs]

    def profile(self) -> list[dict]:
        rng, labels, out = self.rng, self.vocab["confidence_label"], []
        verdicts = self.vocab["audit_verdict"] + [None]
        for c in self.claims:
            bare = not c.evidence
            confidence = None if bare else round(rng.uniform(0.3, 0.99), 2)
            label = None if confidence is None else labels[sum(confidence >= cut for cut in self.cuts)]
            seen = not bare and rng.random() > 0.12
            out.append({
                "claim_id": f"{self.pid}:P{c.index:04d}", "participant_id": self.pid, "field": c.field,
                "text": c.text, "evidence": None if bare else self._ids(c.evidence),
                "evidence_count": 0 if bare else len(c.evidence), "confidence": confidence,
                "confidence_label": label,
                "first_seen": c.evidence[0].date if seen else None,
                "last_seen": c.evidence[-1].date if seen else None,
                "temporality": None if rng.random() < 0.12 else rng.choice(self.vocab["temporality"]),
                "audit_verdict": verdicts[c.index % len(verdicts)],
            })
        return out

    def persona(self) -> list[dict]:
        rng, out = self.rng, []
        by_slot = {c.slot: c for c in self.claims if c.evidence}
        for slot, category in self.vocab["persona_slot"].items():
            claim = by_slot.get(slot)
            if claim is None and rng.random() < 0.3 and by_slot:
                claim = by_slot[rng.choice(sorted(by_slot))]
            filled = claim is not None and rng.random() < 0.85
            out.append({
                "participant_id": self.pid, "slot": slot, "category": category,
                "value": (claim.value if slot == claim.slot else f"{slot.replace('_', ' ')}: inferred from {claim.value}")
                if filled else None,
                "evidence": self._ids(claim.evidence) if filled else None,
                "rationale": (f"Stated in {len(claim.evidence)} message(s)." if rng.random() < 0.8 else None)
                if filled else None,
            })
        return out

    def chat(self) -> list[dict]:
        rule = self.vocab["tier_rule"]
        # every fourth participant has one row relabeled by record (the real release has 3 of 2,034)
        shipped = [r for r in self.rows if r.withdrawn is None and r.stratum != "abstention"]
        relabeled = shipped[0] if shipped and self.index % 4 == 0 else None
        out = []
        for n, row in enumerate(self.rows, 1):
            recorded = bool(row.claims or row.episodes)
            cold = row.stratum == "abstention"
            categories = self.vocab["chat_category"][row.tier]
            category = categories[(n + self.index) % len(categories)]
            ruled = categories[(n + self.index + 1) % len(categories)] if row is relabeled else category
            grounding = self._ids(row.recent[-1:] + [e.message for e in row.episodes]
                                  + [m for c in row.claims for m in c.evidence[:1]])
            gold = None if cold or row.withdrawn else row.gold
            referent = row.referent
            if referent is None and row.recent and row.recent[-1].parts:
                referent = " ".join(" ".join(row.recent[-1].parts).split()[:3]) or None
            removed = self._ids(row.removed)
            out.append({
                "item_id": f"{self.pid}:C{n:04d}", "participant_id": self.pid, "stratum": row.stratum,
                "cold_open": cold, "scoreable": row.withdrawn is None, "withdrawn": row.withdrawn,
                "probe": " ".join(row.probe.parts), "probe_dayid": self.dayid(row.probe), "gold_response": gold,
                "sampled_as": row.sampled_as, "tier": row.tier, "category": category, "locus": row.locus,
                "required_context": {
                    "recent_context": self._ids(row.recent),
                    "profile_refs": [f"{self.pid}:P{c.index:04d}" for c in row.claims],
                    "episode_refs": self._ids(e.message for e in row.episodes),
                    "recent_needed": bool(row.recent),
                },
                "grounding_dayids": grounding,
                "memory_bearing": {"recorded": recorded, "strict": recorded and row.on_screen != "clear",
                                   "strict2": recorded and row.on_screen == "not_on_screen"},
                "on_screen": row.on_screen if recorded else None,
                "trace": {
                    "A": {"result": "pass", "rationale": "Names what the probe refers to and where it lives.",
                          "referent_text": referent, "locus": row.locus},
                    "B": {"result": "revised" if removed else "pass",
                          "rationale": "Dropped references whose evidence did not verify." if removed else None,
                          "removed": removed},
                    "C": {"result": "pass", "rationale": "Tier from the context shape; category by rule.",
                          "tier": row.tier, "category": ruled, "rule": rule[row.tier],
                          "relabeled": None if ruled == category else {
                              "category": category, "reason": "Relabeled by record: the auditor's category stands."}},
                    "D": {"result": "pass", "rationale": "Reply written from the recorded context only.",
                          "gold_response": gold, "grounding_dayids": grounding},
                    "E": {"result": "fail" if row.withdrawn else "pass", "rationale": row.withdrawn,
                          "ok": row.withdrawn is None, "category_ok": True},
                },
            })
        return out

    def qa(self) -> list[dict]:
        cats = self.vocab["qa_category"]
        with_ev = [c for c in self.claims if c.evidence]
        out = []
        for n in range(1, self.plan.qa + 1):
            category = cats[(n - 1) % len(cats)]
            evidence, answer, question = self._question(category, with_ev)
            if evidence is None:
                category, (evidence, answer, question) = "basic_fact", self._question("basic_fact", with_ev)
            last = max((m.turn for m in evidence), default=0)
            asked = self._asked_after(category, evidence, last)
            out.append({
                "item_id": f"{self.pid}:Q{n:04d}", "participant_id": self.pid, "question": question,
                "answer": answer, "answerable": answer is not None, "category": category,
                "evidence": self._ids(evidence), "asked_after": self.dayid(asked), "excluded": None,
            })
        reasons = self.vocab["qa_excluded"]
        for k, row in enumerate(out[len(out) - self.plan.qa_excluded:]):
            row["excluded"] = reasons[(self.plan.first_reason + k) % len(reasons)]
        return out

    def _asked_after(self, category, evidence, last) -> Message:
        if category == "long_range":
            first_day = min(m.day for m in evidence)
            return next(m for m in reversed(self.msgs) if m.day - first_day >= self.long_range)
        return self.msgs[self.rng.randint(last, len(self.msgs) - 1)]

    def _question(self, category, claims):
        rng = self.rng
        if category == "unanswerable":
            return [], None, f"What did I say about my trip to {rng.choice(T.PLACES)} in {rng.randint(1990, 1999)}?"
        if category == "long_range":
            pool = [c for c in claims if self.msgs[-1].day - c.evidence[0].day >= self.long_range]
            if not pool:
                return None, None, None
            c = rng.choice(pool)
            return c.evidence[:1], c.value, f"Way back at the start, what did I tell you about {c.field.replace('_', ' ')}?"
        if category == "multi_hop":
            for _ in range(50):
                a, b = rng.sample(claims, 2)
                ev = {a.evidence[0].turn: a.evidence[0], b.evidence[0].turn: b.evidence[0]}
                if len({m.session for m in ev.values()} - {None}) >= 2:
                    return list(ev.values()), f"{a.value}; {b.value}", f"How do {a.value} and {b.value} fit together for me?"
            return None, None, None
        if category == "knowledge_update":
            pool = [c for c in claims if len(c.evidence) >= 2]
            if not pool:
                return None, None, None
            c = rng.choice(pool)
            return c.evidence, c.value, f"What is the latest on {c.value} for me?"
        if category == "temporal":
            c = rng.choice(claims)
            return c.evidence[:1], c.evidence[0].date, f"When did I first mention {c.value}?"
        c = rng.choice(claims)
        return c.evidence, c.value, f"({category.replace('_', ' ')}) What do you know about my {c.field.replace('_', ' ')}?"

    def records(self) -> dict[str, list[dict]]:
        self._plan_chat()
        self._fill_text()
        profile = self.profile()
        return {"source": self.source(), "profile": profile, "persona": self.persona(), "chat": self.chat(),
                "qa": self.qa()}
