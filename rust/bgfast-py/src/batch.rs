//! Batch entry points (`bgfast.batch`): many positions in, numpy arrays out.
//!
//! Every call follows the same shape: copy the input out of Python (attached), then detach,
//! validate every row (the first bad row in row order is reported, whatever the thread
//! count), and only then generate. Output goes into one flat buffer that the numpy array
//! borrows without a copy (and that is reused once numpy is done with it: see [`outbuf`]),
//! so a rejected call writes nothing and an accepted one holds the results plus a small
//! constant per worker.
//!
//! Generating calls write their rows with `bgfast_core::rows` (`generate_rows` on the
//! calling thread, `par_generate_rows` on the pool, in one pass without barriers); the order
//! of the output is the block order (one block = one position and one roll), so it is
//! identical for any thread count.

use std::sync::atomic::AtomicBool;

use bgfast_core::codec::gnubg_id;
use bgfast_core::rows::{self, ROW_BYTES};
use bgfast_core::threads::Runner;
use bgfast_core::{Dice, Position};
use numpy::ndarray::{Array2, Ix3};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArray3, PyReadonlyArray2, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use crate::counts::{self, with_int_array, Rows};
use crate::errors::Error;
use crate::moves::with_move_list;
use crate::position::PyPosition;
use crate::{alloc, args, detach, outbuf};

/// First guess of results per block when reserving output (the corpora average 12.5 and
/// 19.3). Generous, because rows past the first guess cost a parallel call extra memory
/// until its end (see `par_generate_rows`), while capacity never touched costs no memory.
const RESULTS_GUESS: usize = 24;

/// The core's runner for a `threads=` argument: `None` is every core (or
/// `RAYON_NUM_THREADS`, as rayon reads it), `1` the calling thread, `k` (up to 256) the
/// shared pool of `k` workers (`bgfast_core::threads`).
fn runner_for(threads: Option<&Bound<'_, PyAny>>) -> Result<Runner, Error> {
    Ok(Runner::new(args::threads(threads)?)?)
}

/// Validates every row (R1, R6, R12, R15); the first bad row's violations name its index.
fn positions_of(rows: &Rows, runner: &Runner, playable: bool) -> Result<Vec<Position>, Error> {
    runner.try_map(rows.0.len(), |i| position_of(rows, i, playable))
}

/// Row `i` validated, and when `playable`, refused once its game is over (R15).
fn position_of(rows: &Rows, i: usize, playable: bool) -> Result<Position, Error> {
    let position =
        counts::validate_row(&rows.0[i]).map_err(|e| Error::Row(i, Box::new(e.into())))?;
    if playable {
        if let Some(outcome) = position.outcome() {
            return Err(Error::Row(
                i,
                Box::new(Error::GameOver(format!(
                    "R15: the game is over: {} has borne off all 15 checkers",
                    outcome.winner
                ))),
            ));
        }
    }
    Ok(position)
}

/// The rows of `positions` and their rolls, each row's roll for its position; whether a
/// position or a roll is bad, the first bad row in row order is the one named.
fn rows_with_dice(
    positions: &Bound<'_, PyAny>,
    dice: &Bound<'_, PyAny>,
) -> Result<(Rows, Vec<Dice>), Error> {
    let rows = match counts::rows(positions) {
        Ok(rows) => rows,
        // A count past a byte at row i: a bad roll in an earlier row is named first.
        Err(Error::Row(i, error)) => {
            let earlier_roll = positions
                .len()
                .ok()
                .and_then(|n| dice_rows(dice, n).err())
                .filter(|roll| matches!(roll, Error::Row(j, _) if *j < i));
            return Err(earlier_roll.unwrap_or(Error::Row(i, error)));
        }
        Err(error) => return Err(error),
    };
    let dice = match dice_rows(dice, rows.0.len()) {
        Ok(dice) => dice,
        // A bad roll at row j: a bad position in an earlier row is named first.
        Err(Error::Row(j, error)) => {
            let earlier_position = (0..j).find_map(|i| position_of(&rows, i, true).err());
            return Err(earlier_position.unwrap_or(Error::Row(j, error)));
        }
        Err(error) => return Err(error),
    };
    Ok((rows, dice))
}

/// The flat output of a generation: `offsets[b]..offsets[b + 1]` are block b's results.
struct Generated {
    offsets: Vec<i64>,
    results: Vec<u8>,
}

