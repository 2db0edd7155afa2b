"""A local HTTP server (127.0.0.1 only) in a thread, answering with a test's request handler."""
from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextmanager
def serving(handler):
    """Yield the base URL (…/v1) of a server that answers with `handler`; shut it down afterwards."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        server.shutdown()
        server.server_close()


class JSONHandler(BaseHTTPRequestHandler):
    """Reads a JSON body and answers with `reply(body) -> (status, bytes)` or `(status, bytes, headers)`, or with
    nothing (None: the connection closes unanswered, as a server that died); records (path, body) per request."""

    requests: list = []

    def reply(self, body: dict) -> tuple | None:
        raise NotImplementedError

    def do_POST(self):  # noqa: N802 (http.server API)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.requests.append((self.path, body))
        answer = self.reply(body)
        if answer is None:
            self.close_connection = True
            return
        status, data, *headers = answer
        try:
            self.send_response(status)
            for name, value in (headers[0] if headers else {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # a client that timed out and went away
            self.close_connection = True

    def log_message(self, *args):
        pass
