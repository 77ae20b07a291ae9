//! Bear-off databases: the GNU Backgammon bear-off index, the one-sided and two-sided
//! tables as immutable Python objects, their file bytes, and numpy batch lookups. Building
//! and batch calls release the GIL; caching on disk is the Python layer's job
//! (`bgfast.bearoff`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use bgfast_core::bearoff::{
    file::FORMAT_VERSION, index::index_out_of_range, BearoffError, CubeState, HomeBoard, OneSided,
    TwoSided, MAX_CHECKERS, MAX_ROLLS, ONE_SIDED_POSITIONS, POINTS, TWO_SIDED_CHECKERS,
    TWO_SIDED_POSITIONS,
};
use bgfast_core::{PositionError, Violation};
use numpy::ndarray::ArrayView2;
use numpy::{
    Element, IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PySlice, PyString};

use crate::counts::{native_order, with_int_array};
use crate::errors::{BearoffRangeError, Error};
use crate::position::PyPosition;
use crate::{args, detach};

/// Six home counts as a Python tuple (a `[u8; 6]` would become `bytes`).
type Counts = (u8, u8, u8, u8, u8, u8);

fn tuple6(c: [u8; POINTS]) -> Counts {
    (c[0], c[1], c[2], c[3], c[4], c[5])
}

fn shape_error(what: &str) -> Error {
    Error::Shape(format!(
        "{what}: expected six counts (ace point first) of 0..15 checkers each"
    ))
}

/// One side's six home counts from any sequence of six ints (a 1-D array too), checked
/// (R1: at most 15 in all, each count as given in the error).
fn board_from(obj: &Bound<'_, PyAny>) -> Result<HomeBoard, Error> {
    let not_six = || shape_error("bear-off points");
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
        return Err(not_six());
    }
    let items: Vec<Bound<'_, PyAny>> = obj.extract().map_err(|_| not_six())?;
    if items.len() != POINTS {
        return Err(not_six());
    }
    let mut counts = [0i128; POINTS];
    for (count, item) in counts.iter_mut().zip(&items) {
        // Beyond 128 bits is beyond 15 too.
        *count = args::integer(item, "a home-board count")?.unwrap_or(i128::MAX);
    }
    board_of_counts(&counts, || {
        let shown: Vec<String> = items.iter().map(args::shown).collect();
        format!("bear-off points [{}]", shown.join(", "))
    })
}

/// The home board of six counts of any size; `what` names them in the error.
fn board_of_counts(counts: &[i128; POINTS], what: impl Fn() -> String) -> Result<HomeBoard, Error> {
    if counts
        .iter()
        .any(|&c| !(0..=i128::from(MAX_CHECKERS)).contains(&c))
    {
        return Err(shape_error(&what()));
    }
    Ok(HomeBoard::new(counts.map(|c| c as u8))?)
}

/// Rows of an `(N, 6)` array of any integer dtype, or a sequence of six-int sequences, as
/// boards; the first bad row is named (R1).
fn boards_from_array(obj: &Bound<'_, PyAny>) -> Result<Vec<HomeBoard>, Error> {
    let obj = &native_order(obj)?;
    let shape = || Error::Shape("expected an (N, 6) integer array of home-board counts".into());
    if let Ok(array) = obj.cast::<PyUntypedArray>() {
        if array.ndim() != 2 || array.shape()[1] != POINTS {
            return Err(shape());
        }
        let dtype = array.dtype().to_string();
        return with_int_array!(
            obj,
            PyReadonlyArray2,
            |view| obj.py().detach(|| boards_of_view(view)),
            Err(Error::Shape(format!(
                "expected an (N, 6) integer array of home-board counts, got dtype {dtype}"
            )))
        );
    }
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
        return Err(shape());
    }
    let rows: Vec<Bound<'_, PyAny>> = obj.extract().map_err(|_| shape())?;
    let mut out = crate::alloc::vec_with_capacity(rows.len())?;
    for (r, row) in rows.iter().enumerate() {
        out.push(board_from(row).map_err(|e| Error::Row(r, Box::new(e)))?);
    }
    Ok(out)
}

