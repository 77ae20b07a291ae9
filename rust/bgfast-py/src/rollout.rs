//! Rollouts, pubeval, feature encodings and lockstep game batches: numpy in, numpy out,
//! the GIL released around every loop over games or positions.

use std::sync::atomic::AtomicBool;

use bgfast_core::batch::{GameBatch, SlotStep};
use bgfast_core::features::Scheme;
use bgfast_core::playout::{PolicyKind, Rollout, Tally};
use bgfast_core::{pubeval, Position};
use numpy::ndarray::Array2;
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArray3, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray3,
    PyReadwriteArray2, PyUntypedArrayMethods,
};
use pyo3::prelude::*;

use crate::errors::Error;
use crate::position::PyPosition;

/// The most games one batch holds (memory grows with it; larger requests are refused or,
/// for rollouts, run in this many slots).
const MAX_SLOTS: usize = 1 << 22;

/// `(rewards, done)` of one step.
type StepArrays<'py> = (Bound<'py, PyArray1<i8>>, Bound<'py, PyArray1<bool>>);

/// `(features, offsets)` of every slot's candidates.
type CandidateArrays<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray1<i64>>);

/// `(wins single, gammon, backgammon, losses single, gammon, backgammon, truncated)`.
type TallyTuple = (u64, u64, u64, u64, u64, u64, u64);

fn tally_tuple(t: Tally) -> TallyTuple {
    (
        t.wins[0],
        t.wins[1],
        t.wins[2],
        t.losses[0],
        t.losses[1],
        t.losses[2],
        t.truncated,
    )
}

fn scheme_from(name: &str) -> Result<Scheme, Error> {
    Scheme::from_name(name).ok_or_else(|| {
        Error::Shape(format!(
            "unknown feature scheme {name:?}: use 'tesauro198' or 'pubeval'"
        ))
    })
}

/// Validates an `(N, 2, 25)` int32 array of counts; names the first bad position.
fn positions_from(array: &PyReadonlyArray3<'_, i32>) -> Result<Vec<Position>, Error> {
    let view = array.as_array();
    let shape = view.shape();
    if shape[1] != 2 || shape[2] != 25 {
        return Err(Error::Shape(format!(
            "positions must have shape (N, 2, 25) (row 0 the side to move, row 1 the opponent, \
             columns 0..23 points 1..24, column 24 the bar), got {shape:?}"
        )));
    }
    (0..shape[0])
        .map(|n| {
            let row = |r: usize| -> [i32; 25] { core::array::from_fn(|c| view[[n, r, c]]) };
            Position::from_counts(&row(0), &row(1))
                .map_err(|e| Error::Shape(format!("positions[{n}]: {e}")))
        })
        .collect()
}

/// Plays games `first_game .. first_game + games` of a rollout and returns their tally
/// `(wins single, gammon, backgammon, losses single, gammon, backgammon, truncated)`, for
/// the side to move. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (position, first_game, games, policy, seed, threads, truncate, stratify))]
#[allow(clippy::too_many_arguments)]
pub fn rollout_tally(
    py: Python<'_>,
    position: &Bound<'_, PyPosition>,
    first_game: u64,
    games: u64,
    policy: &str,
    seed: u64,
    threads: usize,
    truncate: Option<u32>,
    stratify: bool,
) -> PyResult<TallyTuple> {
    let kind = PolicyKind::from_name(policy).ok_or_else(|| {
        Error::Shape(format!(
            "unknown policy {policy:?}: use 'random', 'pubeval', 'race' or a callable"
        ))
    })?;
    let end = first_game
        .checked_add(games)
        .ok_or_else(|| Error::Shape("game range overflows".into()))?;
    let r = Rollout {
        position: position.get().inner,
        seed,
        truncate,
        stratify,
    };
    let never = AtomicBool::new(false);
    let tally = py.detach(|| r.run_builtin(first_game..end, kind, threads.max(1), &never));
    Ok(tally_tuple(tally))
}

