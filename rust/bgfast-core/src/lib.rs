//! # bgfast-core
//!
//! A pure-Rust backgammon rules core: validated positions seen from the side to move, legal
//! move generation that lists each distinct resulting position once, GNU Backgammon
//! Position IDs, move notation, bear-off databases and perft. Evaluation and play (pubeval,
//! nets, playouts, rollouts) live in `bgfast-engine`, on top of this crate. No Python here: the `bgfast` Python package is a
//! thin layer on top, and other Rust engines can depend on this crate alone.
//!
//! Rule ids (R1..R32) refer to the project's rule book, `RULES.md`.
//!
//! ```
//! use bgfast_core::{Dice, MoveList, Position};
//!
//! let start = Position::START;
//! let mut moves = MoveList::new(); // allocate once, reuse for every call
//! start.generate_moves(Dice::from_pips(3, 1).unwrap(), &mut moves);
//! assert_eq!(moves.len(), 16);
//! for (mv, result) in moves.iter() {
//!     // `result` has the opponent to move.
//!     assert_eq!(result.opponent().pips() + 4, start.mover().pips());
//!     assert_eq!(mv.steps().len(), 2);
//! }
//! ```

pub mod bearoff;
mod checkers;
pub mod codec;
mod dice;
pub mod isa;
mod legality;
mod movegen;
mod mv;
mod outcome;
mod perft;
mod physical;
mod pointset;
mod position;
pub mod rng;
pub mod rows;
pub mod threads;

pub use checkers::{Checkers, BAR, CHECKERS};
pub use codec::move_text::{MoveTextError, ParsedMove};
pub use dice::{Dice, Die};
pub use legality::{resolve, resolve_in, IllegalMove};
#[doc(hidden)]
pub use movegen::force_baseline_isa;
pub use movegen::{CompactMove, MoveList, MAX_PLAYS};
pub use mv::{Move, Step, OFF};
pub use outcome::{Outcome, Side, WinKind};
pub use perft::{perft, perft_cancellable, MAX_PERFT_DEPTH};
pub use pointset::PointSet;
pub use position::{Position, PositionError, Violation};