/// The table indexes of both sides' boards (`boards_from_array`); when both arrays hold a
/// bad row, the error names the first of them.
fn indexes_of_both(
    mover: &Bound<'_, PyAny>,
    opponent: &Bound<'_, PyAny>,
) -> Result<(Vec<u32>, Vec<u32>), Error> {
    let indexes = |boards: Vec<HomeBoard>| boards.iter().map(|b| b.index()).collect();
    match (boards_from_array(mover), boards_from_array(opponent)) {
        (Ok(m), Ok(o)) => Ok((indexes(m), indexes(o))),
        (Err(Error::Row(r, m)), Err(Error::Row(s, o))) => Err(if s < r {
            Error::Row(s, o)
        } else {
            Error::Row(r, m)
        }),
        (Err(e), _) | (_, Err(e)) => Err(e),
    }
}

fn boards_of_view<T: Element + Copy + Into<i128>>(
    view: ArrayView2<'_, T>,
) -> Result<Vec<HomeBoard>, Error> {
    let mut out = crate::alloc::vec_with_capacity(view.nrows())?;
    for (r, row) in view.rows().into_iter().enumerate() {
        let counts: [i128; POINTS] = core::array::from_fn(|i| row[i].into());
        let board = board_of_counts(&counts, || format!("bear-off points {counts:?}"));
        out.push(board.map_err(|e| Error::Row(r, Box::new(e)))?);
    }
    Ok(out)
}

/// The first row of the two sides' table indexes that the two-sided table does not cover
/// (a side past its checkers, or both borne off), as its error.
fn range_error(m: &[u32], o: &[u32]) -> Result<(), Error> {
    let limit = TWO_SIDED_POSITIONS as u32;
    let Some(r) = m
        .iter()
        .zip(o)
        .position(|(&a, &b)| a >= limit || b >= limit || (a == 0 && b == 0))
    else {
        return Ok(());
    };
    let error = if m[r] == 0 && o[r] == 0 {
        BearoffError::BothBorneOff
    } else {
        BearoffError::TooManyCheckers {
            count: HomeBoard::from_index(m[r].max(o[r]))
                .map(|b| b.checkers() as u32)
                .unwrap_or(16),
            max: TWO_SIDED_CHECKERS,
        }
    };
    Err(Error::Row(r, Box::new(bearoff_error(error))))
}

/// The packed rows of an `(N, 6)` uint8 array in C order (the fast path of the batch
/// lookups), or `None` for anything else. A Fortran-ordered array is `None`: its memory
/// is not row after row.
fn packed_u8_rows<'py>(obj: &Bound<'py, PyAny>) -> Option<PyReadonlyArray2<'py, u8>> {
    let array = obj.extract::<PyReadonlyArray2<'py, u8>>().ok()?;
    (array.shape()[1] == POINTS && array.is_c_contiguous()).then_some(array)
}

/// The home boards of both sides of a position, or an error if a side has a checker
/// outside its home board or on the bar (R13).
fn boards_of_position(position: &PyPosition) -> Result<(HomeBoard, HomeBoard), Error> {
    let [mover, opponent] = position.inner.to_counts();
    let home = |counts: [u8; 25], side: &'static str| {
        if counts[POINTS..].iter().any(|&c| c != 0) {
            return Err(Error::Bearoff(BearoffError::NotHome { side }));
        }
        Ok(HomeBoard::new(core::array::from_fn(|i| counts[i]))?)
    };
    Ok((home(mover, "mover")?, home(opponent, "opponent")?))
}

