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

use std::sync::Arc;

use bgfast_core::codec::gnubg_id;
use bgfast_core::rows::{self, ROW_BYTES};
use bgfast_core::{Dice, Position};
use numpy::ndarray::{Array2, Ix3};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray3, PyReadonlyArray2, PyReadonlyArray3};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use rayon::prelude::*;
use rayon::ThreadPool;

use crate::errors::Error;
use crate::moves::with_move_list;
use crate::outbuf;
use crate::position::{dice_from, PyPosition};

/// Batches of at most this many blocks run on the calling thread: threads would cost more
/// than they save.
const SMALL_BATCH: usize = 256;
/// Items a parallel map gives one task at least, called from outside the pool.
const MIN_TASK: usize = 1024;
/// The same, called on a worker (inside [`Runner::run`]), where splitting hands nothing
/// over to the pool and back.
const MIN_TASK_ON_POOL: usize = 256;
/// The most threads a call may ask for (each distinct count keeps its pool for good).
const MAX_THREADS: i64 = 256;
/// First guess of results per block when reserving output (the corpora average 12.5 and
/// 19.3). Generous, because rows past the first guess cost a parallel call extra memory
/// until its end (see `par_generate_rows`), while capacity never touched costs no memory.
const RESULTS_GUESS: usize = 24;

/// Where the work runs: on the calling thread alone, or on a shared pool of workers.
enum Runner {
    Inline,
    Pool(Arc<ThreadPool>),
}

impl Runner {
    /// `threads=None` is every core (or `RAYON_NUM_THREADS`, as rayon reads it); `1` the
    /// calling thread; `k` the shared pool of `k` workers (`bgfast_core::threads`).
    fn new(threads: Option<i64>) -> Result<Runner, Error> {
        let threads = match threads {
            None => rayon::current_num_threads(),
            Some(t @ 1..=MAX_THREADS) => t as usize,
            Some(t) => {
                return Err(Error::Argument(format!(
                    "threads must be from 1 to {MAX_THREADS}, got {t}"
                )))
            }
        };
        if threads == 1 {
            return Ok(Runner::Inline);
        }
        let pool = bgfast_core::threads::pool(threads)
            .map_err(|e| Error::Argument(format!("cannot start {threads} threads: {e}")))?;
        Ok(Runner::Pool(pool))
    }

    fn threads(&self) -> usize {
        match self {
            Runner::Inline => 1,
            Runner::Pool(pool) => pool.current_num_threads(),
        }
    }

    /// Whether [`generate`] hands `blocks` blocks to the workers: small batches run on the
    /// calling thread, where threads would cost more than they save.
    fn generates_in_parallel(&self, blocks: usize) -> bool {
        self.threads() > 1 && blocks > SMALL_BATCH
    }

    /// Runs `f`, a job of `blocks` generations, on a worker of the pool if it will be split
    /// between the workers ([`Runner::generates_in_parallel`]), else on the calling thread
    /// (a small job is not worth the handoff).
    fn run_for<R: Send>(&self, blocks: usize, f: impl FnOnce() -> R + Send) -> R {
        if self.generates_in_parallel(blocks) {
            self.run(f)
        } else {
            f()
        }
    }

    /// Runs `f` on a worker of the pool while the caller waits, so that the parallel work
    /// `f` starts is shared out among the workers rather than injected from outside.
    fn run<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match self {
            Runner::Pool(pool) => pool.install(f),
            Runner::Inline => f(),
        }
    }

    /// `f(i)` for every `i < n`, in order, computed in parallel when there is a pool.
    fn map<T: Send>(&self, n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
        if self.parallel(n) {
            let min_task = self.min_task();
            self.run(|| {
                (0..n)
                    .into_par_iter()
                    .with_min_len(min_task)
                    .map(f)
                    .collect()
            })
        } else {
            (0..n).map(f).collect()
        }
    }

    /// [`Runner::map`] for fallible `f`: all the values, or the error of the first `i` in
    /// order that failed, whatever the thread count.
    fn try_map<T: Send, E: Send>(
        &self,
        n: usize,
        f: impl Fn(usize) -> Result<T, E> + Sync + Send,
    ) -> Result<Vec<T>, E> {
        if self.parallel(n) {
            // Every result first: which error a parallel collect stops at is not fixed.
            self.map(n, f).into_iter().collect()
        } else {
            (0..n).map(f).collect()
        }
    }

    /// Whether `n` items are worth splitting between the workers: below two tasks' worth
    /// the split costs more than it saves.
    fn parallel(&self, n: usize) -> bool {
        matches!(self, Runner::Pool(_)) && n > self.min_task()
    }

    /// The least work for one task: from outside the pool, enough to pay for handing the
    /// job to the workers and back (about 30 us with their wake-ups); on a worker, less.
    fn min_task(&self) -> usize {
        match self {
            Runner::Pool(pool) if pool.current_thread_index().is_some() => MIN_TASK_ON_POOL,
            _ => MIN_TASK,
        }
    }
}

