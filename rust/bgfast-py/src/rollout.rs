//! Rollouts, pubeval, feature encodings and lockstep game batches: numpy in, numpy out,
//! the GIL released around every loop over games or positions.

use bgfast_core::Position;
use bgfast_engine::batch::{GameBatch, SlotStep, StepError};
use bgfast_engine::features::Scheme;
use bgfast_engine::pubeval;
use numpy::ndarray::Array2;
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArray3, PyArrayMethods, PyReadonlyArray1, PyReadwriteArray2,
    PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::counts::{self, with_int_array};
use crate::errors::Error;
use crate::policy::PolicyArg;
use crate::{alloc, args, detach};

/// The most games one batch holds (memory grows with it; larger requests are refused or,
/// for rollouts, run in this many slots).
pub(crate) use bgfast_engine::rollout::MAX_SLOTS;

/// `(rewards, done)` of one step.
type StepArrays<'py> = (
    Bound<'py, PyArray1<i8>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray3<u8>>,
);

/// `(features, offsets)` of every slot's candidates.
type CandidateArrays<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray1<i64>>);

pub(crate) fn scheme_from(name: &str) -> Result<Scheme, Error> {
    Scheme::from_name(name).ok_or_else(|| {
        let names: Vec<String> = Scheme::ALL
            .iter()
            .map(|s| format!("{:?}", s.name()))
            .collect();
        Error::Argument(format!(
            "unknown feature scheme {name:?}: use one of {}",
            names.join(", ")
        ))
    })
}

/// Pubeval scores of `(N, 2, 25)` positions, each for its row 0, weights chosen by the
/// position (as GNU Backgammon's `pub_eval_score`). Releases the GIL.
#[pyfunction]
pub fn pubeval_scores<'py>(
    py: Python<'py>,
    positions: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray1<f32>>> {
    let positions = counts::positions(positions)?;
    let scores = detach::batch(py, positions.len(), |cancel| {
        let scores: Vec<f32> = positions
            .iter()
            .take_while(|_| !detach::stopping(cancel))
            .map(pubeval::score)
            .collect();
        if scores.len() < positions.len() {
            return Err(Error::Interrupted);
        }
        Ok(scores)
    })?;
    Ok(scores.into_pyarray(py))
}

/// Encodes `(N, 2, 25)` positions (row 0 on roll) into `out`, a C-contiguous float32 array
/// of shape `(N, width)`. Releases the GIL; Ctrl-C stops it, `out` partly written.
#[pyfunction]
pub fn encode_into(
    py: Python<'_>,
    positions: &Bound<'_, PyAny>,
    scheme: &str,
    out: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let scheme = scheme_from(scheme)?;
    let positions = counts::positions(positions)?;
    let width = scheme.width();
    let mut out: PyReadwriteArray2<'_, f32> = out.extract().map_err(|_| {
        let what = args::array_kind(out);
        Error::Argument(format!(
            "out must be a writable float32 array of shape (N, {width}), not {what}"
        ))
    })?;
    if out.shape() != [positions.len(), width] {
        return Err(Error::Argument(format!(
            "out must have shape ({}, {width}), got {:?}",
            positions.len(),
            out.shape()
        ))
        .into());
    }
    // `as_slice_mut` also accepts a Fortran-ordered array, whose memory order is not the
    // row order written here.
    if !out.is_c_contiguous() {
        return Err(Error::Argument("out must be C-contiguous (row-major)".into()).into());
    }
    let slice = out.as_slice_mut().map_err(|_| {
        Error::Argument("out must be aligned for float32 (numpy's own arrays are)".into())
    })?;
    // Ctrl-C leaves `out` partly written (its first rows), as any interrupted write would.
    detach::batch(py, positions.len(), |cancel| {
        for (p, row) in positions.iter().zip(slice.chunks_exact_mut(width)) {
            if detach::stopping(cancel) {
                return Err(Error::Interrupted);
            }
            scheme.encode(p, true, row);
        }
        Ok(())
    })?;
    Ok(())
}

/// Many games advanced one ply at a time (the engine of `VecEnv` and of rollouts with a
/// Python evaluator).
#[pyclass(name = "GameBatch", module = "bgfast._core")]
pub struct PyGameBatch {
    batch: GameBatch,
    steps: Vec<SlotStep>,
}

