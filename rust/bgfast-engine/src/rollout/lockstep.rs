//! A rollout's games in lockstep, for a checker-play evaluator outside Rust (a numpy or
//! PyTorch net): every waiting game's candidates are scored in one call per step.
//!
//! The games are exactly those of [`super::run`] with the same settings: the same dice,
//! cube, truncation, bear-off and luck, only the plays come from outside. Each slot plays
//! game after game (every branch of one game before the next game), taking game numbers
//! in slot order from the range; forced plays never reach the evaluator.
//!
//! Games finish out of order (a short game overtakes a long one). The sums take each game
//! only once every game before it has finished, so at any moment they hold a first part of
//! the range: stopped early, a run holds the same games as a shorter one, and none is
//! favoured for being short.

use core::fmt;
use core::ops::Range;
use std::collections::BTreeMap;

use bgfast_core::threads::{vec_with_capacity, OutOfMemory};
use bgfast_core::Position;

use super::dice::Rotation;
use super::run::RolloutSums;
use super::trial::{Trial, Workspace};
use super::{Branch, End, Outputs, Spec, SpecError, MAX_SLOTS};
use crate::batch::{check_scores, highest, StepError};
use crate::eval::{Evaluator, Probabilities};
use crate::features::Scheme;

/// Why [`Lockstep::new`] cannot start the games.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum LockstepError {
    /// The settings cannot be rolled out.
    Spec(SpecError),
    /// The slots or their first candidates do not fit in memory (a huge slot count).
    OutOfMemory(OutOfMemory),
}

impl fmt::Display for LockstepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockstepError::Spec(e) => e.fmt(f),
            LockstepError::OutOfMemory(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for LockstepError {}

impl From<SpecError> for LockstepError {
    fn from(e: SpecError) -> LockstepError {
        LockstepError::Spec(e)
    }
}

impl From<OutOfMemory> for LockstepError {
    fn from(e: OutOfMemory) -> LockstepError {
        LockstepError::OutOfMemory(e)
    }
}

/// Appends `item`, or [`OutOfMemory`] if `v` cannot grow (the sizes here are the caller's:
/// millions of slots).
fn try_push<T>(v: &mut Vec<T>, item: T) -> Result<(), OutOfMemory> {
    v.try_reserve(1).map_err(|_| OutOfMemory {
        count: v.len().saturating_add(1),
        size: core::mem::size_of::<T>(),
    })?;
    v.push(item);
    Ok(())
}

/// One slot: a game in progress, branch by branch.
#[derive(Debug)]
struct Slot<'a> {
    game: u64,
    branch: usize,
    trial: Option<Trial<'a>>,
    outputs: Vec<(Outputs, End)>,
    /// The evaluator's choice among this turn's candidates and its chances, if scored.
    evaluator_best: Option<(usize, Probabilities)>,
}

/// Many games of a rollout, each waiting for its next play.
#[derive(Debug)]
pub struct Lockstep<'a> {
    spec: Spec<'a>,
    branches: Vec<Branch<'a>>,
    rotation: Option<Rotation>,
    roots: Vec<Option<Probabilities>>,
    slots: Vec<Slot<'a>>,
    games: Range<u64>,
    sums: RolloutSums,
    /// The first game the sums do not hold yet.
    unrecorded: u64,
    /// Finished games after `unrecorded`, waiting for it.
    waiting: BTreeMap<u64, Vec<(Outputs, End)>>,
    ws: Workspace,
    candidates: Vec<Position>,
    offsets: Vec<usize>,
}

