//! Policies as Python passes them: a name or a `Net`.

use std::sync::Arc;

use bgfast_engine::net::Net;
use bgfast_engine::playout::{AnyPolicy, PolicyKind};
use bgfast_engine::rollout::Player;
use pyo3::prelude::*;

use crate::errors::Error;
use crate::net::PyNet;

/// The names a policy argument takes.
pub const NAMES: &str = "'wildbg', 'pubeval', 'race', 'random' or a bgfast.Net";

/// A native policy: a built-in one or a net (`"wildbg"` is the shipped net), resolved on
/// the calling thread, before any pool runs it (see [`AnyPolicy::builtin`]).
pub enum PolicyArg {
    /// Random, pubeval or race: a player cloned into each unit of work.
    Builtin(Box<AnyPolicy<'static>>),
    /// A net.
    Net(Arc<Net>),
}

impl PolicyArg {
    /// `"wildbg"`, `"pubeval"`, `"race"`, `"random"` or a `Net`.
    pub fn from_py(obj: &Bound<'_, PyAny>) -> Result<PolicyArg, Error> {
        if let Ok(net) = obj.cast::<PyNet>() {
            return Ok(PolicyArg::Net(net.get().net.clone()));
        }
        let shown = || crate::args::shown(obj);
        let name: String = obj
            .extract()
            .map_err(|_| Error::Argument(format!("policy must be {NAMES}, not {}", shown())))?;
        if name == "wildbg" {
            return Ok(PolicyArg::Net(crate::net::wildbg()));
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
