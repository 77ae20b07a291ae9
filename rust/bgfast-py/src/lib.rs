//! `bgfast._core`: the thin PyO3 layer over `bgfast-core`. Conversions, errors and numpy
//! entry points only; the rules live in the core crate.

mod alloc;
mod args;
mod batch;
mod bearoff;
mod counts;
mod cube;
mod detach;
mod duel;
mod errors;
mod moves;
mod net;
mod outbuf;
mod plan;
mod policy;
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
        InvalidDiceError, InvalidMoveError, InvalidNetError, InvalidPositionError,
    };
    // positions and moves
    #[pymodule_export]
    use crate::moves::{PyMoves, PyMovesIterator};
    #[pymodule_export]
    use crate::position::{perft, PyMove, PyOutcome, PyPosition};
    // nets
    #[pymodule_export]
    use crate::duel::duel_tally;
    #[pymodule_export]
    use crate::net::PyNet;
    #[pymodule_export]
    use crate::policy::policy_move;
    // rollouts
    #[pymodule_export]
    use crate::plan::PyRolloutPlan;
    // the cube
    #[pymodule_export]
    use crate::cube::{gnubg_cube_lives, PyCubeModel};
    #[pymodule_export]
    use crate::rollout::{encode_into, pubeval_scores, PyGameBatch};
    // batch
    #[pymodule_export]
    use crate::batch::{
        batch_all_rolls, batch_from_ids, batch_ids, batch_move_counts, batch_moves,
        batch_pip_counts, batch_stack, batch_to_positions,
    };
    // threads
    use pyo3::prelude::*;

    /// The most threads a call may ask for (`threads=`).
    #[pymodule_export]
    const MAX_THREADS: usize = bgfast_core::threads::MAX_THREADS;

    /// The names of the match equity tables bgfast ships, the default first.
    #[pymodule_export]
    const SHIPPED_METS: [&str; 3] = bgfast_engine::cube::Met::SHIPPED;

    /// The text of a shipped match equity table's file, by its name (any case, `_` or a
    /// space for `-`): `(name as shipped, text)`, or `None` for another name.
    #[pyfunction]
    fn shipped_met(name: &str) -> Option<(&'static str, &'static str)> {
        let shipped = bgfast_engine::cube::Met::shipped_name(name)?;
        Some((shipped, bgfast_engine::cube::Met::shipped_text(shipped)?))
    }

    /// The thread count of `threads=None`: `RAYON_NUM_THREADS` if set, else the CPUs this
    /// process may run on (at most `MAX_THREADS`).
    #[pyfunction]
    fn default_threads() -> usize {
        bgfast_core::threads::default_threads()
    }

    /// `value` if it is an int (any object with `__index__`, not a bool) from `low` to
    /// `high`: the check every native integer argument gets. `BgfastError` naming `name`,
    /// the range and the value as given; `TypeError` for a value that is no int.
    #[pyfunction]
    fn check_int(name: &str, value: &Bound<'_, PyAny>, low: i128, high: i128) -> PyResult<i128> {
        Ok(crate::args::int_in(value, name, low..=high)?)
    }

    /// The roll `(d1, d2)`, in the order given, of two dice given apart or one pair in
    /// `d1` (a tuple, list or numpy array of two ints from 1 to 6): the one check every
    /// entry point that takes dice makes (`Position.moves`, `Position.play`, `Game.roll`).
    /// `InvalidDiceError` for anything else, a bool or a third die included.
    #[pyfunction]
    #[pyo3(signature = (d1, d2=None))]
    fn check_dice(d1: &Bound<'_, PyAny>, d2: Option<&Bound<'_, PyAny>>) -> PyResult<(u8, u8)> {
        Ok(crate::args::roll(d1, d2)?)
    }

    /// The thread count a `threads=` argument asks for, checked as every native call
    /// checks it: `None` is `default_threads()`, an int must be from 1 to `MAX_THREADS`.
    #[pyfunction]
    #[pyo3(signature = (threads))]
    fn check_threads(threads: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
        Ok(crate::args::threads(threads)?)
    }

    /// The builds of the hot loops that run in this process: `{"generator": ...,
    /// "row_writer": ..., "net": ..., "forced_baseline": bool}` (`BGFAST_ISA=baseline` forces the
    /// baseline builds).
    #[pyfunction]
    fn isa_report(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
        let report = bgfast_core::isa::report();
        let dict = pyo3::types::PyDict::new(py);
        dict.set_item("generator", report.generator)?;
        dict.set_item("row_writer", report.row_writer)?;
        dict.set_item("net", bgfast_engine::net::isa_name())?;
        dict.set_item("forced_baseline", report.forced_baseline)?;
        Ok(dict)
    }

    // bear-off
    #[pymodule_export]
    use crate::bearoff::{
        bearoff_index, bearoff_index_batch, bearoff_position, bearoff_position_batch,
        PyOneSidedTable, PyTwoSidedTable,
    };
}