/// Either a `Position` or a pair `(mover_points, opponent_points)`.
fn pair_from(obj: &Bound<'_, PyAny>) -> PyResult<(HomeBoard, HomeBoard)> {
    if let Ok(position) = obj.cast::<PyPosition>() {
        return Ok(boards_of_position(position.get())?);
    }
    let (mover, opponent): (Bound<'_, PyAny>, Bound<'_, PyAny>) = obj.extract().map_err(|_| {
        PyErr::from(Error::Shape(
            "expected a Position or a pair (mover_points, opponent_points)".to_string(),
        ))
    })?;
    Ok((board_from(&mover)?, board_from(&opponent)?))
}

/// A core bear-off error as the bindings raise it. Both sides borne off is not a position
/// at all (R15), so it is the error `Position` raises for it, not a table's range error.
fn bearoff_error(e: BearoffError) -> Error {
    match e {
        BearoffError::BothBorneOff => Error::Position(PositionError {
            violations: vec![Violation::BothFinished],
        }),
        e => Error::Bearoff(e),
    }
}

/// A checked index in `0..positions`, or the range error naming the index as given (with
/// `row` for batch calls).
fn index_checked(
    index: Option<i128>,
    shown: impl Fn() -> String,
    positions: usize,
    row: Option<usize>,
) -> PyResult<u32> {
    let error = match index {
        Some(i) if (0..positions as i128).contains(&i) => return Ok(i as u32),
        Some(index) => Error::Bearoff(BearoffError::IndexOutOfRange { index, positions }),
        None => {
            let message = index_out_of_range(&shown(), positions);
            return Err(BearoffRangeError::new_err(match row {
                Some(r) => format!("row {r}: {message}"),
                None => message,
            }));
        }
    };
    Err(match row {
        Some(r) => Error::Row(r, Box::new(error)),
        None => error,
    }
    .into())
}

/// Checks each index of a numpy array of one integer dtype.
fn indexes_of<T: numpy::Element + Copy + Into<i128>>(
    obj: &Bound<'_, PyAny>,
    positions: usize,
) -> Option<PyResult<Vec<u32>>> {
    let a = obj.extract::<PyReadonlyArray1<'_, T>>().ok()?;
    let a = a.as_array();
    Some(
        a.iter()
            .enumerate()
            .map(|(r, &i)| {
                let i: i128 = i.into();
                index_checked(Some(i), || i.to_string(), positions, Some(r))
            })
            .collect(),
    )
}

/// Indexes from a 1-D integer array (any integer dtype) or a sequence of ints, each checked.
fn indexes_from_array(obj: &Bound<'_, PyAny>, positions: usize) -> PyResult<Vec<u32>> {
    let fast = indexes_of::<u32>(obj, positions)
        .or_else(|| indexes_of::<i64>(obj, positions))
        .or_else(|| indexes_of::<u64>(obj, positions))
        .or_else(|| indexes_of::<i32>(obj, positions))
        .or_else(|| indexes_of::<u16>(obj, positions))
        .or_else(|| indexes_of::<i16>(obj, positions))
        .or_else(|| indexes_of::<u8>(obj, positions))
        .or_else(|| indexes_of::<i8>(obj, positions));
    if let Some(indexes) = fast {
        return indexes;
    }
    let shape = || {
        PyErr::from(Error::Shape(
            "expected a 1-D integer array of indexes".into(),
        ))
    };
    if let Ok(a) = obj.cast::<numpy::PyUntypedArray>() {
        if a.ndim() != 1 {
            return Err(shape());
        }
    }
    if obj.is_instance_of::<pyo3::types::PyString>() || obj.is_instance_of::<PyBytes>() {
        return Err(Error::Type(
            "expected a 1-D integer array of indexes, got a string".to_string(),
        )
        .into());
    }
    let items = obj.try_iter().map_err(|_| shape())?;
    let mut out = Vec::new();
    for (r, item) in items.enumerate() {
        let item = item?;
        out.push(index_checked(
            args::integer(&item, &format!("row {r}: a bear-off index"))?,
            || args::shown(&item),
            positions,
            Some(r),
        )?);
    }
    Ok(out)
}

