"""A rollout's settings: every user argument checked once, kept as plain data (a shard
sends it to a worker), and turned into the native plan that plays the games."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from bgfast import _core
from bgfast._core import BgfastError, Net, Position
from bgfast.cubeful import CubeLife, Stakes, check_cube_life
from bgfast.errors import MatchOptionError, shown
from bgfast.policies import Policy, net_of, policy_name
from bgfast.vocab import check_flag

__all__ = ["RolloutSettings", "check_settings", "name_of"]


def name_of(policy: object) -> str:
    """How results name a policy or an evaluator callable."""
    if isinstance(policy, (str, Net)):
        return policy_name(policy)
    return str(getattr(policy, "__name__", type(policy).__name__))


@dataclass(frozen=True)
class RolloutSettings:
    """A rollout's settings, checked (see :func:`check_settings`); the stakes are seen from
    the side to move in the rolled-out position. ``cube_wait``: the plies from the
    decision's turn before the Holland rule lets the trailer double (0 when it does not
    hold the cube back)."""

    seed: int
    truncate: int | None
    bearoff: bool
    variance_reduction: bool
    quasi_random: bool
    cubeful: bool
    cube_life: CubeLife
    stakes: Stakes
    evaluator: Net | None
    cube_wait: int = 0

    def plan(self, branches: list[tuple[Position, str]], policy: Policy | None) -> Any:
        """The native plan that plays ``branches`` (``(position, kind)``) with ``policy``
        (a native policy, or ``None`` when a Python callable plays)."""
        from bgfast import bearoff

        return _core.RolloutPlan(
            branches,
            self.stakes.cube(),
            self.stakes.native(),
            self.seed,
            self.quasi_random,
            self.truncate,
            bearoff.two_sided() if self.bearoff else None,
            self.variance_reduction,
            self.evaluator,
            self.cube_life if self.cubeful else None,
            policy,
            self.cube_wait,
        )

    def _bearoff_done(self) -> str | None:
        """What became of games entering the two-sided database: ``"exact"`` (ended with
        its value), ``"played out"`` (asked exact, but the database holds money cubeful
        values only, so cubeful match games play on), or ``None`` (not asked)."""
        if not self.bearoff:
            return None
        return "played out" if self.cubeful and self.stakes.is_match else "exact"

    def describe(self) -> dict[str, Any]:
        """The settings as plain data, for results and JSON."""
        out: dict[str, Any] = {
            "seed": self.seed,
            "truncate": self.truncate,
            "bearoff": self._bearoff_done(),
            "variance_reduction": self.variance_reduction,
            "quasi_random": self.quasi_random,
            "cubeful": self.cubeful,
            "evaluator": None if self.evaluator is None else name_of(self.evaluator),
        }
        if self.cubeful:
            out["cube_life"] = self.cube_life
        out.update(self.stakes.describe(), stakes=self.stakes.words())
        if self.cubeful and self.cube_wait:
            out["holland_wait_plies"] = self.cube_wait
        return out


def _flag(name: str, value: object) -> bool:
    """A rollout switch as a Python bool: ``True``, ``False`` or a numpy boolean, as every
    bgfast on/off option (:func:`bgfast.vocab.check_flag`); anything else (``1``, ``None``,
    a one-element array...) is a :class:`~bgfast.BgfastError` naming the switch. A
    rollout's switches are no match options, so not a ``MatchOptionError``."""
    try:
        return check_flag(name, value)
    except MatchOptionError as e:
        raise BgfastError(str(e)) from None


def check_settings(
    *,
    policy: object,
    evaluator: object,
    seed: int,
    truncate: object,
    bearoff: object,
    variance_reduction: object,
    quasi_random: object,
    cubeful: object,
    cube_life: object,
    stakes: Stakes,
    cube_wait: int = 0,
) -> RolloutSettings:
    """Checks a rollout's arguments; ``BgfastError`` naming the first that is wrong."""
    if truncate is not None:
        truncate = int(_core.check_int("truncate", truncate, 0, 2**32 - 1))
    # Compared as a str only: ``in`` would compare a numpy array element by element.
    if not (bearoff is None or (isinstance(bearoff, str) and bearoff == "exact")):
        raise BgfastError(f"bearoff must be 'exact' or None, not {shown(bearoff)}")
    vr = _flag("variance_reduction", variance_reduction)
    is_cubeful = _flag("cubeful", cubeful)
    net = _evaluator(policy, evaluator)
    needs = [
        (is_cubeful, "cubeful=True", "the cube decisions"),
        (truncate is not None, f"truncate={truncate}", "the truncated games"),
        (vr, "variance_reduction=True", "the luck of each roll"),
    ]
    for wanted, what, why in needs:
        if wanted and net is None:
            raise BgfastError(
                f"{what} needs a net to evaluate {why}: pass evaluator=bgfast.Net.wildbg()"
                f" (the policy {name_of(policy)!r} gives no probabilities)"
            )
    if stakes.jacoby and not is_cubeful:
        # The Jacoby rule (R23) is about the cube, which a cubeless rollout leaves out: its
        # games count gammons, as cubeless equity does, and its plays are chosen by it.
        stakes = replace(stakes, jacoby=False)
    return RolloutSettings(
        seed=seed,
        truncate=truncate,
        bearoff=bearoff == "exact",
        variance_reduction=vr,
        quasi_random=_flag("quasi_random", quasi_random),
        cubeful=is_cubeful,
        cube_life=check_cube_life(cube_life),
        stakes=stakes,
        evaluator=net,
        cube_wait=cube_wait,
    )


def _evaluator(policy: object, evaluator: object) -> Net | None:
    """The net for truncation, variance reduction and the cube: ``evaluator`` if given,
    else the policy when it is a net."""
    if evaluator is None:
        return net_of(policy)
    net = net_of(evaluator)
    if net is not None:
        return net
    raise BgfastError(
        f"evaluator must be a bgfast.Net, 'wildbg' or 'wildbg-large', not {shown(evaluator)}:"
        " truncation, variance reduction and the cube need a net's probabilities"
    )