/// Pubeval scores of `(N, 2, 25)` positions, each for its row 0, weights chosen by the
/// position (as GNU Backgammon's `pub_eval_score`). Releases the GIL.
#[pyfunction]
pub fn pubeval_scores<'py>(
    py: Python<'py>,
    positions: PyReadonlyArray3<'py, i32>,
) -> PyResult<Bound<'py, PyArray1<f32>>> {
    let positions = positions_from(&positions)?;
    let scores: Vec<f32> = py.detach(|| positions.iter().map(pubeval::score).collect());
    Ok(scores.into_pyarray(py))
}

/// Encodes `(N, 2, 25)` positions (row 0 on roll) into `out`, a C-contiguous float32 array
/// of shape `(N, width)`. Releases the GIL.
#[pyfunction]
pub fn encode_into(
    py: Python<'_>,
    positions: PyReadonlyArray3<'_, i32>,
    scheme: &str,
    mut out: PyReadwriteArray2<'_, f32>,
) -> PyResult<()> {
    let scheme = scheme_from(scheme)?;
    let positions = positions_from(&positions)?;
    let width = scheme.width();
    if out.shape() != [positions.len(), width] {
        return Err(Error::Shape(format!(
            "out must have shape ({}, {width}), got {:?}",
            positions.len(),
            out.shape()
        ))
        .into());
    }
    let slice = out
        .as_slice_mut()
        .map_err(|_| Error::Shape("out must be C-contiguous".into()))?;
    py.detach(|| {
        for (p, row) in positions.iter().zip(slice.chunks_exact_mut(width)) {
            scheme.encode(p, true, row);
        }
    });
    Ok(())
}

/// Many games advanced one ply at a time (the engine of `VecEnv` and of rollouts with a
/// Python evaluator).
#[pyclass(name = "GameBatch", module = "bgfast._core")]
pub struct PyGameBatch {
    batch: GameBatch,
    steps: Vec<SlotStep>,
}

fn step_arrays<'py>(py: Python<'py>, steps: &[SlotStep]) -> StepArrays<'py> {
    let rewards: Vec<i8> = steps.iter().map(|s| s.reward).collect();
    let done: Vec<bool> = steps.iter().map(|s| s.done).collect();
    (rewards.into_pyarray(py), done.into_pyarray(py))
}

fn counts_array<'py>(
    py: Python<'py>,
    positions: impl Iterator<Item = Option<Position>>,
) -> PyResult<Bound<'py, PyArray3<u8>>> {
    let mut flat = Vec::new();
    let mut n = 0;
    for p in positions {
        n += 1;
        match p {
            Some(p) => {
                let [a, b] = p.to_counts();
                flat.extend_from_slice(&a);
                flat.extend_from_slice(&b);
            }
            None => flat.extend_from_slice(&[0u8; 50]),
        }
    }
    flat.into_pyarray(py).reshape([n, 2, 25])
}

#[pymethods]
impl PyGameBatch {
    /// `n` endless games from the standard start, openings without doubles (R3).
    #[staticmethod]
    fn env(n: usize, seed: u64) -> PyResult<Self> {
        if n == 0 || n > MAX_SLOTS {
            return Err(
                Error::Shape(format!("a batch holds 1 to {MAX_SLOTS} games, got {n}")).into(),
            );
        }
        Ok(PyGameBatch {
            batch: GameBatch::env(n, seed),
            steps: vec![SlotStep::default(); n],
        })
    }

    /// Games `first_game .. first_game + games` of a rollout, on at most `slots` slots.
    #[staticmethod]
    #[pyo3(signature = (position, first_game, games, seed, truncate, stratify, slots))]
    fn rollout(
        position: &Bound<'_, PyPosition>,
        first_game: u64,
        games: u64,
        seed: u64,
        truncate: Option<u32>,
        stratify: bool,
        slots: usize,
    ) -> PyResult<Self> {
        let end = first_game
            .checked_add(games)
            .ok_or_else(|| Error::Shape("game range overflows".into()))?;
        let r = Rollout {
            position: position.get().inner,
            seed,
            truncate,
            stratify,
        };
        let batch = GameBatch::rollout(r, first_game..end, slots.clamp(1, MAX_SLOTS));
        let n = batch.len();
        Ok(PyGameBatch {
            batch,
            steps: vec![SlotStep::default(); n],
        })
    }