/// Runs a table build with the GIL released, on the shared pool of `threads` workers
/// (`threads=None`: every core), stopping on Ctrl-C once the build returns. If `progress`
/// is given, calls it as `progress(done, total)` about twenty times a second and once at
/// the end; an exception it raises is raised once the build has returned.
fn build_detached<T: Send>(
    py: Python<'_>,
    threads: Option<&Bound<'_, PyAny>>,
    progress: Option<Py<PyAny>>,
    build: impl FnOnce(&(dyn Fn(usize, usize) + Sync)) -> T + Send,
) -> PyResult<T> {
    let threads = args::threads(threads)?;
    let pool = bgfast_core::threads::pool(threads).map_err(Error::from)?;
    let done = AtomicUsize::new(0);
    let total = AtomicUsize::new(0);
    let report = |d: usize, t: usize| {
        done.store(d, Ordering::Relaxed);
        total.store(t, Ordering::Relaxed);
    };
    let mut last = (0, 0);
    // Only news: nothing before the first report, nothing twice.
    let mut call = |py: Python<'_>| -> PyResult<()> {
        let news = (done.load(Ordering::Relaxed), total.load(Ordering::Relaxed));
        match &progress {
            Some(cb) if news.1 > 0 && news != last => {
                last = news;
                cb.call1(py, news).map(|_| ())
            }
            _ => Ok(()),
        }
    };
    // The build does not look at the cancel flag: it takes about a second.
    let table = detach::run(py, |_| pool.install(|| build(&report)), &mut call)?;
    let t = total.load(Ordering::Relaxed);
    done.store(t, Ordering::Relaxed);
    call(py)?;
    Ok(table)
}

/// The GNU Backgammon bear-off index of one side's home board (six counts, ace first, at
/// most 15 checkers): `gnubg.positionbearoff` with 6 points.
#[pyfunction]
pub fn bearoff_index(points: &Bound<'_, PyAny>) -> PyResult<u32> {
    Ok(board_from(points)?.index())
}

/// The six home counts (ace first) of a bear-off index from 0 to 54263.
#[pyfunction]
pub fn bearoff_position(index: &Bound<'_, PyAny>) -> PyResult<Counts> {
    let i = index_checked(
        args::integer(index, "a bear-off index")?,
        || args::shown(index),
        ONE_SIDED_POSITIONS,
        None,
    )?;
    Ok(tuple6(
        HomeBoard::from_index(i).map_err(Error::from)?.counts(),
    ))
}

/// Bear-off indexes (uint32) of the rows of an `(N, 6)` integer array.
#[pyfunction]
pub fn bearoff_index_batch<'py>(
    py: Python<'py>,
    points: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    // Fast path: a C-ordered uint8 array, checked and indexed without the GIL.
    if let Some(a) = packed_u8_rows(points) {
        if let Ok(flat) = a.as_slice() {
            let out = py.detach(|| index_rows_u8(flat))?;
            return Ok(out.into_pyarray(py));
        }
    }
    let boards = boards_from_array(points)?;
    Ok(boards
        .iter()
        .map(|b| b.index())
        .collect::<Vec<_>>()
        .into_pyarray(py))
}

/// Indexes of packed uint8 rows of six counts; an error names the first bad row.
fn index_rows_u8(flat: &[u8]) -> Result<Vec<u32>, Error> {
    let mut out = Vec::with_capacity(flat.len() / POINTS);
    for (r, row) in flat.chunks_exact(POINTS).enumerate() {
        let counts: [u8; POINTS] = row.try_into().expect("chunks of six");
        let total: u32 = counts.iter().map(|&c| c as u32).sum();
        if total > MAX_CHECKERS as u32 {
            return Err(Error::Shape(format!(
                "R1: row {r} {counts:?} has {total} checkers, more than 15"
            )));
        }
        out.push(bgfast_core::bearoff::index::index_unchecked(&counts));
    }
    Ok(out)
}