/// Generates the legal results of `n` blocks, block `b` being the position and roll
/// `block(b)`, in block order, into a pooled output buffer. `in_order` yields the same blocks
/// in order: the calling thread walks it, which costs less than indexing block by block.
/// `MemoryError` if the results do not fit in memory; [`Error::Interrupted`] once `cancel`
/// is set.
fn generate<F, I>(
    runner: &Runner,
    n: usize,
    block: F,
    in_order: I,
    cancel: &AtomicBool,
) -> Result<Generated, Error>
where
    F: Fn(usize) -> (Position, Dice) + Sync + Send,
    I: Iterator<Item = (Position, Dice)>,
{
    let mut results = outbuf::take(n.saturating_mul(RESULTS_GUESS * ROW_BYTES))?;
    let offsets = if runner.generates_in_parallel(n) {
        runner.run(|| {
            rows::par_generate_rows_until(n, &block, &mut results, outbuf::reserve, cancel)
        })?
    } else {
        let until_stopped = in_order.take_while(|_| !detach::stopping(cancel));
        Some(rows::generate_rows(
            until_stopped,
            &mut results,
            outbuf::reserve,
        )?)
        .filter(|offsets| offsets.len() == n + 1)
    };
    let offsets = offsets.ok_or(Error::Interrupted)?;
    Ok(Generated { offsets, results })
}

/// Reads `(N, 2)` dice of any integer dtype, each row checked (R4: two dice of 1..6).
fn dice_rows(dice: &Bound<'_, PyAny>, n: usize) -> Result<Vec<Dice>, Error> {
    let dice = &counts::native_order(dice)?;
    let Ok(array) = dice.cast::<PyUntypedArray>() else {
        return Err(Error::Dice(format!(
            "dice must be an integer array of shape (N, 2), not a {}",
            dice.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        )));
    };
    if array.shape() != [n, 2] {
        return Err(Error::Dice(format!(
            "dice must have shape ({n}, 2), one roll per position, or (2,), one roll for all; \
             got {:?}",
            array.shape()
        )));
    }
    let dtype = array.dtype().to_string();
    with_int_array!(
        dice,
        PyReadonlyArray2,
        |view| {
            let mut out = alloc::vec_with_capacity(n)?;
            for (i, row) in view.outer_iter().enumerate() {
                let (d1, d2): (i128, i128) = (row[0].into(), row[1].into());
                out.push(dice_of(d1, d2).map_err(|e| Error::Row(i, Box::new(e)))?);
            }
            Ok(out)
        },
        Err(Error::Dice(format!(
            "dice must be integers from 1 to 6, got an array of dtype {dtype}"
        )))
    )
}

/// A roll from two die values of any size (R4: two dice of 1..6).
fn dice_of(d1: i128, d2: i128) -> Result<Dice, Error> {
    let pips = |d: i128| u8::try_from(d).ok().filter(|d| (1..=6).contains(d));
    match (pips(d1), pips(d2)) {
        (Some(a), Some(b)) => Ok(Dice::from_pips(a, b).expect("both in 1..=6")),
        _ => Err(Error::Dice(format!(
            "dice must be two numbers from 1 to 6, got {d1} and {d2}"
        ))),
    }
}

/// The `(M, 2, 25)` array of result rows, borrowing `results` (see [`outbuf`]).
fn results_array(py: Python<'_>, results: Vec<u8>) -> PyResult<Bound<'_, PyArray3<u8>>> {
    let m = results.len() / ROW_BYTES;
    outbuf::into_array(py, Ix3(m, 2, 25), results)
}

/// The legal results of each row's roll: `(offsets, results)`; see `bgfast.batch.moves`.
#[pyfunction]
#[pyo3(signature = (positions, dice, threads=None))]
#[allow(clippy::type_complexity)]
pub fn batch_moves<'py>(
    py: Python<'py>,
    positions: &Bound<'py, PyAny>,
    dice: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray3<u8>>)> {
    let runner = runner_for(threads)?;
    let (rows, dice) = rows_with_dice(positions, dice)?;
    // Checked and generated in one job on the pool, so the checks are split too.
    let blocks = rows.0.len();
    let generated = detach::batch(py, blocks, |cancel| {
        runner.run_for(blocks, || -> Result<Generated, Error> {
            let positions = positions_of(&rows, &runner, true)?;
            drop(rows);
            let in_order = positions.iter().copied().zip(dice.iter().copied());
            generate(
                &runner,
                positions.len(),
                |b| (positions[b], dice[b]),
                in_order,
                cancel,
            )
        })
    })?;
    Ok((
        generated.offsets.into_pyarray(py),
        results_array(py, generated.results)?,
    ))
}