/// The room for what one step of `n` games returns, taken before the step: a step whose
/// output does not fit in memory is refused before it changes anything.
struct StepOutput {
    rewards: Vec<i8>,
    done: Vec<bool>,
    finals: Vec<u8>,
}

impl StepOutput {
    fn reserve(n: usize) -> Result<StepOutput, Error> {
        Ok(StepOutput {
            rewards: alloc::vec_with_capacity(n)?,
            done: alloc::vec_with_capacity(n)?,
            finals: alloc::vec_with_capacity(n.saturating_mul(2 * 25))?,
        })
    }

    /// `(rewards, done, final positions)` of the step just played.
    fn fill<'py>(
        mut self,
        py: Python<'py>,
        steps: &[SlotStep],
        batch: &GameBatch,
    ) -> PyResult<StepArrays<'py>> {
        self.rewards.extend(steps.iter().map(|s| s.reward));
        self.done.extend(steps.iter().map(|s| s.done));
        let n = batch.len();
        write_counts(&mut self.finals, (0..n).map(|i| batch.final_position(i)));
        Ok((
            self.rewards.into_pyarray(py),
            self.done.into_pyarray(py),
            self.finals.into_pyarray(py).reshape([n, 2, 25])?,
        ))
    }
}

/// The items of an iterator of known length in a vector, or `MemoryError` (for outputs
/// sized by the number of games, which may be millions).
fn collected<T>(items: impl ExactSizeIterator<Item = T>) -> Result<Vec<T>, Error> {
    let mut v = alloc::vec_with_capacity(items.len())?;
    v.extend(items);
    Ok(v)
}

/// The `(n, 2, 25)` counts of `n` positions (zeros for `None`), or `MemoryError`.
fn counts_array<'py>(
    py: Python<'py>,
    positions: impl ExactSizeIterator<Item = Option<Position>>,
) -> PyResult<Bound<'py, PyArray3<u8>>> {
    let n = positions.len();
    let mut flat = alloc::vec_with_capacity(n.saturating_mul(2 * 25))?;
    write_counts(&mut flat, positions);
    flat.into_pyarray(py).reshape([n, 2, 25])
}

/// Appends the 50 counts of each position (zeros for `None`) to `flat`.
fn write_counts(flat: &mut Vec<u8>, positions: impl Iterator<Item = Option<Position>>) {
    for p in positions {
        match p {
            Some(p) => {
                let [a, b] = p.to_counts();
                flat.extend_from_slice(&a);
                flat.extend_from_slice(&b);
            }
            None => flat.extend_from_slice(&[0u8; 50]),
        }
    }
}

#[pymethods]
impl PyGameBatch {
    /// The most games one batch holds.
    #[classattr]
    const MAX_GAMES: usize = MAX_SLOTS;

    /// `n` endless games from the standard start, openings without doubles (R3).
    #[staticmethod]
    fn env(n: &Bound<'_, PyAny>, seed: &Bound<'_, PyAny>) -> PyResult<Self> {
        let n: usize = args::int_in(n, "n (the number of games)", 1..=MAX_SLOTS as i128)?;
        let seed = args::seed(seed)?;
        Ok(PyGameBatch {
            batch: GameBatch::env(n, seed).map_err(Error::from)?,
            steps: alloc::vec_filled(n, SlotStep::default())?,
        })
    }

    /// The number of slots.
    fn __len__(&self) -> usize {
        self.batch.len()
    }

    /// The seed of every game's dice.
    fn seed(&self) -> u64 {
        self.batch.seed()
    }