/// Home counts `(N, 6)` uint8 of a 1-D array of bear-off indexes.
#[pyfunction]
pub fn bearoff_position_batch<'py>(
    py: Python<'py>,
    indexes: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray2<u8>>> {
    let idx = indexes_from_array(indexes, ONE_SIDED_POSITIONS)?;
    let n = idx.len();
    let flat: Vec<u8> = py.detach(|| {
        idx.iter()
            .flat_map(|&i| bgfast_core::bearoff::index::position_unchecked(i))
            .collect()
    });
    flat.into_pyarray(py).reshape([n, POINTS])
}

/// The one-sided bear-off database: for each of the 54,264 home boards of up to 15
/// checkers, the exact distributions of rolls to bear off all checkers and the first one.
/// Immutable; build it with `OneSidedTable.build()` or read it with `from_bytes`.
#[pyclass(name = "OneSidedTable", module = "bgfast", frozen)]
pub struct PyOneSidedTable {
    inner: Arc<OneSided>,
}

#[pymethods]
impl PyOneSidedTable {
    /// The file format version this bgfast writes and reads.
    #[classattr]
    const FORMAT_VERSION: u32 = FORMAT_VERSION;
    /// Entries of a distribution array (entry n: exactly n rolls).
    #[classattr]
    const MAX_ROLLS: usize = MAX_ROLLS;

    /// Builds the table (GIL released) on `threads` threads (all cores if None), calling
    /// `progress(done, total)` now and then if given.
    #[staticmethod]
    #[pyo3(signature = (threads=None, progress=None))]
    fn build(
        py: Python<'_>,
        threads: Option<&Bound<'_, PyAny>>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        let table = build_detached(py, threads, progress, |p| OneSided::build_with_progress(p))?;
        Ok(PyOneSidedTable {
            inner: Arc::new(table),
        })
    }

    /// GNU Backgammon's own table, reproduced with its 16-bit rounding and its choice of
    /// play by rounded means (a reference for tests; `build()` is the exact table).
    #[staticmethod]
    fn build_gnubg_compatible(py: Python<'_>) -> Self {
        let table = py.detach(OneSided::build_gnubg_compatible);
        PyOneSidedTable {
            inner: Arc::new(table),
        }
    }

