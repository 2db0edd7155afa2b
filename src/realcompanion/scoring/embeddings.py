"""Text embeddings from an OpenAI-compatible embeddings endpoint, for dense retrieval.

Each request is POST {endpoint}/embeddings with {"model", "input": [texts], "encoding_format": "float"};
the answer must be a JSON object whose `data` holds one vector per input, each with the `index` of its
input, all of one length. Anything else (an HTTP error, a body that is not JSON, a missing, extra or
non-numeric vector) is a `ReadError` naming the endpoint: one line, exit 2, no vector guessed. The body
is read and checked here rather than by the client's response models, which accept such answers
silently; it is read whole within the timeout and no larger than VECTOR_BYTES a text (`endpoint.body`).

Texts are sent in batches of `batch`, and each distinct text is embedded once per run (the cache is
keyed by the text, so a message shared by many instances' histories costs one embedding and always
gets the same vector). Texts holding only white space are not sent: their vector is zero, so they
score 0 against any query. numpy is imported inside the functions: the command line reads this
module's defaults when it starts.
"""
from __future__ import annotations

from ..errors import ReadError
from ..files import strict_json
from ..formats import said
from .endpoint import api_key, body

DEFAULT_MODEL = said("dense_model")[0]  # the model the first format that embeds names
DEFAULT_BATCH = 64
TIMEOUT = 60.0  # seconds a whole request may take
VECTOR_BYTES = 1 << 17  # the most bytes of an answer per text embedded: a vector of 4,096 numbers of 32 characters
ANSWER_BYTES = 1 << 20  # and for the rest of the answer


class Embedder:
    def __init__(self, endpoint: str, model: str = DEFAULT_MODEL, key: str = "none", timeout: float = TIMEOUT,
                 batch: int = DEFAULT_BATCH):
        self.endpoint, self.model, self.batch, self.timeout, self.key = endpoint, model, batch, timeout, key
        self.cache: dict = {}  # text -> numpy vector
        self.requests = 0

    def stamp(self) -> dict:
        return {"endpoint": self.endpoint, "model": self.model, "batch": self.batch}

    def pending(self, texts) -> list[str]:
        """The distinct texts of `texts` a request would still have to embed."""
        return list(dict.fromkeys(t for t in texts if t not in self.cache and t.strip()))

    def embed(self, texts, progress=None) -> None:
        """Embed every text not embedded yet (`progress(n)` after each batch of n)."""
        todo = self.pending(texts)
        for start in range(0, len(todo), self.batch):
            chunk = todo[start:start + self.batch]
            self.cache.update(zip(chunk, self._request(chunk)))
            if progress:
                progress(len(chunk))

    def matrix(self, texts):
        """Unit-length vectors of `texts` (rows of an array; zero for an empty text), embedding what is not cached."""
        import numpy as np

        self.embed(texts)
        dims = {v.size for v in self.cache.values()}
        if len(dims) > 1:
            raise ReadError(self.endpoint, f"returned vectors of different lengths ({sorted(dims)})")
        width = dims.pop() if dims else 1
        zero = np.zeros(width, dtype=np.float32)
        rows = np.stack([self.cache.get(t, zero) for t in texts]) if texts else np.zeros((0, width), dtype=np.float32)
        # in 64 bits: the squares of a 32-bit vector's entries (1e20, 1e-30) overflow or underflow 32, and the vector
        # ranked as zero
        norms = np.sqrt(np.einsum("ij,ij->i", rows, rows, dtype=np.float64))[:, None]
        return np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)

    def all_tied(self) -> bool:
        """True when the texts embedded so far (two or more) all have one direction: every cosine with a query is
        then the same, and a dense ranking is its tie rule alone (an endpoint answering with a placeholder)."""
        import numpy as np

        texts = list(self.cache)
        if len(texts) < 2:
            return False
        units = self.matrix(texts)
        return bool(np.allclose(units, units[0], rtol=0, atol=1e-6))

    def _request(self, chunk: list[str]) -> list:
        self.requests += 1
        text = body(self.endpoint, self.key, self.timeout, len(chunk) * VECTOR_BYTES + ANSWER_BYTES,
                    lambda alone: alone.embeddings.with_streaming_response.create(model=self.model, input=chunk,
                                                                                 encoding_format="float"))
        return vectors(text, len(chunk), self.endpoint)


def vectors(body: str, expected: int, endpoint: str) -> list:
    """The `expected` vectors (numpy arrays) of one answer, in input order, checked."""
    import numpy as np

    from .jsonl import problem

    def fail(why):
        return ReadError(endpoint, f"embeddings answer {why}")

    try:
        answer = strict_json(body)
    except ValueError as exc:
        raise fail(f"is not JSON ({exc})") from None
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list):
        raise fail("has no 'data' list")
    if len(data) != expected:
        raise fail(f"holds {len(data)} vectors for {expected} inputs")
    out: list = [None] * expected
    for k, row in enumerate(data):
        index = row.get("index", k) if isinstance(row, dict) else None
        vector = row.get("embedding") if isinstance(row, dict) else None
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < expected or out[index] is not None:
            raise fail(f"data[{k}] has a missing, repeated or out-of-range 'index'")
        if not (isinstance(vector, list) and vector and all(problem(x, (int, float)) is None for x in vector)):
            raise fail(f"data[{k}] 'embedding' is not a non-empty list of numbers")  # an integer past a float too
        with np.errstate(over="ignore"):  # a number past a 32-bit float is infinite, refused below, not warned of
            out[index] = np.asarray(vector, dtype=np.float32)
        if not np.isfinite(out[index]).all():
            raise fail(f"data[{k}] 'embedding' holds a value that is not a finite number")
        if not out[index].any():  # no direction: its cosine with anything is undefined, not 0
            raise fail(f"data[{k}] 'embedding' is a zero vector")
    return out


def embedder_from(args) -> Embedder | None:
    """The embedder `options.add_embeddings`'s flags name; None when no endpoint is given."""
    if not args.dense_endpoint:
        return None
    return Embedder(args.dense_endpoint, args.dense_model, api_key(args.dense_api_key_env), args.timeout,
                    batch=args.dense_batch)
