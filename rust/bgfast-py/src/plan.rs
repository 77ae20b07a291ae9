//! `RolloutPlan`: a rollout's settings, checked once, run natively or in lockstep with a
//! Python evaluator. The Python layer (`bgfast.rollout`) validates what users pass and
//! builds the plan; the plan owns what the engine borrows (the nets, the match equity
//! table, the bear-off database) and hands back exact sums.

use std::sync::Arc;

use bgfast_core::bearoff::TwoSided;
use bgfast_core::Position;
use bgfast_engine::cube::{Cube, CubeContext, CubeLife};
use bgfast_engine::net::Net;
use bgfast_engine::rollout::lockstep::Lockstep;
use bgfast_engine::rollout::{check_branches, run, Branch, RolloutSums, Spec, Wide};
use numpy::ndarray::Array2;
use numpy::IntoPyArray;
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;

use crate::bearoff::PyTwoSidedTable;
use crate::cube::{cube_from, CubeArg, StakesData};
use crate::errors::Error;
use crate::net::PyNet;
use crate::policy::PolicyArg;
use crate::position::PyPosition;
use crate::{alloc, args, detach};

/// A fixed-point sum as its signed high and unsigned low 128 bits (see `Wide::halves`).
type Halves = (i128, u128);

/// One branch's sums: `(sums, squares, ends)`, seven outputs each, five end kinds.
type BranchTuple = (Vec<Halves>, Vec<Halves>, Vec<u64>);

/// `(games, branches, cross products)`: what a run hands back to Python.
type SumsTuple = (u64, Vec<BranchTuple>, Vec<Halves>);

/// What a branch starts from, as Python names it.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Position,
    AfterPlay,
    NoDouble,
    DoubleTake,
}

#[derive(Clone, Debug)]
struct BranchData {
    position: Position,
    kind: Kind,
}

/// A rollout's settings, checked, with everything the engine borrows.
#[pyclass(name = "RolloutPlan", module = "bgfast._core", frozen)]
pub struct PyRolloutPlan {
    branches: Vec<BranchData>,
    cube: Cube,
    stakes: StakesData,
    seed: u64,
    quasi_random: bool,
    truncate: Option<u32>,
    bearoff: Option<Arc<TwoSided>>,
    variance_reduction: bool,
    evaluator: Option<Arc<Net>>,
    cube_life: Option<CubeLife>,
    policy: Option<PolicyArg>,
    /// Plies from the decision's turn before a side may turn the cube (the Holland rule).
    cube_wait: u32,
}

/// A cube life index: a number from 0 to 1, or `"gnubg"` (GNU Backgammon's, by position).
fn cube_life_from(obj: &Bound<'_, PyAny>) -> Result<CubeLife, Error> {
    if let Ok(name) = obj.extract::<String>() {
        if name == "gnubg" {
            return Ok(CubeLife::ByPosition);
        }
    } else if let Ok(x) = obj.extract::<f64>() {
        if (0.0..=1.0).contains(&x) {
            return Ok(CubeLife::Fixed(x));
        }
    }
    Err(Error::Argument(format!(
        "cube_life must be a number from 0 to 1 or 'gnubg', not {}",
        args::shown(obj)
    )))
}

fn kind_from(name: &str) -> Result<Kind, Error> {
    match name {
        "position" => Ok(Kind::Position),
        "after_play" => Ok(Kind::AfterPlay),
        "no_double" => Ok(Kind::NoDouble),
        "double_take" => Ok(Kind::DoubleTake),
        other => Err(Error::Argument(format!("unknown rollout branch {other:?}"))),
    }
}

impl PyRolloutPlan {
    /// The engine's settings and branches, borrowing from the plan.
    fn with_spec<T>(&self, f: impl FnOnce(Spec<'_>, Vec<Branch<'_>>) -> T) -> Result<T, Error> {
        let stakes = self.stakes.view()?;
        let context = CubeContext {
            stakes,
            cube: self.cube,
        };
        let wait = self.cube_wait;
        let mut branches = Vec::with_capacity(self.branches.len());
        for b in &self.branches {
            branches.push(match b.kind {
                Kind::Position => Branch::position(b.position, context).holding_cube(wait),
                // A play's result starts at the decision's second turn.
                Kind::AfterPlay => {
                    Branch::after_play(b.position, context).holding_cube(wait.saturating_sub(1))
                }
                Kind::NoDouble => Branch::no_double(b.position, context).holding_cube(wait),
                Kind::DoubleTake if wait > 0 => {
                    return Err(Error::Argument(format!(
                        "the Holland rule holds the cube for {wait} more plies: no double now"
                    )))
                }
                Kind::DoubleTake => Branch::double_take(b.position, context).ok_or_else(|| {
                    Error::Argument(format!(
                        "R17: the cube cannot be doubled past its limit, {}",
                        self.cube.limit()
                    ))
                })?,
            });
        }
        let spec = Spec {
            seed: self.seed,
            quasi_random: self.quasi_random,
            truncate: self.truncate,
            bearoff: self.bearoff.as_deref(),
            variance_reduction: self.variance_reduction,
            evaluator: self.evaluator.as_deref(),
            cube_life: self.cube_life,
        };
        Ok(f(spec, branches))
    }
}