/// The legal results of all 21 rolls of each row: `(offsets, results, rolls)`; block
/// `21 * i + k` is row `i` with roll `rolls[21 * i + k]`.
#[pyfunction]
#[pyo3(signature = (positions, threads=None))]
#[allow(clippy::type_complexity)]
pub fn batch_all_rolls<'py>(
    py: Python<'py>,
    positions: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<(
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray3<u8>>,
    Bound<'py, PyArray2<u8>>,
)> {
    let runner = runner_for(threads)?;
    let rows = counts::rows(positions)?;
    let n = rows.0.len();
    let blocks = n
        .checked_mul(21)
        .ok_or_else(|| alloc::out_of_memory(n, 21 * ROW_BYTES))?;
    // Checked and generated in one job on the pool, so the checks are split too.
    let generated = detach::batch(py, blocks, |cancel| {
        runner.run_for(blocks, || -> Result<Generated, Error> {
            let positions = positions_of(&rows, &runner, true)?;
            drop(rows);
            let in_order = positions
                .iter()
                .flat_map(|&p| Dice::ALL_21.map(|dice| (p, dice)));
            generate(
                &runner,
                blocks,
                |b| (positions[b / 21], Dice::ALL_21[b % 21]),
                in_order,
                cancel,
            )
        })
    })?;
    let mut rolls = alloc::vec_with_capacity(blocks * 2)?;
    for _ in 0..n {
        rolls.extend(
            Dice::ALL_21
                .iter()
                .flat_map(|d| [d.high().pips(), d.low().pips()]),
        );
    }
    let rolls =
        Array2::from_shape_vec((blocks, 2), rolls).map_err(|e| Error::Internal(e.to_string()))?;
    Ok((
        generated.offsets.into_pyarray(py),
        results_array(py, generated.results)?,
        rolls.into_pyarray(py),
    ))
}

/// The number of legal results of each row's roll (`dice` given, shape `(N,)`) or of all 21
/// rolls of each row (shape `(N, 21)`), without the results themselves.
#[pyfunction]
#[pyo3(signature = (positions, dice=None, threads=None))]
pub fn batch_move_counts<'py>(
    py: Python<'py>,
    positions: &Bound<'py, PyAny>,
    dice: Option<&Bound<'py, PyAny>>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let runner = runner_for(threads)?;
    let (rows, dice) = match dice.filter(|d| !d.is_none()) {
        Some(dice) => rows_with_dice(positions, dice).map(|(rows, dice)| (rows, Some(dice)))?,
        None => (counts::rows(positions)?, None),
    };
    let n = rows.0.len();
    let blocks = match dice {
        Some(_) => n,
        None => n
            .checked_mul(21)
            .ok_or_else(|| alloc::out_of_memory(n, 21 * 8))?,
    };
    // Checked and counted in one job on the pool, so the checks are split too.
    let counts = detach::batch(py, blocks, |cancel| {
        runner.run_for(blocks, || -> Result<Vec<i64>, Error> {
            let positions = positions_of(&rows, &runner, true)?;
            let count = |position: Position, dice: Dice| {
                with_move_list(|list| {
                    position.generate_moves(dice, list);
                    list.len() as i64
                })
            };
            let counts = match &dice {
                Some(dice) => runner.map_until(n, |i| count(positions[i], dice[i]), cancel)?,
                None => runner.map_until(
                    blocks,
                    |b| count(positions[b / 21], Dice::ALL_21[b % 21]),
                    cancel,
                )?,
            };
            counts.ok_or(Error::Interrupted)
        })
    })?;
    if dice.is_some() {
        return Ok(counts.into_pyarray(py).into_any());
    }
    let array =
        Array2::from_shape_vec((n, 21), counts).map_err(|e| Error::Internal(e.to_string()))?;
    Ok(array.into_pyarray(py).into_any())
}