    /// The batch as bytes (`GameBatch.from_bytes` plays on from them exactly).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, pyo3::types::PyBytes> {
        pyo3::types::PyBytes::new(py, &self.batch.to_bytes())
    }

    /// The batch `to_bytes` saved; `BgfastError` saying what is wrong with other bytes.
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        let batch = GameBatch::from_bytes(data).map_err(|e| Error::Argument(e.to_string()))?;
        let steps = alloc::vec_filled(batch.len(), SlotStep::default())?;
        Ok(PyGameBatch { batch, steps })
    }

    /// `(features (M, width) float32, offsets (n + 1,) int64)`: every slot's candidate
    /// results seen by the chooser; slot `i` owns rows `offsets[i]:offsets[i + 1]`.
    fn candidates<'py>(&mut self, py: Python<'py>, scheme: &str) -> PyResult<CandidateArrays<'py>> {
        let scheme = scheme_from(scheme)?;
        let batch = &mut self.batch;
        let (features, offsets) = py.detach(|| {
            let offsets: Vec<i64> = batch.generate()?.iter().map(|&o| o as i64).collect();
            let m = *offsets.last().unwrap_or(&0) as usize;
            let mut features = alloc::matrix(m, scheme.width())?;
            batch.encode_candidates(scheme, &mut features)?;
            Ok::<_, Error>((features, offsets))
        })?;
        let m = *offsets.last().unwrap_or(&0) as usize;
        let features = Array2::from_shape_vec((m, scheme.width()), features)
            .map_err(|e| Error::Internal(e.to_string()))?;
        Ok((features.into_pyarray(py), offsets.into_pyarray(py)))
    }

    /// Candidate results as `(M, 2, 25)` counts (opponent to move, row 0 the next mover).
    fn candidate_positions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray3<u8>>> {
        let all = self.batch.candidates().map_err(Error::from)?;
        counts_array(py, all.iter().copied().map(Some))
    }

    /// Plays `choices[i]` (an index into slot `i`'s candidates) in every slot; returns
    /// `(rewards int8, done bool, final positions (n, 2, 25))`. On a bad choice, or with no
    /// memory for the output, nothing changes.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        choices: &Bound<'py, PyAny>,
    ) -> PyResult<StepArrays<'py>> {
        let choices = choice_vector(choices, self.batch.len())?;
        let output = StepOutput::reserve(self.batch.len())?;
        let (batch, steps) = (&mut self.batch, &mut self.steps);
        py.detach(|| batch.step(&choices, steps))
            .map_err(Error::from)?;
        output.fill(py, &self.steps, &self.batch)
    }

    /// The candidate a native policy (`"wildbg"`, `"pubeval"`, `"race"`, `"random"` or a
    /// `Net`) picks in every slot, `(n,)` int64 ; `seed` feeds a policy
    /// that draws random numbers. Releases the GIL.
    fn policy_choices<'py>(
        &self,
        py: Python<'py>,
        policy: &Bound<'py, PyAny>,
        seed: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let policy = PolicyArg::from_py(policy)?;
        let mut rng = bgfast_core::rng::GameRng::new(args::seed(seed)?, 0);
        let batch = &self.batch;
        let choices = py.detach(|| batch.choose_with(&mut policy.player(), &mut rng));
        Ok(choices.into_pyarray(py))
    }

    /// Plays the highest-scored candidate (first of equals) in every slot; returns as
    /// `step`.
    fn step_scores<'py>(
        &mut self,
        py: Python<'py>,
        scores: &Bound<'py, PyAny>,
    ) -> PyResult<StepArrays<'py>> {
        let scores = score_vector(scores)?;
        let output = StepOutput::reserve(self.batch.len())?;
        let (batch, steps) = (&mut self.batch, &mut self.steps);
        py.detach(|| batch.step_scores(&scores, steps))
            .map_err(Error::from)?;
        output.fill(py, &self.steps, &self.batch)
    }

    /// Current positions `(n, 2, 25)`, row 0 on roll.
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray3<u8>>> {
        counts_array(
            py,
            (0..self.batch.len()).map(|i| Some(self.batch.position(i))),
        )
    }

    /// The rolls to play `(n, 2)`, higher die first.
    fn dice<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<u8>>> {
        let n = self.batch.len();
        let mut flat = alloc::vec_with_capacity(n.saturating_mul(2))?;
        flat.extend((0..n).flat_map(|i| {
            let d = self.batch.dice(i);
            [d.high().pips(), d.low().pips()]
        }));
        flat.into_pyarray(py).reshape([n, 2])
    }

    /// Who is on roll `(n,)`: 0 for the player who rolled first in that game, else 1.
    fn players<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u8>>> {
        let players = collected((0..self.batch.len()).map(|i| self.batch.player(i)))?;
        Ok(players.into_pyarray(py))
    }

    /// The final positions of games that ended at the last step `(n, 2, 25)` (the loser on
    /// roll in row 0), zeros elsewhere.
    fn final_positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray3<u8>>> {
        counts_array(
            py,
            (0..self.batch.len()).map(|i| self.batch.final_position(i)),
        )
    }

    /// Features of the current positions `(n, width)`, row 0 on roll.
    fn observe<'py>(&self, py: Python<'py>, scheme: &str) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let scheme = scheme_from(scheme)?;
        let n = self.batch.len();
        let batch = &self.batch;
        // Seconds for a million games, the allocation included (its pages are touched
        // here): other Python threads run meanwhile.
        let features = py.detach(|| -> Result<Vec<f32>, Error> {
            let mut features = alloc::matrix(n, scheme.width())?;
            for (i, row) in features.chunks_exact_mut(scheme.width()).enumerate() {
                scheme.encode(&batch.position(i), true, row);
            }
            Ok(features)
        })?;
        let features = Array2::from_shape_vec((n, scheme.width()), features)
            .map_err(|e| Error::Internal(e.to_string()))?;
        Ok(features.into_pyarray(py))
    }
}