fn halves(w: Wide) -> Halves {
    w.halves()
}

fn sums_tuple(sums: &RolloutSums) -> SumsTuple {
    let branches = sums
        .branches
        .iter()
        .map(|b| {
            (
                b.outputs.iter().map(|s| halves(s.sum)).collect(),
                b.outputs.iter().map(|s| halves(s.squares)).collect(),
                b.ends.to_vec(),
            )
        })
        .collect();
    (
        sums.games,
        branches,
        sums.cross.iter().copied().map(halves).collect(),
    )
}

#[pymethods]
impl PyRolloutPlan {
    /// A plan. `branches`: `(Position, kind)` with kind `"position"`, `"after_play"` (the
    /// position is a play's result, rolled out for the player who made it), `"no_double"`
    /// or `"double_take"`. `cube`: `(value, owner, limit)` seen from the rollout position's
    /// side to move (before a play, for `"after_play"`), owner `"centred"`, `"mover"` or
    /// `"opponent"`, limit the highest value the game allows. `stakes`: `("money", jacoby, beavers)` or `("match", pre, post,
    /// mover_away, opponent_away, crawford)` with the match equity table's pre-Crawford
    /// rows (row-major) and post-Crawford column. `policy`: a native policy, or None for
    /// `run_with` only. `cube_wait`: plies from the decision's turn (the position's, or
    /// the turn before a play's result) before a side may turn the cube, under the
    /// Holland rule.
    #[new]
    #[pyo3(signature = (branches, cube, stakes, seed, quasi_random, truncate, bearoff,
                        variance_reduction, evaluator, cube_life, policy, cube_wait=0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        branches: Vec<(PyRef<'_, PyPosition>, String)>,
        cube: CubeArg<'_>,
        stakes: &Bound<'_, PyAny>,
        seed: &Bound<'_, PyAny>,
        quasi_random: bool,
        truncate: Option<&Bound<'_, PyAny>>,
        bearoff: Option<PyRef<'_, PyTwoSidedTable>>,
        variance_reduction: bool,
        evaluator: Option<PyRef<'_, PyNet>>,
        cube_life: Option<&Bound<'_, PyAny>>,
        policy: Option<&Bound<'_, PyAny>>,
        cube_wait: u32,
    ) -> PyResult<Self> {
        let branches = branches
            .into_iter()
            .map(|(p, kind)| {
                Ok(BranchData {
                    position: p.inner,
                    kind: kind_from(&kind)?,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        if branches.is_empty() {
            return Err(Error::Argument("a rollout needs a position to roll out".into()).into());
        }
        check_branches(branches.len()).map_err(Error::from)?;
        let cube = cube_from(&cube)?;
        let stakes = StakesData::from_py(stakes)?;
        let cube_life = cube_life
            .filter(|x| !x.is_none())
            .map(cube_life_from)
            .transpose()?;
        let evaluator = evaluator.map(|n| n.net.clone());
        let policy = policy
            .filter(|p| !p.is_none())
            .map(PolicyArg::from_py)
            .transpose()?;
        // The engine reuses the policy's evaluations when the policy is the evaluator: make
        // an equal net (a copy sent to a worker, say) the same one.
        let evaluator = match (&evaluator, &policy) {
            (Some(e), Some(PolicyArg::Net(p))) if e == p => Some(p.clone()),
            _ => evaluator,
        };
        let plan = PyRolloutPlan {
            branches,
            cube,
            stakes,
            seed: args::seed(seed)?,
            quasi_random,
            truncate: args::opt_int_in(truncate, "truncate", 0..=u32::MAX as i128)?,
            bearoff: bearoff.map(|t| t.inner.clone()),
            variance_reduction,
            evaluator,
            cube_life,
            policy,
            cube_wait,
        };
        plan.with_spec(|spec, _| spec.check())?
            .map_err(Error::from)?;
        Ok(plan)
    }

    /// Plays games `first_game .. first_game + games` with the plan's native policy on
    /// `threads` threads (GIL released) and returns their exact sums. Ctrl-C stops the
    /// games and raises `KeyboardInterrupt` (the caller keeps what earlier calls returned).
    fn run(
        &self,
        py: Python<'_>,
        first_game: &Bound<'_, PyAny>,
        games: &Bound<'_, PyAny>,
        threads: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<SumsTuple> {
        let range = game_range(first_game, games)?;
        let threads = args::threads(threads)?;
        let policy = self.policy.as_ref().ok_or_else(|| {
            Error::Argument("this rollout plan has no native policy: use run_with".into())
        })?;
        let sums = self.with_spec(|spec, branches| {
            let player = || policy.rollout_player();
            let work = |cancel: &_| run(&spec, &branches, player, range, threads, cancel);
            // The call's own failure (Ctrl-C), else the run's refusal.
            detach::run(py, work, |_| Ok(()))?.map_err(Error::from)
        })??;
        Ok(sums_tuple(&sums))
    }

    /// Plays games `first_game .. first_game + games` on `slots` games in lockstep, the
    /// plays chosen by `evaluator(features)`: float32 features `(M, width)` of every
    /// waiting candidate in `scheme`, one score per row back, highest played.
    /// `progress(done, total)` is called as games finish. Returns `(sums, interrupted)`:
    /// Ctrl-C (between steps, or a `KeyboardInterrupt` out of `evaluator` or `progress`)
    /// stops the games and returns those from `first_game` up to the first unfinished one.
    #[pyo3(signature = (evaluator, scheme, first_game, games, slots, progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn run_with(
        &self,
        py: Python<'_>,
        evaluator: &Bound<'_, PyAny>,
        scheme: &str,
        first_game: &Bound<'_, PyAny>,
        games: &Bound<'_, PyAny>,
        slots: &Bound<'_, PyAny>,
        progress: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(SumsTuple, bool)> {
        let scheme = crate::rollout::scheme_from(scheme)?;
        let range = game_range(first_game, games)?;
        let total = range.end - range.start;
        let slots: usize = args::int_in(slots, "batch", 1..=crate::rollout::MAX_SLOTS as i128)?;
        self.with_spec(|spec, branches| -> PyResult<(SumsTuple, bool)> {
            let mut lockstep = py
                .detach(|| Lockstep::new(spec, branches, range, slots))
                .map_err(Error::from)?;
            let mut reported = 0;
            while !lockstep.finished() {
                if py.check_signals().is_err() {
                    return Ok((sums_tuple(lockstep.sums()), true));
                }
                let width = scheme.width();
                let m = lockstep.candidates().len();
                let mut features = alloc::matrix(m, width)?;
                py.detach(|| lockstep.encode_candidates(scheme, &mut features));
                let features = Array2::from_shape_vec((m, width), features)
                    .map_err(|e| Error::Internal(e.to_string()))?;
                // Ctrl-C inside the evaluator or the progress callback stops the run like
                // Ctrl-C between steps: the finished games are kept.
                let stopped = |e: &PyErr| e.is_instance_of::<PyKeyboardInterrupt>(py);
                let returned = match evaluator.call1((features.into_pyarray(py),)) {
                    Err(e) if stopped(&e) => return Ok((sums_tuple(lockstep.sums()), true)),
                    returned => returned?,
                };
                let scores = crate::rollout::score_vector(&returned)?;
                py.detach(|| lockstep.choose(&scores))
                    .map_err(Error::from)?;
                if let Some(progress) = progress {
                    let done = lockstep.sums().games;
                    if done != reported {
                        reported = done;
                        match progress.call1((done, total)) {
                            Err(e) if stopped(&e) => {
                                return Ok((sums_tuple(lockstep.sums()), true));
                            }
                            called => called?,
                        };
                    }
                }
            }
            Ok((sums_tuple(lockstep.sums()), false))
        })?
    }
}

/// `first_game .. first_game + games`, checked to fit 64 bits.
fn game_range(
    first_game: &Bound<'_, PyAny>,
    games: &Bound<'_, PyAny>,
) -> Result<core::ops::Range<u64>, Error> {
    let first: u64 = args::int_in(first_game, "first_game", 0..=u64::MAX as i128)?;
    let games: u64 = args::int_in(games, "games", 0..=u64::MAX as i128)?;
    let end = first.checked_add(games).ok_or_else(|| {
        Error::Argument(format!(
            "games {first} to {first} + {games} go past the last game number, 2**64 - 1"
        ))
    })?;
    Ok(first..end)
}
