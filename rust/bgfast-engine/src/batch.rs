//! A training environment: many endless games advanced one ply at a time, so that an agent
//! outside Rust (a numpy or PyTorch net) acts in every game in one call.
//!
//! Every slot plays from the standard start with an opening roll (R3) and starts a new game
//! when one ends. Game numbers are handed out in slot order and game `k`'s dice come from
//! `(seed, k)`, so everything is reproducible. (Rollouts with an outside evaluator run in
//! [`crate::rollout::lockstep`].)

use core::fmt;

use crate::features::Scheme;
use crate::playout::{end_for_root, GameEnd, Policy, MAX_PLIES};
use bgfast_core::rng::GameRng;
use bgfast_core::threads::{vec_with_capacity, OutOfMemory};
use bgfast_core::{Dice, MoveList, Position};

/// One game in a slot.
#[derive(Clone, Debug)]
struct Slot {
    pos: Position,
    rng: GameRng,
    dice: Dice,
    plies: u32,
}

/// Choices or scores that do not pick one candidate per game; the batch is left unchanged.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum StepError {
    /// `choices` (or `scores`) has the wrong length.
    Length {
        /// What has the wrong length: `"choices (one per game)"` or `"scores (one per
        /// candidate)"`.
        what: &'static str,
        /// The length needed.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// Game `game` has `candidates` candidates; `choice` is not one of them.
    Choice {
        /// The slot.
        game: usize,
        /// The choice given.
        choice: i64,
        /// How many candidates it has.
        candidates: usize,
    },
    /// Scores that are NaN, so no best candidate exists in their games.
    NotANumber {
        /// The first few indexes into `scores` holding NaN, in order.
        rows: Vec<usize>,
        /// How many scores are NaN in all.
        count: usize,
    },
    /// The candidates could not be generated: memory ran out (nothing was played).
    OutOfMemory(OutOfMemory),
}

impl From<OutOfMemory> for StepError {
    fn from(e: OutOfMemory) -> StepError {
        StepError::OutOfMemory(e)
    }
}

/// How many NaN rows a [`StepError::NotANumber`] names.
const NAN_ROWS_NAMED: usize = 5;

/// Checks an outside evaluator's scores: one per candidate, none NaN (a NaN would make the
/// choice depend on where it stands).
pub(crate) fn check_scores(scores: &[f64], candidates: usize) -> Result<(), StepError> {
    if scores.len() != candidates {
        return Err(StepError::Length {
            what: "scores (one per candidate)",
            expected: candidates,
            got: scores.len(),
        });
    }
    let count = scores.iter().filter(|s| s.is_nan()).count();
    if count > 0 {
        let rows = (0..scores.len())
            .filter(|&r| scores[r].is_nan())
            .take(NAN_ROWS_NAMED)
            .collect();
        return Err(StepError::NotANumber { rows, count });
    }
    Ok(())
}