    /// Reads file bytes, verifying version, checksum and structure; raises
    /// `BearoffFileError` for anything that must not be trusted.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<Self> {
        let table = py
            .detach(|| OneSided::from_bytes(data))
            .map_err(Error::from)?;
        Ok(PyOneSidedTable {
            inner: Arc::new(table),
        })
    }

    /// The file bytes (header with version and checksum, then the table).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let bytes = py.detach(|| self.inner.to_bytes());
        PyBytes::new(py, &bytes)
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Rolls distribution of `points` (float64, 32 entries; entry n: exactly n rolls).
    fn rolls_distribution<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let d = self.inner.rolls_distribution(board_from(points)?);
        Ok(PyArray1::from_slice(py, &d))
    }

    /// First-checker distribution of `points` (entry n: the first checker is off after
    /// exactly n rolls); a point mass on 0 if fewer than 15 checkers are left.
    fn gammon_distribution<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let d = self.inner.gammon_distribution(board_from(points)?);
        Ok(PyArray1::from_slice(py, &d))
    }

    /// Expected rolls to bear off all checkers.
    fn expected_rolls(&self, points: &Bound<'_, PyAny>) -> PyResult<f64> {
        Ok(self.inner.expected_rolls(board_from(points)?.index()))
    }

    /// Expected rolls to bear off the first checker (0 if one is already off).
    fn expected_rolls_to_first_off(&self, points: &Bound<'_, PyAny>) -> PyResult<f64> {
        Ok(self
            .inner
            .expected_rolls_to_first_off(board_from(points)?.index()))
    }

    /// Variance of the number of rolls to bear off all checkers.
    fn variance(&self, points: &Bound<'_, PyAny>) -> PyResult<f64> {
        Ok(self.inner.variance(board_from(points)?.index()))
    }

    /// Effective pip count: expected rolls times 49/6.
    fn epc(&self, points: &Bound<'_, PyAny>) -> PyResult<f64> {
        Ok(self.inner.epc(board_from(points)?.index()))
    }

    /// The bear-off-perfect play (fewest expected rolls) of `points` with the roll d1-d2,
    /// as six counts; None if no checker is left.
    fn best_play(
        &self,
        points: &Bound<'_, PyAny>,
        d1: &Bound<'_, PyAny>,
        d2: &Bound<'_, PyAny>,
    ) -> PyResult<Option<Counts>> {
        let board = board_from(points)?;
        let dice = args::dice_pair(d1, d2)?;
        Ok(self
            .inner
            .best_play(board, dice.high().pips(), dice.low().pips())
            .map(|b| tuple6(b.counts())))
    }

    /// `(win, win gammon, lose gammon)` for the side on roll, both sides bearing off,
    /// from the two one-sided distributions taken as independent (GNU Backgammon's
    /// one-sided evaluation; the two-sided table is exact where it applies).
    fn race_probabilities(
        &self,
        mover: &Bound<'_, PyAny>,
        opponent: &Bound<'_, PyAny>,
    ) -> PyResult<(f64, f64, f64)> {
        let [w, wg, lg] = self
            .inner
            .race_probabilities(board_from(mover)?, board_from(opponent)?)
            .map_err(bearoff_error)?;
        Ok((w, wg, lg))
    }

    /// Rolls distributions `(N, 32)` of the rows of an `(N, 6)` integer array.
    fn rolls_distribution_batch<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        self.distribution_batch(py, points, false)
    }

    /// First-checker distributions `(N, 32)` of the rows of an `(N, 6)` integer array.
    fn gammon_distribution_batch<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        self.distribution_batch(py, points, true)
    }

    /// Expected rolls (float64, N) of the rows of an `(N, 6)` integer array.
    fn expected_rolls_batch<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        self.scalar_batch(py, points, 1.0)
    }

    /// Effective pip counts (float64, N) of the rows of an `(N, 6)` integer array.
    fn epc_batch<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        self.scalar_batch(py, points, bgfast_core::bearoff::PIPS_PER_ROLL)
    }

    fn __repr__(&self) -> String {
        format!(
            "<OneSidedTable: {} positions of up to 15 checkers>",
            self.inner.len()
        )
    }
}

impl PyOneSidedTable {
    /// The shared core table, for other bindings (e.g. rollouts) that get the cached
    /// table from `bgfast.bearoff.one_sided()` and use it without the GIL.
    #[allow(dead_code)]
    pub fn table(&self) -> Arc<OneSided> {
        Arc::clone(&self.inner)
    }

    fn scalar_batch<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
        scale: f64,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let table = &self.inner;
        if let Some(a) = packed_u8_rows(points) {
            if let Ok(flat) = a.as_slice() {
                let out = py.detach(|| -> Result<Vec<f64>, Error> {
                    Ok(index_rows_u8(flat)?
                        .into_iter()
                        .map(|i| table.expected_rolls(i) * scale)
                        .collect())
                })?;
                return Ok(out.into_pyarray(py));
            }
        }
        let boards = boards_from_array(points)?;
        let out: Vec<f64> = boards
            .iter()
            .map(|b| table.expected_rolls(b.index()) * scale)
            .collect();
        Ok(out.into_pyarray(py))
    }

    fn distribution_batch<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
        gammon: bool,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let boards = boards_from_array(points)?;
        let n = boards.len();
        let table = &self.inner;
        let flat: Vec<f64> = py.detach(|| {
            let mut flat = vec![0.0; n * MAX_ROLLS];
            for (row, b) in flat.chunks_exact_mut(MAX_ROLLS).zip(&boards) {
                let (start, probs) = if gammon {
                    table.gammon_slice(b.index())
                } else {
                    table.rolls_slice(b.index())
                };
                row[start..start + probs.len()].copy_from_slice(probs);
            }
            flat
        });
        flat.into_pyarray(py).reshape([n, MAX_ROLLS])
    }
}

