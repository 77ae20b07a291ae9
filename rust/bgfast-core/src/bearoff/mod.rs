//! Bear-off databases: exact race endings once every checker is home, numbered as GNU
//! Backgammon numbers them so indexes and results are interchangeable with its files.
//!
//! - [`index`]: the perfect-hash numbering of one side's home-board positions
//!   ([`HomeBoard::index`], [`HomeBoard::from_index`]).
//! - [`OneSided`]: all 54,264 positions of up to 15 checkers: distributions of the rolls to
//!   bear off all checkers and the first checker, expected rolls, variance, effective pip count,
//!   and the bear-off-perfect race play.
//! - [`TwoSided`]: every pair of positions of up to 6 checkers (924 x 924): cubeless winning
//!   chances of the side on roll with best play, and cubeful money equities, with or
//!   without a cube limit.
//! - [`mod@file`]: the versioned, checksummed on-disk format.
//!
//! Builders run on the current rayon pool.
//!
//! ```
//! use bgfast_core::bearoff::{HomeBoard, OneSided};
//!
//! let table = OneSided::build();
//! let ace = HomeBoard::new([1, 0, 0, 0, 0, 0]).unwrap();
//! assert_eq!(ace.index(), 1);
//! assert_eq!(table.rolls_distribution(ace)[1], 1.0); // one roll, always
//! assert!((table.epc(ace.index()) - 49.0 / 6.0).abs() < 1e-12);
//! ```

pub mod file;
mod gnubg_compat;
pub mod index;
mod limited_cube;
mod moves;
mod one_sided;
mod two_sided;

use std::sync::OnceLock;

use crate::position::Position;

pub use index::{BearoffError, HomeBoard, MAX_CHECKERS, ONE_SIDED_POSITIONS, POINTS};
pub use moves::ROLLS;
pub use one_sided::{Distribution, OneSided, MAX_ROLLS, PIPS_PER_ROLL};
pub use two_sided::{CubeState, TwoSided, TWO_SIDED_CHECKERS, TWO_SIDED_POSITIONS};

/// Every distinct position `board` can reach with the roll `high`-`low` (pips 1..=6, either
/// order; R5, R8, R14), as bear-off indexes sorted ascending; empty for an empty board or
/// dice outside 1..=6. For rollout policies that score plays by table lookups.
pub fn plays(board: HomeBoard, high: u8, low: u8) -> Vec<u32> {
    let mut out = Vec::new();
    if (1..=6).contains(&high) && (1..=6).contains(&low) {
        let mut scratch = moves::new_scratch();
        moves::children_indexes(board, high.max(low), high.min(low), &mut scratch, &mut out);
    }
    out
}

/// The one-sided table of this process, built on first use (about a tenth of a second on
/// the shared pool of [`crate::threads::default_threads`] workers) and kept: for callers
/// that need a table and keep no cache of their own, such as [`position_epc`] behind the
/// bindings' `Position.epc`. Every build is identical, so this table and any other one
/// give the same numbers.
pub fn shared_one_sided() -> &'static OneSided {
    static TABLE: OnceLock<OneSided> = OnceLock::new();
    TABLE.get_or_init(|| {
        // On a pool of ours, never rayon's global one (a forked child cannot use it).
        crate::threads::install(crate::threads::default_threads(), OneSided::build)
            .unwrap_or_else(|_| OneSided::build())
    })
}

/// The effective pip counts `(mover, opponent)` of `position` from `table` (expected rolls
/// times 49/6); [`BearoffError::NotHome`] unless every checker of both sides not yet off is
/// in its home board (R13).
///
/// ```
/// use bgfast_core::bearoff::{position_epc, shared_one_sided};
/// use bgfast_core::Position;
///
/// let mut mover = [0u8; 25];
/// mover[0] = 1; // one checker on the ace point: one roll, 49/6 pips
/// let position = Position::from_counts(&mover, &mover).unwrap();
/// let (a, b) = position_epc(&position, shared_one_sided()).unwrap();
/// assert!((a - 49.0 / 6.0).abs() < 1e-12 && a == b);
/// assert!(position_epc(&Position::START, shared_one_sided()).is_err());
/// ```
pub fn position_epc(position: &Position, table: &OneSided) -> Result<(f64, f64), BearoffError> {
    let home = |side: crate::checkers::Checkers, name: &'static str| {
        if !side.all_home() {
            return Err(BearoffError::NotHome { side: name });
        }
        let counts: [u8; POINTS] = core::array::from_fn(|i| side.count(i as u8 + 1));
        HomeBoard::new(counts)
    };
    let mover = home(position.mover(), "mover")?;
    let opponent = home(position.opponent(), "opponent")?;
    Ok((table.epc(mover.index()), table.epc(opponent.index())))
}
