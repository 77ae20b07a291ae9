//! # bgfast-engine
//!
//! Evaluation and play on top of the rules of [`bgfast_core`]: evaluators (neural nets,
//! pubeval, exact game-over scoring, [`eval`], [`net`]), policies that choose a play
//! ([`playout`]), the doubling cube's value ([`cube`]), rollouts with the cube, the match
//! score, truncation, exact bear-offs and variance reduction ([`rollout`]), duels
//! ([`duel`]), and a training environment ([`batch`]). No Python here.

pub mod batch;
mod blocks;
pub mod cube;
pub mod duel;
pub mod eval;
pub mod features;
pub mod net;
pub mod playout;
pub mod pubeval;
pub mod rollout;

pub use eval::{Evaluator, Probabilities};
pub use net::{Net, NetPolicy};
