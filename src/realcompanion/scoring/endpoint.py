"""An OpenAI-compatible endpoint reached through the `openai` client; judges and embeddings both use it.

`client` builds the client one way for every use (base URL, key, timeout, two retries); `answering` turns
what can go wrong on the wire (an HTTP error status, an unreachable server) into a `ReadError` naming the
endpoint, so a command prints one line and exits 2. An unset key variable sends "none": the client needs
some key, and a local server asks for none.
"""
from __future__ import annotations

import os
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
