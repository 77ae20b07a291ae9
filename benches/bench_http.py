"""Load on ``bgfast serve http``: requests per second on ``GET /moves`` (and ``/best``) from
one server process, side by side with a minimal baseline and, if one is running,
wildbg's own HTTP server.

Each client is a process holding one keep-alive connection (the standard library's
``http.client``) and asking in a loop for ``--seconds``; the positions are the first 1,000
of the wildbg contact corpus, each with one of the 21 rolls, in turn, so no answer repeats
for a while. Every answer is checked (status 200 and the number of results, against
``Position.moves``) before it is counted.

- **bgfast**: ``bgfast serve http`` (FastAPI on uvicorn, one process, endpoints on its
  thread pool).
- **baseline**: the same ``/moves`` answer from a bare ASGI function on uvicorn (no
  framework, no thread pool, no validation): what the framework costs.
- **wildbg** (``--wildbg URL``): wildbg's server, ``GET /move?die1=&die2=&p1=...``, which
  ranks the plays with its net, the work of bgfast's ``/best`` rather than ``/moves``.

    python benches/bench_http.py [--seconds 10] [--clients 1,4,8] [--wildbg http://...]
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

from bgfast import Position

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def cases(n: int = 1000) -> list[tuple[str, tuple[int, int], int]]:
    """(Position ID, roll, number of results) of the corpus, each position with a roll."""
    ids = (DATA / "wildbg_contact.csv").read_text().split()[:n]
    out = []
    for k, pid in enumerate(ids):
        dice = ROLLS[k % len(ROLLS)]
        out.append((pid, dice, len(Position.from_id(pid).moves(dice))))
    return out


def wildbg_query(pid: str, dice: tuple[int, int]) -> str:
    """wildbg's /move query: p1..p24 from the side to move ('x', positive), p25 its bar,
    p0 the opponent's bar (negative)."""
    rows = Position.from_id(pid).to_array()
    params: dict[str, int] = {"die1": dice[0], "die2": dice[1]}
    for i in range(24):
        if rows[0][i]:
            params[f"p{i + 1}"] = int(rows[0][i])
        if rows[1][i]:
            params[f"p{24 - i}"] = -int(rows[1][i])
    if rows[0][24]:
        params["p25"] = int(rows[0][24])
    if rows[1][24]:
        params["p0"] = -int(rows[1][24])
    return "/move?" + urllib.parse.urlencode(params)


def _client(args: tuple[str, str, float, int, int]) -> tuple[int, list[float], int]:
    """One keep-alive connection asking for ``seconds``; (answers, latencies, errors)."""
    url, kind, seconds, offset, stride = args
    parsed = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
    work = cases()
    done, errors, latencies = 0, 0, []
    k = offset
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pid, dice, count = work[k % len(work)]
        k += stride
        if kind == "wildbg":
            path = wildbg_query(pid, dice)
        else:
            endpoint = "/best" if kind == "best" else "/moves"
            query = urllib.parse.urlencode({"position": pid, "dice": f"{dice[0]}{dice[1]}"})
            path = f"{endpoint}?{query}"
        started = time.perf_counter()
        conn.request("GET", path)
        answer = conn.getresponse()
        body = answer.read()
        latencies.append(time.perf_counter() - started)
        ok = answer.status == 200
        if ok and kind != "wildbg":
            ok = len(json.loads(body)["moves"]) == count
        done += ok
        errors += not ok
    return done, latencies, errors


def load(url: str, kind: str, clients: int, seconds: float) -> dict[str, float]:
    """Requests per second and latency percentiles with ``clients`` processes."""
    with multiprocessing.get_context("spawn").Pool(clients) as pool:
        results = pool.map(
            _client, [(url, kind, seconds, k, clients) for k in range(clients)], chunksize=1
        )
    done = sum(r[0] for r in results)
    errors = sum(r[2] for r in results)
    latencies = sorted(x for r in results for x in r[1])
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 100 else [0.0] * 99
    return {
        "rps": done / seconds,
        "p50_ms": q[49] * 1000,
        "p99_ms": q[98] * 1000,
        "errors": errors,
    }


# ------------------------------------------------------------------------- the baseline


async def baseline_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """``/moves`` as a bare ASGI function: parse, generate, answer."""
    if scope["type"] != "http":
        return
    query = urllib.parse.parse_qs(scope["query_string"].decode())
    try:
        position = Position.from_id(query["position"][0])
        dice = query["dice"][0]
        moves = position.moves(int(dice[0]), int(dice[1]))
        body = json.dumps(
            {
                "position": position.id,
                "dice": [int(dice[0]), int(dice[1])],
                "moves": [{"move": str(m), "result": m.result.id} for m in moves],
            }
        ).encode()
        status = 200
    except Exception as error:
        body, status = json.dumps({"error": str(error)}).encode(), 400
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})


def start(command: list[str]) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.search(r"(http://[\d.]+:\d+)", line)
    assert match, line
    time.sleep(0.5)
    return process, match.group(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", default="1,4,8")
    parser.add_argument("--wildbg", default=None, help="URL of a running wildbg server")
    parser.add_argument("--serve-baseline", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_baseline is not None:
        import uvicorn

        print(f"baseline listening on http://127.0.0.1:{args.serve_baseline}", flush=True)
        uvicorn.run(baseline_app, port=args.serve_baseline, log_level="warning", access_log=False)
        return
    clients = [int(c) for c in args.clients.split(",")]
    print(f"load average before: {os.getloadavg()}, {os.cpu_count()} CPUs", flush=True)
    servers = []
    bgfast_server, bgfast_url = start(
        [sys.executable, "-m", "bgfast", "serve", "http", "--port", "0"]
    )
    servers.append(bgfast_server)
    baseline_server, baseline_url = start([sys.executable, __file__, "--serve-baseline", "18731"])
    servers.append(baseline_server)
    runs = [
        ("bgfast serve http", "GET /moves", bgfast_url, "moves"),
        ("bare ASGI baseline", "GET /moves", baseline_url, "moves"),
        ("bgfast serve http", "GET /best (wildbg net)", bgfast_url, "best"),
    ]
    if args.wildbg:
        runs.append(("wildbg web server", "GET /move (ranked)", args.wildbg, "wildbg"))
    print("| server | request | clients | requests/s | p50 ms | p99 ms |")
    print("|---|---|---:|---:|---:|---:|")
    try:
        for name, request, url, kind in runs:
            for n in clients:
                r = load(url, kind, n, args.seconds)
                assert r["errors"] == 0, (name, r)
                print(
                    f"| {name} | {request} | {n} | {r['rps']:,.0f} | {r['p50_ms']:.2f} |"
                    f" {r['p99_ms']:.2f} |",
                    flush=True,
                )
    finally:
        for process in servers:
            process.terminate()
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
