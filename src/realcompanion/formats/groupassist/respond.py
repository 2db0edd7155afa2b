"""`realcompanion respond <GroupAssistBench folder>`: a system's L1 answers and L2 replies, as `judge` reads them.

Each eval instance is asked under each condition (GroupAssistBench §4.1, Table 3): `full_context` (every record of
its history), `bm25` and `dense` (the top `retrieval_k` records of that ranker, in history order), the very
records `baselines` scores (`scoring.Rankers`): only its group's records before the cutoff, so nothing at or after
it reaches the system. Records are serialized `#turn [speaker] content` (App. D) in the language of evaluation
(Chinese in the paper; the first the release declares, `groupassist.languages`) into the versioned prompt of the
instance's level; the requester is named, or, for an authored question nobody in the group asked (a null
requester), `UNASKED`. A history is rebuilt when
its request is sent, not held from the start: full-context prompts of a paper-size release hold hundreds of
megabytes between them.
"""
from __future__ import annotations

import sys

CONDITIONS = ("full_context", "bm25", "dense")
QUERY = {"L1": "question", "L2": "request"}
RESPOND_PROMPTS = {"L1": "groupassist-respond-l1.v1.txt", "L2": "groupassist-respond-l2.v1.txt"}
UNASKED = "A member"  # the prompt's own words ("A member asks you a question") where no member is named


def asked_items(release, rankers, conditions, k: int, progress=None) -> list[dict]:
    """Everything to ask: each eval instance under each condition, with its records' positions in the messages."""
    from ...scoring.respond import asked, respond_prompt
    from .scoring import lines

    prompts = {level: respond_prompt(level, RESPOND_PROMPTS[level]) for level in QUERY}
    messages, out, lang = rankers.messages, [], rankers.lang
    # each message's line as `scoring.serialized` writes it, made once: a request's history is joined from its
    # records' lines when it is sent (held until then, the histories would take gigabytes)
    line_of = dict(zip(messages.index.tolist(), lines(messages, lang)))

    def build(prompt, row, positions):
        from ...scoring.judge_client import fill

        positions = positions.tolist()
        query = {"requester": row.requester if isinstance(row.requester, str) else UNASKED,
                 QUERY[row.level]: getattr(row, f"query_{lang}")}
        return lambda: fill(prompt, {"history": "\n".join([line_of[p] for p in positions]), **query})

    for condition in conditions:
        for row in rankers.instances.itertuples():
            group, n = rankers.history(row)
            records = group.visible(n) if condition == "full_context" else \
                group.top(rankers.rank(condition, group, n, getattr(row, f"query_{lang}")), k)
            positions, prompt = records.index.to_numpy(), prompts[row.level]
            again = build(prompt, row, positions)
            out.append(asked("instance_id", row.instance_id, condition, prompt, again(), again))
            if progress:
                progress()
    return out


def run(args) -> int:
    from ...files import output_file
    from . import GroupAssistRelease

    release = GroupAssistRelease(args.path)
    out = output_file(args.out, release.root)
    conditions, embedder = groupassist_conditions(args)
    if conditions is None:
        return 2
    file, failures = groupassist_replies(release, args, out, conditions, embedder)
    print(f"wrote {out}: {file.summary()} by {args.model}; {len(failures)} unanswered")
    return 1 if failures else 0


def groupassist_replies(release, args, out, conditions, embedder, bar_position: int | None = None):
    """`respond` on a GroupAssistBench release: the replies file and the instances left unanswered."""
    from tqdm import tqdm

    from ...scoring.respond import first, respond_all, responder_from
    from .judging import Instances, read_responses
    from .scoring import Rankers

    instances = Instances(release)
    with tqdm(total=0, unit="text", desc="embeddings", disable=None if embedder else True) as bar:
        rankers = Rankers(release, release.evaluation_language, embedder, bar)
    with tqdm(total=len(rankers.instances) * len(conditions), unit="instance", desc="contexts", disable=None,
              position=bar_position) as bar:
        items = first(asked_items(release, rankers, conditions, release.params["retrieval_k"], bar.update), args.limit)
    read = (lambda path, data: read_responses(path, instances, data)) if args.resume else None
    return respond_all(out, "instance_id", items, read, responder_from(args), "response", args.concurrency,
                       "instance", bar_position)


def groupassist_conditions(args):
    """The conditions asked for (default: all, dense only with --dense-endpoint) and the embedder; (None, None)
    after one usage line."""
    from ...scoring.embeddings import embedder_from
    from ...scoring.respond import chosen_conditions

    embedder = embedder_from(args)
    if embedder is None and "dense" in (args.condition or ()):
        print("error: --condition dense needs --dense-endpoint (an OpenAI-compatible embeddings API)", file=sys.stderr)
        return None, None
    return chosen_conditions(args.condition, CONDITIONS if embedder else CONDITIONS[:2]), embedder
