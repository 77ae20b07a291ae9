//! Policies as Python passes them: a name or a `Net`.

use std::sync::Arc;

use bgfast_core::rng::GameRng;
use bgfast_engine::net::Net;
use bgfast_engine::playout::{AnyPolicy, Policy, PolicyKind};
use bgfast_engine::rollout::Player;
use pyo3::prelude::*;

use crate::errors::Error;
use crate::moves::with_move_list;
use crate::net::PyNet;
use crate::position::{PyMove, PyPosition};

/// The names a policy argument takes.
pub const NAMES: &str = "'wildbg', 'wildbg-large', 'pubeval', 'race', 'random' or a bgfast.Net";

/// A native policy: a built-in one or a net (`"wildbg"` and `"wildbg-large"` are the shipped
/// nets), resolved on the calling thread, before any pool runs it (see
/// [`AnyPolicy::builtin`]).
pub enum PolicyArg {
    /// Random, pubeval or race: a player cloned into each unit of work.
    Builtin(Box<AnyPolicy<'static>>),
    /// A net.
    Net(Arc<Net>),
}

impl PolicyArg {
    /// `"wildbg"`, `"wildbg-large"`, `"pubeval"`, `"race"`, `"random"` or a `Net`.
    pub fn from_py(obj: &Bound<'_, PyAny>) -> Result<PolicyArg, Error> {
        if let Ok(net) = obj.cast::<PyNet>() {
            return Ok(PolicyArg::Net(net.get().net.clone()));
        }
        let shown = || crate::args::shown(obj);
        let name: String = obj
            .extract()
            .map_err(|_| Error::Argument(format!("policy must be {NAMES}, not {}", shown())))?;
        if let Some(net) = crate::net::named(&name) {
            return Ok(PolicyArg::Net(net));
        }
        let kind = PolicyKind::from_name(&name)
            .ok_or_else(|| Error::Argument(format!("unknown policy {name:?}: use {NAMES}")))?;
        Ok(PolicyArg::Builtin(Box::new(AnyPolicy::builtin(kind))))
    }

    /// A player of this policy (one per thread).
    pub fn player(&self) -> AnyPolicy<'_> {
        match self {
            PolicyArg::Builtin(player) => (**player).clone(),
            PolicyArg::Net(net) => AnyPolicy::net(net),
        }
    }

    /// A player of this policy for rollouts: a net chooses by the rollout's value.
    pub fn rollout_player(&self) -> Player<'_> {
        match self {
            PolicyArg::Builtin(player) => Player::Policy(player.clone()),
            PolicyArg::Net(net) => Player::Net(net),
        }
    }
}

/// The play `policy` chooses for `position` and `dice`: the policy's own choice among the
/// legal results (the engine's `Policy::choose`, as rollouts and duels play it), a forced
/// play or a pass without asking. `seed` feeds the random policy's draw. Raises
/// `GameOverError` for a finished game (R15).
#[pyfunction]
pub fn policy_move(
    py: Python<'_>,
    policy: &Bound<'_, PyAny>,
    position: PyRef<'_, PyPosition>,
    dice: &Bound<'_, PyAny>,
    seed: u64,
) -> PyResult<PyMove> {
    let policy = PolicyArg::from_py(policy)?;
    let dice = crate::args::dice(dice)?;
    let origin = position.inner;
    if origin.outcome().is_some() {
        return Err(Error::GameOver(
            "the game is over: one side has borne off all 15 checkers (R15)".into(),
        )
        .into());
    }
    Ok(with_move_list(|list| {
        origin.generate_moves(dice, list);
        let i = if list.len() == 1 {
            0
        } else {
            let mut player = policy.player();
            let mut rng = GameRng::new(seed, 0);
            py.detach(|| player.choose(list, &mut rng))
        };
        PyMove {
            origin,
            mv: list.compact(i).mv(&origin, dice),
            result: list.result(i),
        }
    }))
}
