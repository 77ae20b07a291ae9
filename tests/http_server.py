"""``bgfast serve http`` in a child process on a free port, for the tests that drive it:
asked by the standard library's HTTP client (``get``, ``post``) or over a raw socket
(``exchange``, for requests no client library would send)."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any


class HttpServer:
    """``bgfast serve http --port 0 *args`` in a child process."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bgfast", "serve", "http", "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        first = self.process.stdout.readline()
        found = re.search(r"listening on (http://([\d.]+):(\d+))", first)
        if not found:
            self.process.kill()
            raise AssertionError(f"the server did not start: {first!r}")
        self.url = found.group(1)
        self.address = (found.group(2), int(found.group(3)))

    def get(self, path: str, **query: object) -> tuple[int, Any]:
        url = f"{self.url}{path}"
        if query:
            url += "?" + urllib.parse.urlencode(query)
        return self._open(urllib.request.Request(url))

    def post(self, path: str, body: object, raw: bytes | None = None) -> tuple[int, Any]:
        data = raw if raw is not None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}{path}", data=data, headers={"Content-Type": "application/json"}
        )
        return self._open(request)

    @staticmethod
    def _open(request: urllib.request.Request) -> tuple[int, Any]:
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def exchange(self, head: bytes, body: bytes = b"") -> tuple[int, Any]:
        """Sends a request's head (``Connection: close`` added) and body over a socket, and
        reads the answer: its status and its JSON body (``None`` when empty)."""
        with socket.create_connection(self.address, timeout=30) as sock:
            # refused before it was all sent: the answer is waiting all the same
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                sock.sendall(head.rstrip(b"\r\n") + b"\r\nConnection: close\r\n\r\n" + body)
            answer = b""
            with contextlib.suppress(ConnectionResetError):
                while chunk := sock.recv(1 << 16):
                    answer += chunk
        status_line, _, rest = answer.partition(b"\r\n")
        payload = rest.partition(b"\r\n\r\n")[2]
        return int(status_line.split()[1]), json.loads(payload) if payload else None

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
