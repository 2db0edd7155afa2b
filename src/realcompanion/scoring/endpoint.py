"""An OpenAI-compatible endpoint reached through the `openai` client; systems, judges and embeddings all use it.

`async_client` builds the client one way for every use (base URL, key, timeout, retries), one a request at a
time (`body`) and many at a time (`concurrency`) alike. The `openai` client retries
a request that timed out, could not connect, or was answered 408, 409, 429 or 5xx, up to `retries` times
with exponential backoff and jitter, waiting what a 429's `Retry-After` asks (up to a minute) instead.
`answering` turns what is still wrong after that (an HTTP error status, an unreachable server) into a
`ReadError` naming the endpoint, so a command prints one line and exits 2; an answer refusing one request
for what it holds (400, 413, 422: a prompt longer than the model's context) is `Refused`, and only that
request goes unanswered. Every answer is read by `read_whole`, one request at a time or many: whole within the
timeout, counted from the request's start, its retries included (the client's own timeout bounds each read: a
server sending a byte a second held a request for ever), and no larger than a bound, checked on its declared
length before it is read and as it arrives. An unset key variable sends "none": the client needs some key, and a
local server asks for none.
"""
from __future__ import annotations

import asyncio
import json
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass

from ..errors import ReadError
from ..files import strict_json

RETRIES = 2
ANSWER_BYTES = 1 << 23  # the most bytes of a chat completion read: a verdict is a few hundred, a reply a few thousand
REFUSED = (400, 413, 422)  # statuses that refuse one request for its content, not the endpoint for every request


class Unanswered(Exception):
    """One request left without a usable answer; the run goes on and names it."""


class Refused(Unanswered):
    """The endpoint refused one request for what it holds (`REFUSED`)."""


class Unreadable(Unanswered):
    """The endpoint's answer holds no text that can be read."""


def api_key(variable: str) -> str:
    return os.environ.get(variable) or "none"


def async_client(endpoint: str, key: str, timeout: float, retries: int = RETRIES):
    from openai import AsyncOpenAI

    return AsyncOpenAI(base_url=endpoint, api_key=key, timeout=timeout, max_retries=retries)


@contextmanager
def answering(endpoint: str, one_of_many: bool = False):
    """Errors of the endpoint as one line; with `one_of_many`, a request refused for its content is `Refused`."""
    import httpx
    import openai

    try:
        yield
    except openai.APIStatusError as exc:
        if one_of_many and exc.status_code in REFUSED:
            raise Refused(f"the endpoint refused the request: HTTP {exc.status_code}: {exc.message}") from None
        raise ReadError(endpoint, f"the endpoint answered HTTP {exc.status_code}: {exc.message}") from None
    except (openai.OpenAIError, httpx.HTTPError) as exc:  # httpx's: the body cut or stalled once it is under way
        raise ReadError(endpoint, f"cannot reach the endpoint ({type(exc).__name__}: {exc})") from None


async def read_whole(endpoint: str, timeout: float, limit: int, request, one_of_many: bool = False) -> str:
    """The text of the answer `request()` opens (an asynchronous `with_streaming_response` context), read whole
    within `timeout` seconds of the start and at most `limit` bytes long; what else goes wrong is `answering`'s."""
    async def read() -> str:
        with answering(endpoint, one_of_many):
            async with request() as response:
                declared = response.http_response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > limit:
                    raise _too_large(endpoint, limit)
                chunks, size = [], 0
                async for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > limit:
                        raise _too_large(endpoint, limit)
                    chunks.append(chunk)
                return b"".join(chunks).decode(response.http_response.encoding or "utf-8", "replace")

    try:
        return await asyncio.wait_for(read(), timeout)
    except asyncio.TimeoutError:
        raise ReadError(endpoint, f"no whole answer within {timeout:g} s (the timeout bounds each request as a "
                                  "whole)") from None


def body(endpoint: str, key: str, timeout: float, limit: int, request, retries: int = RETRIES) -> str:
    """`read_whole` of one request made alone: `request(client)` on a client and an event loop of its own."""
    async def once() -> str:
        async with async_client(endpoint, key, timeout, retries) as alone:
            return await read_whole(endpoint, timeout, limit, lambda: request(alone))

    return asyncio.run(once())


def _too_large(endpoint: str, limit: int) -> ReadError:
    return ReadError(endpoint, f"the answer is larger than {limit:,} bytes")


@dataclass(frozen=True)
class Completion:
    """A chat completion's text, the tokens the endpoint counted (None when it says not) and the seconds it took."""
    text: str
    tokens_in: int | None
    tokens_out: int | None
    latency: float


class Chat:
    """Chat completions of one model behind one endpoint: `ask` one at a time, `complete` many at a time (each
    `concurrency.run_all` makes its own asynchronous client, bound to its event loop)."""

    def __init__(self, endpoint: str, model: str, key: str, timeout: float, retries: int = RETRIES):
        self.endpoint, self.model, self.key, self.timeout, self.retries = endpoint, model, key, timeout, retries
        self._async = {}

    def ask(self, messages: list[dict], temperature: float) -> str:
        """One answer, read whole within the timeout and at most ANSWER_BYTES long (`body`)."""
        text = body(self.endpoint, self.key, self.timeout, ANSWER_BYTES, lambda alone: self._created(
            alone, messages, temperature), self.retries)
        return completion(text, 0.0).text

    async def complete(self, messages: list[dict], temperature: float, one_of_many: bool = False) -> Completion:
        """One answer of many under way, read as `ask` reads it (`read_whole`)."""
        loop = asyncio.get_running_loop()
        if loop not in self._async:
            self._async = {loop: async_client(self.endpoint, self.key, self.timeout, self.retries)}
        start = time.perf_counter()
        text = await read_whole(self.endpoint, self.timeout, ANSWER_BYTES, lambda: self._created(
            self._async[loop], messages, temperature), one_of_many)
        return completion(text, time.perf_counter() - start)

    def _created(self, client, messages: list[dict], temperature: float):
        return client.chat.completions.with_streaming_response.create(model=self.model, messages=messages,
                                                                     temperature=temperature)


def completion(body: str, latency: float) -> Completion:
    """The text of a chat completion's first choice and its token counts, read from the endpoint's body as JSON (the
    client builds its objects without checking them: a body that is not JSON, or a null message, raised
    AttributeError); a body holding no text is `Unreadable`, saying what it holds."""
    try:
        answer = strict_json(body)
    except ValueError as exc:
        raise Unreadable(f"the endpoint's answer is not JSON ({exc}): {body[:80]!r}") from None
    choices = answer.get("choices") if isinstance(answer, dict) else None
    if not isinstance(choices, list) or not choices:
        raise Unreadable("the endpoint returned no choices")
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, (str, type(None))):
        raise Unreadable(f"the answer's content is not text: {json.dumps(content)[:80]}")
    usage = answer.get("usage") if isinstance(answer.get("usage"), dict) else {}
    counts = [usage.get(name) if isinstance(usage.get(name), int) and not isinstance(usage.get(name), bool) else None
              for name in ("prompt_tokens", "completion_tokens")]
    return Completion(content or "", *counts, round(latency, 4))
