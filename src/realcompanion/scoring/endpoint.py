"""An OpenAI-compatible endpoint reached through the `openai` client; judges and embeddings both use it.

`client` builds the client one way for every use (base URL, key, timeout, two retries); `answering` turns
what can go wrong on the wire (an HTTP error status, an unreachable server) into a `ReadError` naming the
endpoint, so a command prints one line and exits 2; `body` reads an answer whole within the timeout, counted
from the request's start (the client's own timeout bounds each read: a server sending a byte a second held a
request for ever), and no larger than a bound, checked on its declared length before it is read and as it
arrives. An unset key variable sends "none": the client needs some key, and a local server asks for none.
"""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager

from ..errors import ReadError

RETRIES = 2


def api_key(variable: str) -> str:
    return os.environ.get(variable) or "none"


def client(endpoint: str, key: str, timeout: float):
    from openai import OpenAI

    return OpenAI(base_url=endpoint, api_key=key, timeout=timeout, max_retries=RETRIES)


@contextmanager
def answering(endpoint: str):
    import openai

    try:
        yield
    except openai.APIStatusError as exc:
        raise ReadError(endpoint, f"the endpoint answered HTTP {exc.status_code}: {exc.message}") from None
    except openai.OpenAIError as exc:
        raise ReadError(endpoint, f"cannot reach the endpoint ({type(exc).__name__}: {exc})") from None


def body(endpoint: str, timeout: float, limit: int, request) -> str:
    """The text of the answer `request()` opens (a `with_streaming_response` context), read whole within `timeout`
    seconds of the start and at most `limit` bytes long. The request runs in a thread of its own: one still
    reading when the time is up is left to end with the command, which stops with one line."""
    outcome: dict = {}

    def read():
        try:
            with answering(endpoint), request() as response:
                declared = response.http_response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > limit:
                    raise _too_large(endpoint, limit)
                chunks, size = [], 0
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > limit:
                        raise _too_large(endpoint, limit)
                    chunks.append(chunk)
                outcome["text"] = b"".join(chunks).decode(response.http_response.encoding or "utf-8", "replace")
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
            outcome["error"] = exc

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise ReadError(endpoint, f"no whole answer within {timeout:g} s (the timeout bounds each request as a whole)")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["text"]


def _too_large(endpoint: str, limit: int) -> ReadError:
    return ReadError(endpoint, f"the answer is larger than {limit:,} bytes")