/// Rows of a `(N, 2, 25)` array as they came from Python, not yet validated.
enum RawRows {
    U8(Vec<[u8; ROW_BYTES]>),
    I32(Vec<[i32; ROW_BYTES]>),
}

impl RawRows {
    fn len(&self) -> usize {
        match self {
            RawRows::U8(rows) => rows.len(),
            RawRows::I32(rows) => rows.len(),
        }
    }
}

fn shape_error(what: &str) -> Error {
    Error::Shape(format!(
        "positions must be a (N, 2, 25) array (the Position.to_array() layout) or a sequence \
         of Positions; {what}"
    ))
}

/// Copies the rows out of a uint8 or int32 `(N, 2, 25)` array or a sequence of Positions.
fn read_rows(obj: &Bound<'_, PyAny>) -> PyResult<RawRows> {
    if let Ok(array) = obj.extract::<PyReadonlyArray3<'_, u8>>() {
        return Ok(RawRows::U8(copy_rows(array.as_array())?));
    }
    if let Ok(array) = obj.extract::<PyReadonlyArray3<'_, i32>>() {
        return Ok(RawRows::I32(copy_rows(array.as_array())?));
    }
    if let Ok(list) = obj.cast::<PyList>() {
        return rows_of_positions(list.iter());
    }
    if let Ok(seq) = obj.extract::<Vec<Bound<'_, PyAny>>>() {
        return rows_of_positions(seq.into_iter());
    }
    Err(shape_error("got neither").into())
}

fn copy_rows<T: Copy + Default>(
    view: numpy::ndarray::ArrayView3<'_, T>,
) -> Result<Vec<[T; ROW_BYTES]>, Error> {
    let shape = view.shape();
    if shape[1] != 2 || shape[2] != 25 {
        return Err(shape_error(&format!("got shape {shape:?}")));
    }
    let mut rows = vec![[T::default(); ROW_BYTES]; shape[0]];
    if let Some(flat) = view.as_slice() {
        for (row, src) in rows.iter_mut().zip(flat.chunks_exact(ROW_BYTES)) {
            row.copy_from_slice(src);
        }
    } else {
        for (row, src) in rows.iter_mut().zip(view.outer_iter()) {
            for (dst, &v) in row.iter_mut().zip(src.iter()) {
                *dst = v;
            }
        }
    }
    Ok(rows)
}

fn rows_of_positions<'py>(items: impl Iterator<Item = Bound<'py, PyAny>>) -> PyResult<RawRows> {
    let mut rows = Vec::with_capacity(items.size_hint().0);
    for (i, item) in items.enumerate() {
        let position = item.cast::<PyPosition>().map_err(|_| {
            Error::Row(
                i,
                Box::new(shape_error(&format!(
                    "got a {} in a sequence",
                    item.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))),
            )
        })?;
        rows.push(rows::row(&position.get().inner));
    }
    Ok(RawRows::U8(rows))
}

/// Validates every row (R1, R6, R15); the first bad row's violations name its index.
fn positions_of(rows: &RawRows, runner: &Runner, playable: bool) -> Result<Vec<Position>, Error> {
    let parse = |i: usize| -> Result<Position, Error> {
        let position = match rows {
            RawRows::U8(rows) => {
                // The row's two sides, borrowed in place.
                let (mover, opponent) = rows[i].split_at(25);
                let side = |c| <&[u8; 25]>::try_from(c).expect("25 counts a side");
                Position::from_count_bytes(side(mover), side(opponent))
            }
            RawRows::I32(rows) => {
                let r = &rows[i];
                let mover: [i32; 25] = core::array::from_fn(|c| r[c]);
                let opponent: [i32; 25] = core::array::from_fn(|c| r[25 + c]);
                Position::from_counts(&mover, &opponent)
            }
        }
        .map_err(|e| Error::Row(i, Box::new(e.into())))?;
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
    };
    runner.try_map(rows.len(), parse)
}