fn cube_from(name: &str) -> Result<CubeState, Error> {
    match name {
        "centred" | "centered" => Ok(CubeState::Centred),
        "owned" => Ok(CubeState::Owned),
        "unavailable" => Ok(CubeState::Unavailable),
        other => Err(Error::Argument(format!(
            "R17: cube must be 'centred', 'owned' (by the side on roll) or 'unavailable' \
             (owned by the opponent), got {other:?}"
        ))),
    }
}

/// The two-sided bear-off database: for every pair of home boards of up to 6 checkers
/// (924 x 924), the exact cubeless probability that the side on roll wins with best play,
/// and (if built cubeful) money equities for each cube state.
#[pyclass(name = "TwoSidedTable", module = "bgfast", frozen)]
pub struct PyTwoSidedTable {
    pub(crate) inner: Arc<TwoSided>,
}

#[pymethods]
impl PyTwoSidedTable {
    /// The file format version this bgfast writes and reads.
    #[classattr]
    const FORMAT_VERSION: u32 = FORMAT_VERSION;
    /// Checkers per side the table covers.
    #[classattr]
    const MAX_CHECKERS: u8 = TWO_SIDED_CHECKERS;

    /// Builds the table (GIL released) on `threads` threads (all cores if None), with the
    /// cubeful money equities if `cubeful`; calls `progress(done, total)` now and then.
    #[staticmethod]
    #[pyo3(signature = (cubeful=true, threads=None, progress=None))]
    fn build(
        py: Python<'_>,
        cubeful: bool,
        threads: Option<&Bound<'_, PyAny>>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        let table = build_detached(py, threads, progress, |p| TwoSided::build(cubeful, p))?;
        Ok(PyTwoSidedTable {
            inner: Arc::new(table),
        })
    }

    /// GNU Backgammon's two-sided table reproduced in its own 16-bit arithmetic: a
    /// `(924, 924, 4)` uint16 array of the words `makebearoff -t 6x6` stores (cubeless,
    /// cube owned, centred, owned by the opponent; value + 0x8000). A test reference.
    #[staticmethod]
    fn gnubg_compatible_words(py: Python<'_>) -> PyResult<Bound<'_, numpy::PyArray3<u16>>> {
        let words = py.detach(TwoSided::build_gnubg_compatible);
        let flat: Vec<u16> = words.into_iter().flatten().collect();
        flat.into_pyarray(py)
            .reshape([TWO_SIDED_POSITIONS, TWO_SIDED_POSITIONS, 4])
    }

    /// Reads file bytes, verifying version, checksum and ranges; raises
    /// `BearoffFileError` for anything that must not be trusted.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<Self> {
        let table = py
            .detach(|| TwoSided::from_bytes(data))
            .map_err(Error::from)?;
        Ok(PyTwoSidedTable {
            inner: Arc::new(table),
        })
    }

