"""The native policies: what ``policy=`` takes wherever bgfast plays by itself.

``"wildbg"`` plays wildbg's nets (``bgfast.Net.wildbg()``); ``"wildbg-large"`` wildbg's
larger training nets (``bgfast.Net.wildbg_large()``), the strongest, at about ten times the
cost of a position; a ``bgfast.Net`` plays any net; ``"pubeval"`` is Tesauro's benchmark
evaluator; ``"race"`` is pubeval with bear-offs played perfectly from the one-sided database;
``"random"`` picks uniformly among the distinct legal results. A net plays the result that is
worst for the opponent by its cubeless equity, the first in move-generation order among
equals."""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

from bgfast import _core
from bgfast._core import BgfastError, Move, Net, Position

if TYPE_CHECKING:
    from typing import TypeGuard

__all__ = [
    "NAMES",
    "Policy",
    "check_policy",
    "choose",
    "is_native",
    "load_net_file",
    "net_of",
    "parse_net",
    "parse_policy",
    "policy_name",
]

#: The names of the built-in policies.
NAMES = ("wildbg", "wildbg-large", "pubeval", "race", "random")

#: The built-in policies that are nets, by name.
SHIPPED_NETS = {"wildbg": Net.wildbg, "wildbg-large": Net.wildbg_large}

#: A native policy: one of ``NAMES`` or a net.
Policy = Union[str, Net]


def is_native(policy: object) -> TypeGuard[Policy]:
    """Whether ``policy`` is one of ``NAMES`` or a ``Net``."""
    return isinstance(policy, Net) or (isinstance(policy, str) and policy in NAMES)


def check_policy(policy: object, what: str = "policy") -> Policy:
    """``policy`` if it is native; else ``BgfastError`` naming ``what`` and the choices."""
    if is_native(policy):
        return policy
    raise BgfastError(
        f"unknown {what} {policy!r}: use 'wildbg', 'wildbg-large', 'pubeval', 'race', 'random'"
        " or a bgfast.Net"
    )


def net_of(policy: object) -> Net | None:
    """The net ``policy`` plays by: a ``Net`` itself, a shipped net for its name
    (``"wildbg"``, ``"wildbg-large"``), else ``None``."""
    if isinstance(policy, Net):
        return policy
    if isinstance(policy, str) and policy in SHIPPED_NETS:
        return SHIPPED_NETS[policy]()
    return None


def policy_name(policy: Policy) -> str:
    """How results name ``policy``: its name (``"wildbg"`` or ``"wildbg-large"`` for a shipped
    net, however it was passed), or another net's ``repr``."""
    if isinstance(policy, str):
        return policy
    for name, shipped in SHIPPED_NETS.items():
        if policy == shipped():
            return name
    return repr(policy)


def parse_policy(text: str) -> Policy:
    """A policy from the command line: one of ``NAMES``, or the path of a net file
    (``Net.save``'s format). ``BgfastError`` (``InvalidNetError`` for a bad file) otherwise."""
    if text in NAMES:
        return text
    if _names_a_file(text):
        return load_net_file(text)
    raise BgfastError(
        f"unknown policy {text!r}: use 'wildbg', 'wildbg-large', 'pubeval', 'race', 'random' or"
        " the path of a .bgnet net file"
    )


def load_net_file(path: str) -> Net:
    """``Net.load(path)`` for a net named on a command line or a server's setting: a file
    the system cannot open is a ``BgfastError`` naming it (a bad setting), not the
    ``OSError`` that ``Net.load`` raises for a program's own paths."""
    try:
        return Net.load(path)
    except OSError as error:
        raise BgfastError(f"cannot read the net file {path}: {error.strerror or error}") from error


def _names_a_file(text: str) -> bool:
    """Whether a command-line policy names a net file rather than a built-in policy."""
    return text.endswith(".bgnet") or "/" in text or "\\" in text


def parse_net(text: str, option: str) -> Net:
    """A net from the command line: ``wildbg``, ``wildbg-large`` or the path of a ``.bgnet``
    file; ``BgfastError`` naming ``option`` otherwise (``InvalidNetError`` for a bad file)."""
    net = net_of(parse_policy(text)) if text in NAMES or _names_a_file(text) else None
    if net is None:
        raise BgfastError(
            f"{option} must be wildbg, wildbg-large or a .bgnet net file, not {text!r}"
        )
    return net


def choose(policy: Policy, position: Position, dice: tuple[int, int], *, seed: int = 0) -> Move:
    """The play ``policy`` chooses for ``position`` and ``dice``, as rollouts and duels play
    it (a net: the result worst for the opponent by its cubeless equity, like
    ``Net.best_move``; pubeval: Tesauro's choice; race: pubeval with perfect bear-offs;
    random: a uniform draw from ``seed``). A forced play or a pass is returned without
    asking the policy. ``GameOverError`` for a finished game (R15)."""
    seed = _core.check_int("seed", seed, 0, 2**64 - 1)  # (-1 raised OverflowError)
    return _core.policy_move(check_policy(policy), position, dice, seed)
