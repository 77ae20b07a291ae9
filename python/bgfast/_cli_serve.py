"""``bgfast serve``: bgfast as a server for other programs.

``bgfast serve gnubg-external`` answers GNU Backgammon's external-player protocol
(:mod:`bgfast.serve_gnubg`); ``bgfast serve http`` is a JSON API with an OpenAPI schema
(:mod:`bgfast.serve_http`, needs the ``serve`` extra: ``pip install 'bgfast[serve]'``).
"""

from __future__ import annotations

import argparse
from typing import Any

from bgfast._cli_common import add_cube_life
from bgfast._core import BgfastError
from bgfast.policies import parse_policy


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a port is a number 0..65535, not {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a number 0..65535, not {port}")
    return port


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"a time is a number of seconds above 0, not {text!r}")
    return seconds


def _connections(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"a connection limit is a number 1 or more, not {text!r}")
    return count


def _net_option(text: str) -> tuple[str, str]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"--net takes NAME=PATH (a .bgnet file), not {text!r}")
    return name, path


def add_cli(commands: Any) -> None:
    """Adds ``serve gnubg-external`` and ``serve http`` to the command line."""
    serve = commands.add_parser("serve", help="serve other programs: gnubg's protocol, HTTP")
    kinds = serve.add_subparsers(dest="server", required=True)
    external = kinds.add_parser(
        "gnubg-external",
        help="be a player GNU Backgammon asks (set player N external HOST:PORT)",
        description=(
            "Listen on TCP for GNU Backgammon's external-player protocol: gnubg connects with"
            " 'set player N external HOST:PORT' and asks for every decision of player N."
        ),
    )
    external.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    external.add_argument(
        "--port",
        type=_port,
        default=0,
        help="port (default 0: a free port, which the line printed on starting names)",
    )
    external.add_argument(
        "--policy",
        default="wildbg",
        metavar="POLICY",
        help="wildbg (default), wildbg-large, pubeval, race, random, or the path of a .bgnet"
        " net file",
    )
    external.add_argument(
        "--log", default=None, metavar="FILE", help="append each exchange to FILE (JSON lines)"
    )
    external.add_argument(
        "--jacoby", action="store_true", help="money games: the Jacoby rule (gnubg's default)"
    )
    add_cube_life(external)
    external.set_defaults(run=_run_external)
    http = kinds.add_parser(
        "http",
        help="a JSON API: moves, evaluations, ranked plays, play checks, ID conversion",
        description=(
            "Serve a JSON API over HTTP (GET /moves, /evaluate, /best, /ids; POST /play;"
            " the OpenAPI schema at /openapi.json, its pages at /docs). Needs the serve"
            " extra: pip install 'bgfast[serve]'."
        ),
    )
    http.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    http.add_argument("--port", type=_port, default=8000, help="port (default 8000; 0: any)")
    http.add_argument(
        "--net",
        action="append",
        type=_net_option,
        default=[],
        metavar="NAME=PATH",
        help="another net the API offers as &net=NAME (a .bgnet file); repeatable",
    )
    http.add_argument(
        "--threads", type=int, default=None, help="worker threads for the rules (default: CPUs+2)"
    )
    http.add_argument(
        "--request-timeout",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="seconds a client has to send a request's line and headers, then its whole body"
        " (default 10); later is a 408",
    )
    http.add_argument(
        "--max-connections",
        type=_connections,
        default=None,
        metavar="N",
        help="connections served at once (default 1000, fewer under a lower limit of open"
        " files); a client past them is answered a 503",
    )
    http.set_defaults(run=_run_http)


def _run_external(args: argparse.Namespace) -> int:
    from bgfast import serve_gnubg

    policy = parse_policy(args.policy)
    return serve_gnubg.run(
        policy,
        args.host,
        args.port,
        log_path=args.log,
        jacoby=args.jacoby,
        cube_life=args.cube_life,
    )


def _run_http(args: argparse.Namespace) -> int:
    try:
        from bgfast import serve_http
    except ImportError as error:  # pragma: no cover - the extra is installed in tests
        raise BgfastError(
            f"bgfast serve http needs the serve extra (pip install 'bgfast[serve]'): {error}"
        ) from None
    nets = dict(args.net)
    if len(nets) < len(args.net):
        named = [name for name, _ in args.net]
        twice = sorted({name for name in named if named.count(name) > 1})
        raise BgfastError(f"--net names {', '.join(twice)} twice: one net a name")
    timeout = serve_http.REQUEST_TIMEOUT if args.request_timeout is None else args.request_timeout
    return serve_http.run(
        args.host,
        args.port,
        nets=nets,
        threads=args.threads,
        request_timeout=timeout,
        max_connections=args.max_connections,
    )
