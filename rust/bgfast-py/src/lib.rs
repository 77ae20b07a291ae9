//! `bgfast._core`: the thin PyO3 layer over `bgfast-core`. Conversions, errors and numpy
//! entry points only; the rules live in the core crate.

mod bearoff;
mod errors;
mod position;
mod rollout;

use pyo3::pymodule;

/// The native half of the `bgfast` package; import names from `bgfast` instead.
#[pymodule]
mod _core {
    // errors
    #[pymodule_export]
    use crate::errors::{
        BearoffFileError, BearoffRangeError, BgfastError, GameOverError, IllegalMoveError,
        InvalidDiceError, InvalidMoveError, InvalidPositionError,
    };
    // positions and moves
    #[pymodule_export]
    use crate::position::{perft, PyMove, PyOutcome, PyPosition};
    // rollouts
    #[pymodule_export]
    use crate::rollout::{encode_into, pubeval_scores, rollout_tally, PyGameBatch};
    // bear-off
    #[pymodule_export]
    use crate::bearoff::{
        bearoff_index, bearoff_index_batch, bearoff_position, bearoff_position_batch,
        PyOneSidedTable, PyTwoSidedTable,
    };
}