/// The flat output of a generation: `offsets[b]..offsets[b + 1]` are block b's results.
struct Generated {
    offsets: Vec<i64>,
    results: Vec<u8>,
}

/// Generates the legal results of `n` blocks, block `b` being the position and roll
/// `block(b)`, in block order, into a pooled output buffer. `in_order` yields the same blocks
/// in order: the calling thread walks it, which costs less than indexing block by block.
fn generate<F, I>(runner: &Runner, n: usize, block: F, in_order: I) -> Generated
where
    F: Fn(usize) -> (Position, Dice) + Sync + Send,
    I: Iterator<Item = (Position, Dice)>,
{
    let mut results = outbuf::take(n.saturating_mul(RESULTS_GUESS * ROW_BYTES));
    let offsets = if runner.generates_in_parallel(n) {
        runner.run(|| rows::par_generate_rows(n, &block, &mut results, outbuf::reserve))
    } else {
        rows::generate_rows(in_order, &mut results, outbuf::reserve)
    };
    debug_assert_eq!(offsets.len(), n + 1);
    Generated { offsets, results }
}

/// Reads `(N, 2)` dice, each row checked (R4: two dice of 1..6).
fn dice_rows(dice: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<Dice>> {
    let array = dice.extract::<PyReadonlyArray2<'_, i64>>().map_err(|_| {
        PyErr::from(Error::Dice(
            "dice must be an integer array of shape (N, 2)".to_string(),
        ))
    })?;
    let view = array.as_array();
    if view.shape() != [n, 2] {
        return Err(Error::Dice(format!(
            "dice must have shape ({n}, 2), one roll per position; got {:?}",
            view.shape()
        ))
        .into());
    }
    let mut out = Vec::with_capacity(n);
    for (i, row) in view.outer_iter().enumerate() {
        out.push(dice_from(row[0], row[1]).map_err(|e| Error::Row(i, Box::new(e)))?);
    }
    Ok(out)
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
    threads: Option<i64>,
) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray3<u8>>)> {
    let runner = Runner::new(threads)?;
    let rows = read_rows(positions)?;
    let dice = dice_rows(dice, rows.len())?;
    // Checked and generated in one job on the pool, so the checks are split too.
    let blocks = rows.len();
    let generated = py.detach(|| {
        runner.run_for(blocks, || -> Result<Generated, Error> {
            let positions = positions_of(&rows, &runner, true)?;
            drop(rows);
            let in_order = positions.iter().copied().zip(dice.iter().copied());
            Ok(generate(
                &runner,
                positions.len(),
                |b| (positions[b], dice[b]),
                in_order,
            ))
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
    threads: Option<i64>,
) -> PyResult<(
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray3<u8>>,
    Bound<'py, PyArray2<u8>>,
)> {
    let runner = Runner::new(threads)?;
    let rows = read_rows(positions)?;
    let n = rows.len();
    // Checked and generated in one job on the pool, so the checks are split too.
    let generated = py.detach(|| {
        runner.run_for(n * 21, || -> Result<Generated, Error> {
            let positions = positions_of(&rows, &runner, true)?;
            drop(rows);
            let in_order = positions
                .iter()
                .flat_map(|&p| Dice::ALL_21.map(|dice| (p, dice)));
            Ok(generate(
                &runner,
                positions.len() * 21,
                |b| (positions[b / 21], Dice::ALL_21[b % 21]),
                in_order,
            ))
        })
    })?;
    let pattern: Vec<u8> = Dice::ALL_21
        .iter()
        .flat_map(|d| [d.high().pips(), d.low().pips()])
        .collect();
    let rolls = Array2::from_shape_vec((n * 21, 2), pattern.repeat(n))
        .map_err(|e| Error::Shape(format!("internal: {e}")))?;
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
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let runner = Runner::new(threads)?;
    let rows = read_rows(positions)?;
    let n = rows.len();
    let dice = dice.map(|d| dice_rows(d, n)).transpose()?;
    // Checked and counted in one job on the pool, so the checks are split too.
    let blocks = if dice.is_some() { n } else { n * 21 };
    let counts = py.detach(|| {
        runner.run_for(blocks, || -> Result<Vec<i64>, Error> {
            let positions = positions_of(&rows, &runner, true)?;
            let count = |position: Position, dice: Dice| {
                with_move_list(|list| {
                    position.generate_moves(dice, list);
                    list.len() as i64
                })
            };
            Ok(match &dice {
                Some(dice) => runner.map(n, |i| count(positions[i], dice[i])),
                None => runner.map(n * 21, |b| count(positions[b / 21], Dice::ALL_21[b % 21])),
            })
        })
    })?;
    if dice.is_some() {
        return Ok(counts.into_pyarray(py).into_any());
    }
    let array = Array2::from_shape_vec((n, 21), counts)
        .map_err(|e| Error::Shape(format!("internal: {e}")))?;
    Ok(array.into_pyarray(py).into_any())
}

/// The GNU Backgammon Position ID of each row.
#[pyfunction]
#[pyo3(signature = (positions, threads=None))]
pub fn batch_ids<'py>(
    py: Python<'py>,
    positions: &Bound<'py, PyAny>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyList>> {
    let runner = Runner::new(threads)?;
    let rows = read_rows(positions)?;
    let ids = py.detach(|| -> Result<Vec<String>, Error> {
        let positions = positions_of(&rows, &runner, false)?;
        Ok(runner.map(positions.len(), |i| gnubg_id::encode(&positions[i])))
    })?;
    PyList::new(py, ids)
}

/// The `(N, 2, 25)` uint8 array of the positions with these Position IDs.
#[pyfunction]
#[pyo3(signature = (ids, threads=None))]
pub fn batch_from_ids<'py>(
    py: Python<'py>,
    ids: &Bound<'py, PyAny>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyArray3<u8>>> {
    let runner = Runner::new(threads)?;
    if ids.is_instance_of::<PyString>() {
        return Err(Error::Shape(
            "from_ids takes a sequence of Position IDs, not one str".to_string(),
        )
        .into());
    }
    let mut strings = Vec::new();
    for (i, item) in ids.try_iter()?.enumerate() {
        let item = item?;
        let text = item.cast::<PyString>().map_err(|_| {
            Error::Row(
                i,
                Box::new(Error::Shape("a Position ID must be a str".to_string())),
            )
        })?;
        strings.push(text.to_str()?.to_owned());
    }
    let rows = py.detach(|| -> Result<Vec<u8>, Error> {
        let decoded = runner.try_map(strings.len(), |i| {
            gnubg_id::decode(&strings[i]).map_err(|e| Error::Row(i, Box::new(e.into())))
        })?;
        let mut out = Vec::with_capacity(decoded.len() * ROW_BYTES);
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
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyArray2<i32>>> {
    let runner = Runner::new(threads)?;
    let rows = read_rows(positions)?;
    let pips = py.detach(|| -> Result<Vec<i32>, Error> {
        let positions = positions_of(&rows, &runner, false)?;
        Ok(positions
            .iter()
            .flat_map(|p| {
                let (a, b) = p.pips();
                [a as i32, b as i32]
            })
            .collect())
    })?;
    let n = pips.len() / 2;
    let array =
        Array2::from_shape_vec((n, 2), pips).map_err(|e| Error::Shape(format!("internal: {e}")))?;
    Ok(array.into_pyarray(py))
}

/// The `(N, 2, 25)` uint8 array of a sequence of Positions.
#[pyfunction]
pub fn batch_stack<'py>(
    py: Python<'py>,
    positions: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray3<u8>>> {
    let RawRows::U8(rows) = read_rows(positions)? else {
        return Err(shape_error("got an int32 array").into());
    };
    let flat: Vec<u8> = rows.iter().flatten().copied().collect();
    results_array(py, flat)
}

/// A list of Positions, one per row of a `(N, 2, 25)` array (rows are validated).
#[pyfunction]
#[pyo3(signature = (positions, threads=None))]
pub fn batch_to_positions<'py>(
    py: Python<'py>,
    positions: &Bound<'py, PyAny>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyList>> {
    let runner = Runner::new(threads)?;
    let rows = read_rows(positions)?;
    let positions = py.detach(|| positions_of(&rows, &runner, false))?;
    PyList::new(py, positions.into_iter().map(|inner| PyPosition { inner }))
}
