"""A system's replies from any OpenAI-compatible chat endpoint, written as `judge` reads them (`realcompanion respond`).

Each thing asked is one user message: a versioned prompt file from `prompts/` filled with the item's context
and its query (`judge_client.fill`, as the judge's prompts are filled). Its row in the replies file is what
`judge` reads (the item's key, its condition and the reply, under the field the format names) and, beside it,
where the reply came from:

  system          {"model", "prompt_sha256", "temperature"}: the model asked, the sha256 of the prompt file's
                  bytes and the temperature (0 unless given: the paper's generator ran at 0, Table 31)
  usage           {"tokens_in", "tokens_out", "latency_s"}: the tokens the endpoint counted (null when it
                  says not) and the seconds from request to answer, retries included
  request_sha256  the sha256 of the message sent (UTF-8 JSON of the messages), which `--resume` compares

What each format asks, under which conditions and with which context, is its own (its `respond` module).
"""
from __future__ import annotations

import hashlib
import json

from .endpoint import Chat
from .judge_client import PROMPTS_DIR, Prompt, load_prompt

RESPOND_TEMPERATURE = 0  # Table 31: the ablation generator answered at temperature 0


def respond_prompt(use: str, name: str) -> Prompt:
    """The versioned prompt file `name` of prompts/, for `use` (a track or a level)."""
    return load_prompt(use, PROMPTS_DIR / name)


def request_sha256(messages: list[dict]) -> str:
    return hashlib.sha256(json.dumps(messages, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


def asked(key: str, key_value: str, condition: str, prompt: Prompt, messages, build=None) -> dict:
    """One thing to ask: named by `key` and condition, with the digest of its `messages`; `build()` makes them
    again when they are sent (default: keep them), so a long context need not be held until then."""
    return {key: key_value, "condition": condition, "request_sha256": request_sha256(messages), "prompt": prompt,
            "messages": build or (lambda: messages)}


class Responder:
    """The system under evaluation: a model behind an endpoint, asked at one temperature."""

    def __init__(self, chat: Chat, temperature: float = RESPOND_TEMPERATURE):
        self.chat, self.temperature = chat, temperature

    def stamp(self, prompt: Prompt) -> dict:
        return {"model": self.chat.model, "prompt_sha256": prompt.sha256, "temperature": self.temperature}

    def answer_of(self, reply_field: str):
        """The coroutine `verdicts.ask_each` awaits for each thing asked: its reply, stamp and usage."""
        async def answer(item: dict) -> dict:
            done = await self.chat.complete(item["messages"](), self.temperature, one_of_many=True)
            return {reply_field: done.text, "system": self.stamp(item["prompt"]),
                    "usage": {"tokens_in": done.tokens_in, "tokens_out": done.tokens_out, "latency_s": done.latency}}
        return answer


def respond_all(out, key: str, items: list[dict], read, responder: Responder, reply_field: str, concurrency: int,
                unit: str, bar_position: int | None = None):
    """Ask for every one of `items` that `out` holds no reply to (all of them unless `read`, `--resume`), writing
    each reply as it comes; returns the replies file (`verdicts.VerdictsOut`) and the items left unanswered."""
    from tqdm import tqdm

    from .verdicts import VerdictsOut, ask_each

    file = VerdictsOut(out, key, items, lambda item: responder.stamp(item["prompt"]), read, stamp_field="system",
                       digest="request_sha256", noun="replies")
    with file, tqdm(total=len(file.pending), unit=unit, desc="respond", disable=None, position=bar_position) as bar:
        failures = ask_each(file, responder.answer_of(reply_field), concurrency, bar.update)
    file.list_unjudged(failures, "unanswered")
    return file, failures


def responder_from(args, prefix: str = "") -> Responder:
    """The system that `options.add_judge(p, prefix)`'s flags name, at --temperature."""
    from .endpoint import api_key

    option = lambda name: getattr(args, f"{prefix}{name}")  # noqa: E731
    chat = Chat(option("endpoint"), option("model"), api_key(option("api_key_env")), args.timeout, args.retries)
    return Responder(chat, args.temperature)


def chosen_conditions(given, allowed) -> list[str] | None:
    """The --condition values (default: every one `allowed`, in order), or None after one usage line naming one that
    is not allowed."""
    import sys

    unknown = [c for c in given or () if c not in allowed]
    if unknown:
        print(f"error: --condition {unknown[0]}: not one of {', '.join(allowed)}", file=sys.stderr)
        return None
    return list(dict.fromkeys(given)) if given else list(allowed)


def first(items: list[dict], limit: int | None) -> list[dict]:
    """The first `limit` items of each condition (all without a limit)."""
    if limit is None:
        return items
    seen: dict[str, int] = {}
    return [i for i in items if (seen.__setitem__(i["condition"], seen.get(i["condition"], 0) + 1)
                                 or seen[i["condition"]] <= limit)]
