"""A judge behind any OpenAI-compatible chat-completions endpoint, with versioned prompts.

The client is the `openai` library pointed at `--endpoint` (a hosted API, a
vLLM or llama.cpp server, ...). Every call is made at `JUDGE_TEMPERATURE`
with one user message: a prompt file from `prompts/` filled in with
`string.Template`. The model must answer with one JSON object holding the
fields the caller asks for; an answer that does not is a `JudgeError` for that
item, never a guessed verdict. Each verdict records the model, the sha256 of
the prompt file's bytes and the temperature (`stamp`).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from string import Template

from ..files import decode, read_bytes, strict_json
from ..formats import DEFAULT, part
from ..paths import REPO_ROOT
from ..release import ReadError
from .endpoint import RETRIES, Chat, Unreadable, api_key
from .jsonl import problem
from .verdicts import JUDGE_TEMPERATURE

PROMPTS_DIR = REPO_ROOT / "prompts"
JUDGE_PROMPTS = part(DEFAULT, "settings").JUDGE_PROMPTS  # the prompt files `load_prompt` names by use: the default format's


class JudgeError(Unreadable):
    """The model's answer could not be read as the verdict asked for."""


@dataclass(frozen=True)
class Prompt:
    path: Path
    template: Template
    sha256: str


def load_prompt(use: str, path=None) -> Prompt:
    """The prompt for `use` ("chat", "qa", "match"), or the file at `path` when given."""
    path = Path(path) if path else PROMPTS_DIR / JUDGE_PROMPTS[use]
    data = read_bytes(path)  # a regular file, or one line saying what it is
    return Prompt(path, Template(decode(data, path)), hashlib.sha256(data).hexdigest())


def parse_verdict(content: str, fields: dict, optional: dict | None = None) -> dict:
    """The first JSON object in `content`, restricted to `fields` {name: (types, choices)} and checked; the
    `optional` fields are kept, checked, when the answer gives them."""
    start = (content or "").find("{")
    if start < 0:
        raise JudgeError(f"no JSON object in the answer: {content[:80]!r}")
    try:
        answer = strict_json(content[start:], prefix=True)
    except ValueError as exc:
        raise JudgeError(f"unreadable JSON in the answer ({exc})") from None
    if not isinstance(answer, dict):
        raise JudgeError(f"the answer is not a JSON object: {json.dumps(answer)[:80]}")
    for name, (kinds, choices) in fields.items():
        why = problem(answer.get(name), kinds, choices)
        if why:
            raise JudgeError(f"field '{name}' in the answer: {why}")
    given = {name: spec for name, spec in (optional or {}).items() if answer.get(name) is not None}
    for name, (kinds, choices) in given.items():
        why = problem(answer[name], kinds, choices)
        if why:
            raise JudgeError(f"field '{name}' in the answer: {why}")
    return {name: answer[name] for name in [*fields, *given]}


class Judge:
    def __init__(self, endpoint: str, model: str, key: str, timeout: float, retries: int = RETRIES):
        self.endpoint, self.model = endpoint, model
        self.chat = Chat(endpoint, model, key, timeout, retries)

    def stamp(self, prompt: Prompt) -> dict:
        return {"model": self.model, "prompt_sha256": prompt.sha256, "temperature": JUDGE_TEMPERATURE}

    def ask(self, prompt: Prompt, values: dict, fields: dict, optional: dict | None = None) -> dict:
        """Fill the prompt with `values` (`fill`), ask the model, and return the verdict fields it answered."""
        content = self.chat.ask(fill(prompt, values), JUDGE_TEMPERATURE)
        return parse_verdict(content, fields, optional)

    async def ask_async(self, prompt: Prompt, values: dict, fields: dict, optional: dict | None = None) -> dict:
        """`ask`, one of many requests under way (`concurrency.run_all`)."""
        answer = await self.chat.complete(fill(prompt, values), JUDGE_TEMPERATURE)
        return parse_verdict(answer.text, fields, optional)


def fill(prompt: Prompt, values: dict) -> list[dict]:
    """The one user message of `prompt` filled with `values`. A prompt that leaves a value out, names a placeholder
    no value fills or holds a stray '$' is a one-line error."""
    template = prompt.template
    shown = {m.group("named") or m.group("braced") for m in template.pattern.finditer(template.template)}
    unseen = [name for name in values if name not in shown]
    if unseen:
        raise ReadError(prompt.path, f"never shows {', '.join('$' + name for name in unseen)}: the model would "
                                     "answer without it")
    try:
        text = template.substitute(values)
    except KeyError as exc:
        raise ReadError(prompt.path, f"${exc.args[0]} is not a placeholder this prompt is filled with "
                                     f"({', '.join('$' + name for name in values)})") from None
    except ValueError as exc:  # a '$' that starts no placeholder
        raise ReadError(prompt.path, f"{exc}; write $$ for a dollar sign") from None
    return [{"role": "user", "content": text}]


def judge_from(args, prefix: str = "") -> Judge:
    """The judge that `options.add_judge(p, prefix=prefix)`'s flags name."""
    option = lambda name: getattr(args, f"{prefix}{name}")  # noqa: E731
    return Judge(option("endpoint"), option("model"), api_key(option("api_key_env")), args.timeout,
                 getattr(args, "retries", RETRIES))
