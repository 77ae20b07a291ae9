//! # bgfast-engine
//!
//! Evaluation and play on top of the rules of [`bgfast_core`]: evaluators (neural nets,
//! pubeval, exact game-over scoring), policies that choose a play, playouts and rollouts,
//! and games in lockstep for evaluators outside Rust. No Python here.

pub mod batch;
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