/// The scores of one `step_scores`: a 1-D float64 or float32 array (float32 widens
/// exactly), compared as given.
pub(crate) fn score_vector(obj: &Bound<'_, PyAny>) -> Result<Vec<f64>, Error> {
    if let Ok(scores) = obj.extract::<PyReadonlyArray1<'_, f64>>() {
        return collected(scores.as_array().iter().copied());
    }
    if let Ok(scores) = obj.extract::<PyReadonlyArray1<'_, f32>>() {
        return collected(scores.as_array().iter().map(|&s| f64::from(s)));
    }
    let what = args::array_kind(obj);
    Err(Error::Argument(format!(
        "scores must be a 1-D float64 or float32 array, one per candidate, not {what}"
    )))
}

/// The choices of one `step`, one per game of the `n`: a 1-D array of any integer dtype or
/// a sequence of ints of any size (numpy would make floats of `[0, 2**63]`). The length is
/// checked first, then each value as given: one too large for 64 bits is no candidate of
/// any game; a float (even 1.0) or a bool is no index at all.
fn choice_vector(obj: &Bound<'_, PyAny>, n: usize) -> Result<Vec<i64>, Error> {
    let obj = &counts::native_order(obj)?;
    let not_a_candidate = |game: usize, shown: String| {
        Error::Illegal(format!(
            "game {game}: choice {shown} is not one of its candidate results (R8: a move is \
             one of the legal results)"
        ))
    };
    let length = |got: usize| -> Result<(), Error> {
        if got == n {
            return Ok(());
        }
        Err(Error::Step(StepError::Length {
            what: "choices (one per game)",
            expected: n,
            got,
        }))
    };
    let Ok(array) = obj.cast::<PyUntypedArray>() else {
        if obj.is_instance_of::<PyString>() {
            return Err(Error::Argument(
                "choices must be integers, not a str".into(),
            ));
        }
        let items: Vec<Bound<'_, PyAny>> = obj.extract().map_err(|_| {
            Error::Argument(format!(
                "choices must be a 1-D integer array or a sequence of ints, not a {}",
                obj.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })?;
        length(items.len())?;
        let mut out = alloc::vec_with_capacity(n)?;
        for (game, item) in items.iter().enumerate() {
            let value = args::integer(item, "a choice").map_err(|e| match e {
                Error::Type(msg) => Error::Argument(format!("{msg} (an index of a candidate)")),
                other => other,
            })?;
            let c = value.and_then(|v| i64::try_from(v).ok());
            out.push(c.ok_or_else(|| not_a_candidate(game, args::shown(item)))?);
        }
        return Ok(out);
    };
    if array.ndim() != 1 {
        return Err(Error::Argument(format!(
            "choices must be a 1-D array, one per game; got shape {:?}",
            array.shape()
        )));
    }
    length(array.len())?;
    let dtype = array.dtype().to_string();
    with_int_array!(
        obj,
        PyReadonlyArray1,
        |view| {
            let mut out = alloc::vec_with_capacity(view.len())?;
            for (game, &c) in view.iter().enumerate() {
                let wide: i128 = c.into();
                out.push(i64::try_from(wide).map_err(|_| not_a_candidate(game, wide.to_string()))?);
            }
            Ok(out)
        },
        Err(Error::Argument(format!(
            "choices must be integers (indexes of candidates), got dtype {dtype}"
        )))
    )
}