    /// The file bytes (header with version and checksum, then the table).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let bytes = py.detach(|| self.inner.to_bytes());
        PyBytes::new(py, &bytes)
    }

    /// Whether the cubeful equities were built.
    #[getter]
    fn cubeful(&self) -> bool {
        self.inner.has_cubeful()
    }

    /// Cubeless probability that the side on roll wins: `position` is a `Position` with
    /// every checker home, or a pair `(mover_points, opponent_points)`; at most 6 checkers a
    /// side (else `BearoffRangeError`).
    fn win_probability(&self, position: &Bound<'_, PyAny>) -> PyResult<f64> {
        let (mover, opponent) = pair_from(position)?;
        Ok(self
            .inner
            .win_probability(mover, opponent)
            .map_err(bearoff_error)?)
    }

    /// Win probabilities (float64, N) for two `(N, 6)` integer arrays of home counts, the
    /// side on roll's and the opponent's.
    fn win_probability_batch<'py>(
        &self,
        py: Python<'py>,
        mover: &Bound<'py, PyAny>,
        opponent: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let table = &self.inner;
        let fast = |a: &Bound<'py, PyAny>| -> Option<Vec<u32>> {
            let a = packed_u8_rows(a)?;
            let flat = a.as_slice().ok()?;
            py.detach(|| index_rows_u8(flat)).ok()
        };
        let (m, o) = match (fast(mover), fast(opponent)) {
            (Some(m), Some(o)) => (m, o),
            _ => match indexes_of_both(mover, opponent) {
                Ok(both) => both,
                Err(Error::Row(r, e)) => {
                    // A row before `r` may be a home board the table does not cover:
                    // the error names the first bad row, whatever its fault.
                    let before =
                        |a: &Bound<'py, PyAny>| a.get_item(PySlice::new(py, 0, r as isize, 1));
                    if let (Ok(m), Ok(o)) = (before(mover), before(opponent)) {
                        if let Ok((m, o)) = indexes_of_both(&m, &o) {
                            range_error(&m, &o)?;
                        }
                    }
                    return Err(Error::Row(r, e).into());
                }
                Err(e) => return Err(e.into()),
            },
        };
        if m.len() != o.len() {
            return Err(Error::Shape(format!(
                "mover and opponent arrays differ in length: {} and {}",
                m.len(),
                o.len()
            ))
            .into());
        }
        range_error(&m, &o)?;
        let out: Vec<f64> = py.detach(|| {
            m.iter()
                .zip(&o)
                .map(|(&a, &b)| table.win_probability_by_index(a, b))
                .collect()
        });
        Ok(out.into_pyarray(py))
    }

    /// Money equity of the side on roll per unit of cube (no gammons in these positions)
    /// with the cube `'centred'`, `'owned'` by the side on roll or `'unavailable'` (owned by
    /// the opponent). With `may_double` (default) the side on roll's best cube action is
    /// included; without it, the equity of not doubling now. `doubles_left` (0 to 15) is how
    /// many more times the cube may be turned before its limit (R17); None, a cube that can
    /// always be turned again. None if built cubeless.
    #[pyo3(signature = (position, cube="centred", may_double=true, doubles_left=None))]
    fn cubeful_equity(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        cube: &str,
        may_double: bool,
        doubles_left: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<f64>> {
        let (mover, opponent) = pair_from(position)?;
        let cube = cube_from(cube)?;
        let doubles_left = args::opt_int_in(doubles_left, "R17: doubles_left", 0..=15)?;
        // The first lookup of a cube limit builds its tables: a second or two at most.
        let table = &*self.inner;
        Ok(py
            .detach(|| table.cubeful_equity(mover, opponent, cube, may_double, doubles_left))
            .map_err(bearoff_error)?)
    }

    /// The play of the side on roll with the roll d1-d2 that maximises its winning
    /// chances, as six counts; None if it has no checker left.
    fn best_play(
        &self,
        position: &Bound<'_, PyAny>,
        d1: &Bound<'_, PyAny>,
        d2: &Bound<'_, PyAny>,
    ) -> PyResult<Option<Counts>> {
        let (mover, opponent) = pair_from(position)?;
        self.inner
            .win_probability(mover, opponent)
            .map_err(bearoff_error)?;
        let dice = args::dice_pair(d1, d2)?;
        Ok(self
            .inner
            .best_play(mover, opponent, dice.high().pips(), dice.low().pips())
            .map(|b| tuple6(b.counts())))
    }

    fn __repr__(&self) -> String {
        format!(
            "<TwoSidedTable: {n} x {n} positions of up to 6 checkers{}>",
            if self.inner.has_cubeful() {
                ", cubeful"
            } else {
                ", cubeless"
            },
            n = TWO_SIDED_POSITIONS
        )
    }
}

impl PyTwoSidedTable {
    /// The shared core table, for other bindings (e.g. rollouts) that get the cached
    /// table from `bgfast.bearoff.two_sided()` and use it without the GIL.
    #[allow(dead_code)]
    pub fn table(&self) -> Arc<TwoSided> {
        Arc::clone(&self.inner)
    }
}