/// The GNU Backgammon Position ID of each row.
#[pyfunction]
#[pyo3(signature = (positions, threads=None))]
pub fn batch_ids<'py>(
    py: Python<'py>,
    positions: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let runner = runner_for(threads)?;
    let rows = counts::rows(positions)?;
    let ids = py.detach(|| -> Result<Vec<String>, Error> {
        let positions = positions_of(&rows, &runner, false)?;
        Ok(runner.map(positions.len(), |i| gnubg_id::encode(&positions[i]))?)
    })?;
    PyList::new(py, ids)
}

/// The `(N, 2, 25)` uint8 array of the positions with these Position IDs.
#[pyfunction]
#[pyo3(signature = (ids, threads=None))]
pub fn batch_from_ids<'py>(
    py: Python<'py>,
    ids: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray3<u8>>> {
    let runner = runner_for(threads)?;
    if ids.is_instance_of::<PyString>() {
        return Err(Error::Shape(
            "from_ids takes a sequence of Position IDs, not one str".to_string(),
        )
        .into());
    }
    let mut strings: Vec<String> = Vec::new();
    let items = ids.try_iter().map_err(|_| {
        Error::Shape(format!(
            "from_ids takes a sequence of Position IDs, not a {}",
            ids.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    for (i, item) in items.enumerate() {
        let item = item?;
        let Ok(text) = item.cast::<PyString>() else {
            // The first bad row in row order is the one named: an earlier ID may not decode.
            for (j, id) in strings.iter().enumerate() {
                gnubg_id::decode(id).map_err(|e| Error::Row(j, Box::new(e.into())))?;
            }
            let type_name = item.get_type().name().map(|n| n.to_string());
            return Err(Error::Row(
                i,
                Box::new(Error::Shape(format!(
                    "a Position ID must be a str, not {}",
                    type_name.unwrap_or_default()
                ))),
            )
            .into());
        };
        strings.push(args::id_text(text)?);
    }
    let rows = py.detach(|| -> Result<Vec<u8>, Error> {
        let decoded = runner.try_map(strings.len(), |i| {
            gnubg_id::decode(&strings[i]).map_err(|e| Error::Row(i, Box::new(e.into())))
        })?;
        let mut out = alloc::vec_with_capacity(decoded.len() * ROW_BYTES)?;
        for position in &decoded {
            out.extend_from_slice(&rows::row(position));
        }
        Ok(out)
    })?;
    results_array(py, rows)
}

/// Pip counts `(side to move, opponent)` of each row, as an `(N, 2)` int32 array.
#[pyfunction]
#[pyo3(signature = (positions, threads=None))]
pub fn batch_pip_counts<'py>(
    py: Python<'py>,
    positions: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray2<i32>>> {
    let runner = runner_for(threads)?;
    let rows = counts::rows(positions)?;
    let pips = py.detach(|| -> Result<Vec<i32>, Error> {
        let positions = positions_of(&rows, &runner, false)?;
        let mut pips = alloc::vec_with_capacity(positions.len() * 2)?;
        pips.extend(positions.iter().flat_map(|p| {
            let (a, b) = p.pips();
            [a as i32, b as i32]
        }));
        Ok(pips)
    })?;
    let n = pips.len() / 2;
    let array = Array2::from_shape_vec((n, 2), pips).map_err(|e| Error::Internal(e.to_string()))?;
    Ok(array.into_pyarray(py))
}

/// The `(N, 2, 25)` uint8 array of a sequence of Positions.
#[pyfunction]
pub fn batch_stack<'py>(
    py: Python<'py>,
    positions: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray3<u8>>> {
    if positions.cast::<PyUntypedArray>().is_ok() {
        return Err(Error::Shape(
            "stack takes a sequence of Positions; this is already an array".to_string(),
        )
        .into());
    }
    let rows = counts::rows(positions)?;
    let mut flat = alloc::vec_with_capacity(rows.0.len() * ROW_BYTES)?;
    flat.extend(rows.0.iter().flatten().copied());
    results_array(py, flat)
}

/// A list of Positions, one per row of a `(N, 2, 25)` array (rows are validated).
#[pyfunction]
#[pyo3(signature = (positions, threads=None))]
pub fn batch_to_positions<'py>(
    py: Python<'py>,
    positions: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let runner = runner_for(threads)?;
    let rows = counts::rows(positions)?;
    let positions = py.detach(|| positions_of(&rows, &runner, false))?;
    PyList::new(py, positions.into_iter().map(|inner| PyPosition { inner }))
}