impl<'a> Lockstep<'a> {
    /// Games `games` of `branches` on `slots` slots (at least one, at most [`MAX_SLOTS`]
    /// and the number of games), advanced to their first choices. Without branches there
    /// is nothing to play: it is finished at once. Refuses settings [`Spec::check`]
    /// refuses and more than [`super::MAX_BRANCHES`] branches, and slots whose games or
    /// candidates do not fit in memory.
    pub fn new(
        spec: Spec<'a>,
        branches: Vec<Branch<'a>>,
        mut games: Range<u64>,
        slots: usize,
    ) -> Result<Lockstep<'a>, LockstepError> {
        spec.check()?;
        super::check_branches(branches.len())?;
        if branches.is_empty() {
            games.end = games.start;
        }
        let len = usize::try_from(games.end.saturating_sub(games.start)).unwrap_or(usize::MAX);
        let n = slots.clamp(1, len.clamp(1, MAX_SLOTS));
        spec.prepare_bearoff(&branches);
        let roots = branches
            .iter()
            .map(|b| spec.evaluator.map(|net| net.evaluate_one(&b.position)))
            .collect();
        let mut lockstep = Lockstep {
            rotation: spec.quasi_random.then(|| Rotation::new(spec.seed)),
            spec,
            sums: RolloutSums::new(branches.len()),
            branches,
            roots,
            slots: vec_with_capacity(n)?,
            unrecorded: games.start,
            waiting: BTreeMap::new(),
            games,
            ws: Workspace::new(),
            candidates: Vec::new(),
            offsets: vec_with_capacity(n + 1)?,
        };
        lockstep.offsets.resize(n + 1, 0);
        for _ in 0..n {
            let game = lockstep.games.start;
            lockstep.slots.push(Slot {
                game,
                branch: 0,
                trial: None,
                outputs: Vec::new(),
                evaluator_best: None,
            });
            lockstep.start_game(lockstep.slots.len() - 1);
        }
        lockstep.advance()?;
        Ok(lockstep)
    }

    /// Gives slot `i` the next game of the range, or leaves it idle.
    fn start_game(&mut self, i: usize) {
        let slot = &mut self.slots[i];
        slot.outputs.clear();
        slot.branch = 0;
        slot.trial = None;
        if self.games.start < self.games.end {
            slot.game = self.games.start;
            self.games.start += 1;
            let b = &self.branches[0];
            slot.trial = Some(Trial::new(
                &self.spec,
                self.rotation.as_ref(),
                b,
                slot.game,
                self.roots[0],
            ));
        }
    }

    /// Moves every slot on to its next choice among two or more results, finishing games
    /// and starting new ones on the way; collects the candidates. [`OutOfMemory`] when
    /// they, or a game's outputs, do not fit: the games cannot go on.
    fn advance(&mut self) -> Result<(), OutOfMemory> {
        self.candidates.clear();
        for i in 0..self.slots.len() {
            self.offsets[i] = self.candidates.len();
            loop {
                let slot = &mut self.slots[i];
                let Some(trial) = slot.trial.as_mut() else {
                    break;
                };
                if let Some(end) = trial.begin_turn(&self.spec, &mut self.ws) {
                    try_push(&mut slot.outputs, end)?;
                    slot.branch += 1;
                    if slot.branch < self.branches.len() {
                        let b = &self.branches[slot.branch];
                        slot.trial = Some(Trial::new(
                            &self.spec,
                            self.rotation.as_ref(),
                            b,
                            slot.game,
                            self.roots[slot.branch],
                        ));
                    } else {
                        if slot.game == self.unrecorded {
                            self.sums.record(&slot.outputs);
                            self.unrecorded += 1;
                            while let Some(outputs) = self.waiting.remove(&self.unrecorded) {
                                self.sums.record(&outputs);
                                self.unrecorded += 1;
                            }
                        } else {
                            let outputs = core::mem::take(&mut slot.outputs);
                            self.waiting.insert(slot.game, outputs);
                        }
                        self.start_game(i);
                    }
                    continue;
                }
                if self.ws.list.len() == 1 {
                    trial.play(0, &self.ws);
                    continue;
                }
                slot.evaluator_best = self.ws.evaluator_best;
                let more = self.ws.list.len();
                self.candidates.try_reserve(more).map_err(|_| OutOfMemory {
                    count: self.candidates.len().saturating_add(more),
                    size: core::mem::size_of::<Position>(),
                })?;
                self.candidates.extend(self.ws.list.results());
                break;
            }
        }
        self.offsets[self.slots.len()] = self.candidates.len();
        Ok(())
    }

    /// Whether every game of the range has been played.
    pub fn finished(&self) -> bool {
        self.slots.iter().all(|s| s.trial.is_none())
    }

    /// The candidates of every waiting slot (results, the opponent of the chooser on roll):
    /// slot `i`'s are `candidates()[offsets()[i]..offsets()[i + 1]]`.
    pub fn candidates(&self) -> &[Position] {
        &self.candidates
    }

    /// Where each slot's candidates start, and the total at the end.
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// Writes the candidates' features into `out` (see [`Scheme::encode_candidates`]).
    pub fn encode_candidates(&self, scheme: Scheme, out: &mut [f32]) {
        scheme.encode_candidates(&self.candidates, out);
    }

    /// Plays, in every waiting slot, the candidate with the highest score (the first of
    /// equals), then moves on to the next choices. A wrong count or a NaN score is refused
    /// before anything changes; [`StepError::OutOfMemory`] when the next candidates do not
    /// fit in memory, after which the games cannot go on.
    pub fn choose(&mut self, scores: &[f64]) -> Result<(), StepError> {
        check_scores(scores, self.candidates.len())?;
        for i in 0..self.slots.len() {
            let (lo, hi) = (self.offsets[i], self.offsets[i + 1]);
            if lo == hi {
                continue;
            }
            let best = highest(&scores[lo..hi]);
            let slot = &mut self.slots[i];
            let known = slot
                .evaluator_best
                .filter(|&(b, _)| b == best)
                .map(|(_, p)| p);
            if let Some(trial) = slot.trial.as_mut() {
                trial.play_result(self.candidates[lo + best], known);
            }
        }
        self.advance()?;
        Ok(())
    }

    /// The sums of the games from the range's start up to the first one still being played
    /// (all of them once finished).
    pub fn sums(&self) -> &RolloutSums {
        &self.sums
    }
}