    /// The number of slots.
    fn __len__(&self) -> usize {
        self.batch.len()
    }

    /// Whether every slot is idle.
    #[getter]
    fn finished(&self) -> bool {
        self.batch.finished()
    }

    /// The tally of finished games (see `rollout_tally`).
    fn tally(&self) -> TallyTuple {
        tally_tuple(self.batch.tally())
    }

    /// `(features (M, width) float32, offsets (n + 1,) int64)`: every active slot's candidate
    /// results seen by the chooser; slot `i` owns rows `offsets[i]:offsets[i + 1]`.
    fn candidates<'py>(&mut self, py: Python<'py>, scheme: &str) -> PyResult<CandidateArrays<'py>> {
        let scheme = scheme_from(scheme)?;
        let batch = &mut self.batch;
        let (features, offsets) = py.detach(|| {
            let offsets: Vec<i64> = batch.generate().iter().map(|&o| o as i64).collect();
            let m = *offsets.last().unwrap_or(&0) as usize;
            let mut features = vec![0.0f32; m * scheme.width()];
            batch.encode_candidates(scheme, &mut features);
            (features, offsets)
        });
        let m = *offsets.last().unwrap_or(&0) as usize;
        let features = Array2::from_shape_vec((m, scheme.width()), features)
            .map_err(|e| Error::Shape(e.to_string()))?;
        Ok((features.into_pyarray(py), offsets.into_pyarray(py)))
    }

    /// Candidate results as `(M, 2, 25)` counts (opponent to move, row 0 the next mover).
    fn candidate_positions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray3<u8>>> {
        let c: Vec<Position> = self.batch.candidates().to_vec();
        counts_array(py, c.into_iter().map(Some))
    }

    /// Plays `choices[i]` (an index into slot `i`'s candidates) in every active slot;
    /// returns `(rewards int8, done bool)`. On a bad choice nothing changes.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        choices: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<StepArrays<'py>> {
        let choices = choices.as_array().to_vec();
        let (batch, steps) = (&mut self.batch, &mut self.steps);
        py.detach(|| batch.step(&choices, steps))
            .map_err(|e| Error::Illegal(e.to_string()))?;
        Ok(step_arrays(py, &self.steps))
    }

    /// Plays the highest-scored candidate (first of equals) in every active slot.
    fn step_scores<'py>(
        &mut self,
        py: Python<'py>,
        scores: PyReadonlyArray1<'py, f32>,
    ) -> PyResult<StepArrays<'py>> {
        let scores = scores.as_array().to_vec();
        let (batch, steps) = (&mut self.batch, &mut self.steps);
        py.detach(|| batch.step_scores(&scores, steps))
            .map_err(|e| Error::Shape(e.to_string()))?;
        Ok(step_arrays(py, &self.steps))
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
        let flat: Vec<u8> = (0..self.batch.len())
            .flat_map(|i| {
                let d = self.batch.dice(i);
                [d.high().pips(), d.low().pips()]
            })
            .collect();
        flat.into_pyarray(py).reshape([self.batch.len(), 2])
    }

    /// Who is on roll `(n,)`: 0 for the player who rolled first in that game, else 1.
    fn players<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        let v: Vec<u8> = (0..self.batch.len())
            .map(|i| self.batch.player(i))
            .collect();
        v.into_pyarray(py)
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
        let mut features = vec![0.0f32; n * scheme.width()];
        for (i, row) in features.chunks_exact_mut(scheme.width()).enumerate() {
            scheme.encode(&self.batch.position(i), true, row);
        }
        let features = Array2::from_shape_vec((n, scheme.width()), features)
            .map_err(|e| Error::Shape(e.to_string()))?;
        Ok(features.into_pyarray(py))
    }
}