/// The index of the highest score of a game's candidates, the first of equals.
pub(crate) fn highest(scores: &[f64]) -> usize {
    let mut best = 0;
    for (j, &s) in scores.iter().enumerate() {
        if s > scores[best] {
            best = j;
        }
    }
    best
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::Length { what, expected, got } => {
                write!(f, "expected {expected} {what}, got {got}")
            }
            StepError::Choice { game, choice, candidates } => write!(
                f,
                "game {game}: choice {choice} is not one of its {candidates} candidate results (R8: \
                 a move is one of the legal results)"
            ),
            StepError::NotANumber { rows, count } => {
                let named: Vec<String> = rows.iter().map(|r| r.to_string()).collect();
                match named.as_slice() {
                    [one] => write!(f, "the score at row {one} is NaN")?,
                    _ => write!(f, "the scores at rows {} are NaN", named.join(", "))?,
                }
                if *count > rows.len() {
                    write!(f, " ({count} NaN scores in all)")?;
                }
                write!(f, ": every candidate needs a number to compare")
            }
            StepError::OutOfMemory(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for StepError {}

/// What one ply did to each slot.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct SlotStep {
    /// Points won by the player who was on roll at the start of the slot's game (positive)
    /// or lost (negative): 1, 2 or 3 (R16) when its game ended now, else 0.
    pub reward: i8,
    /// Whether the slot's game ended now (won or truncated).
    pub done: bool,
}

/// Many games advanced one ply at a time.
pub struct GameBatch {
    seed: u64,
    slots: Vec<Slot>,
    next_game: u64,
    candidates: Vec<Position>,
    offsets: Vec<usize>,
    generated: bool,
    list: MoveList,
    finals: Vec<Option<Position>>,
}

/// `n` copies of `value`, or [`OutOfMemory`].
fn filled<T: Clone>(n: usize, value: T) -> Result<Vec<T>, OutOfMemory> {
    let mut v = vec_with_capacity(n)?;
    v.resize(n, value);
    Ok(v)
}

impl GameBatch {
    /// `n` endless games from the standard start, each opening with a non-double (R3): a
    /// slot starts a new game whenever its game ends (a game still going after
    /// [`MAX_PLIES`] plies ends there, truncated, reward 0). Refuses when the games do not
    /// fit in memory (millions of them take hundreds of megabytes).
    pub fn env(n: usize, seed: u64) -> Result<GameBatch, OutOfMemory> {
        let placeholder = Slot {
            pos: Position::START,
            rng: GameRng::new(0, 0),
            dice: Dice::ALL_21[0],
            plies: 0,
        };
        let mut batch = GameBatch {
            seed,
            slots: filled(n, placeholder)?,
            next_game: 0,
            candidates: Vec::new(),
            offsets: filled(n.saturating_add(1), 0)?,
            generated: false,
            list: MoveList::new(),
            finals: filled(n, None)?,
        };
        for i in 0..n {
            batch.start_slot(i);
        }
        Ok(batch)
    }

    /// Starts the next game in slot `i`.
    fn start_slot(&mut self, i: usize) {
        let game = self.next_game;
        self.next_game += 1;
        let mut rng = GameRng::new(self.seed, game);
        let dice = rng.opening_roll();
        self.slots[i] = Slot {
            pos: Position::START,
            rng,
            dice,
            plies: 0,
        };
    }

    /// The number of slots.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether there are no slots.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Slot `i`'s position (its side to move about to play `dice(i)`).
    pub fn position(&self, i: usize) -> Position {
        self.slots[i].pos
    }

    /// Slot `i`'s roll to play.
    pub fn dice(&self, i: usize) -> Dice {
        self.slots[i].dice
    }

    /// Who is on roll in slot `i`: 0 for the player on roll at its game's start, else 1.
    pub fn player(&self, i: usize) -> u8 {
        (self.slots[i].plies % 2) as u8
    }

    /// The final position of the game that ended in slot `i` at the last step (its side to
    /// move has lost), if one did.
    pub fn final_position(&self, i: usize) -> Option<Position> {
        self.finals[i]
    }

    /// Generates every slot's candidate results and returns the offsets: slot `i`'s
    /// candidates are `offsets[i]..offsets[i + 1]`. A roll with no play has one candidate,
    /// the pass (R10). Refuses, generating nothing, when the candidates do not fit in
    /// memory (millions of games hold tens of millions of them).
    pub fn generate(&mut self) -> Result<&[usize], OutOfMemory> {
        if !self.generated {
            self.candidates.clear();
            for (i, slot) in self.slots.iter().enumerate() {
                self.offsets[i] = self.candidates.len();
                slot.pos.generate_moves(slot.dice, &mut self.list);
                if self.candidates.try_reserve(self.list.len()).is_err() {
                    let count = self.candidates.len() + self.list.len();
                    self.candidates = Vec::new();
                    return Err(OutOfMemory {
                        count,
                        size: core::mem::size_of::<Position>(),
                    });
                }
                self.candidates.extend(self.list.results());
            }
            self.offsets[self.slots.len()] = self.candidates.len();
            self.generated = true;
        }
        Ok(&self.offsets)
    }

    /// The choice `policy` makes in every slot: the index of its pick among the slot's
    /// candidates, 0 for a forced play. `rng` feeds a policy that draws
    /// random numbers (each slot's own dice are left alone).
    pub fn choose_with<P: Policy>(&self, policy: &mut P, rng: &mut GameRng) -> Vec<i64> {
        let mut list = MoveList::new();
        self.slots
            .iter()
            .map(|slot| {
                slot.pos.generate_moves(slot.dice, &mut list);
                if list.len() == 1 {
                    0
                } else {
                    policy.choose(&list, rng) as i64
                }
            })
            .collect()
    }

    /// The candidates generated by [`GameBatch::generate`] (results, opponent to move).
    pub fn candidates(&mut self) -> Result<&[Position], OutOfMemory> {
        self.generate()?;
        Ok(&self.candidates)
    }

    /// Writes the features of every candidate into `out` row by row (see
    /// [`Scheme::encode_candidates`]): `out.len()` must be `candidates().len() *
    /// scheme.width()`.
    pub fn encode_candidates(
        &mut self,
        scheme: Scheme,
        out: &mut [f32],
    ) -> Result<(), OutOfMemory> {
        self.generate()?;
        scheme.encode_candidates(&self.candidates, out);
        Ok(())
    }

    /// Plays candidate `choices[i]` in every slot, writing
    /// what happened into `out` (one entry per slot; panics otherwise). Validates every
    /// choice first: on error nothing changes.
    pub fn step(&mut self, choices: &[i64], out: &mut [SlotStep]) -> Result<(), StepError> {
        let n = self.slots.len();
        assert_eq!(out.len(), n, "one step record per slot");
        if choices.len() != n {
            return Err(StepError::Length {
                what: "choices (one per game)",
                expected: n,
                got: choices.len(),
            });
        }
        self.generate()?;
        for (i, &c) in choices.iter().enumerate() {
            let count = self.offsets[i + 1] - self.offsets[i];
            if c < 0 || c as usize >= count {
                return Err(StepError::Choice {
                    game: i,
                    choice: c,
                    candidates: count,
                });
            }
        }
        for i in 0..n {
            out[i] = SlotStep::default();
            self.finals[i] = None;
            let result = self.candidates[self.offsets[i] + choices[i] as usize];
            let slot = &mut self.slots[i];
            slot.pos = result;
            slot.plies += 1;
            let end = match end_for_root(&result, slot.plies) {
                Some(end) => Some(end),
                None if slot.plies >= MAX_PLIES => Some(GameEnd::Truncated),
                None => None,
            };
            match end {
                None => slot.dice = slot.rng.roll(),
                Some(end) => {
                    out[i] = SlotStep {
                        reward: match end {
                            GameEnd::Won(k) => k as i8,
                            GameEnd::Lost(k) => -(k as i8),
                            GameEnd::Truncated => 0,
                        },
                        done: true,
                    };
                    self.finals[i] = Some(result);
                    self.start_slot(i);
                }
            }
        }
        self.generated = false;
        Ok(())
    }

    /// Plays, in every slot, the candidate with the highest score (the first of
    /// equals). `scores` has one entry per candidate; a NaN anywhere is refused (it would
    /// make the choice depend on where it stands), naming its rows.
    /// Scores are `f64`: an `f32` score converts exactly, and a net's `f64` output keeps
    /// every distinction it makes.
    pub fn step_scores(&mut self, scores: &[f64], out: &mut [SlotStep]) -> Result<(), StepError> {
        self.generate()?;
        check_scores(scores, self.candidates.len())?;
        let choices: Vec<i64> = (0..self.slots.len())
            .map(|i| highest(&scores[self.offsets[i]..self.offsets[i + 1]]) as i64)
            .collect();
        self.step(&choices, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_games_end_with_fifteen_off_r15() {
        let mut env = GameBatch::env(8, 5).unwrap();
        let mut out = vec![SlotStep::default(); 8];
        let mut ended = 0;
        while ended < 40 {
            let offsets = env.generate().unwrap().to_vec();
            let choices: Vec<i64> = (0..8)
                .map(|i| ((offsets[i + 1] - offsets[i]) / 2) as i64)
                .collect();
            env.step(&choices, &mut out).unwrap();
            for (i, s) in out.iter().enumerate() {
                if s.done {
                    ended += 1;
                    let last = env.final_position(i).unwrap();
                    assert_eq!(last.opponent().off(), 15);
                    assert!(s.reward != 0);
                }
            }
        }
    }

    #[test]
    fn nan_scores_are_refused_naming_their_rows() {
        let mut env = GameBatch::env(3, 2).unwrap();
        let before: Vec<_> = (0..3).map(|i| (env.position(i), env.dice(i))).collect();
        let m = env.generate().unwrap()[3];
        let mut scores = vec![0.5f64; m];
        for r in [1, m - 1] {
            scores[r] = f64::NAN;
        }
        let mut out = vec![SlotStep::default(); 3];
        let err = env.step_scores(&scores, &mut out).unwrap_err();
        assert_eq!(
            err,
            StepError::NotANumber {
                rows: vec![1, m - 1],
                count: 2
            }
        );
        assert!(
            err.to_string().contains(&format!("rows 1, {}", m - 1)),
            "{err}"
        );
        let after: Vec<_> = (0..3).map(|i| (env.position(i), env.dice(i))).collect();
        assert_eq!(after, before);
    }

    #[test]
    fn bad_choice_changes_nothing() {
        let mut env = GameBatch::env(2, 1).unwrap();
        let before = (env.position(0), env.dice(0));
        let mut out = vec![SlotStep::default(); 2];
        let err = env.step(&[0, 100_000], &mut out).unwrap_err();
        assert!(matches!(err, StepError::Choice { game: 1, .. }));
        assert_eq!((env.position(0), env.dice(0)), before);
    }
}
