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
use crate::rollout::MAX_SLOTS;
use bgfast_core::codec::gnubg_id;
use bgfast_core::rng::GameRng;
use bgfast_core::threads::{vec_with_capacity, OutOfMemory};
use bgfast_core::{Dice, Die, MoveList, Position};

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

/// Bytes that [`GameBatch::from_bytes`] refuses: not a saved batch, or one no play could
/// have reached; says what is wrong.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct BatchBytesError(pub String);

impl fmt::Display for BatchBytesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a saved game batch: {}", self.0)
    }
}

impl std::error::Error for BatchBytesError {}

/// The start of [`GameBatch::to_bytes`]: a name and the layout's version.
const SAVED_MAGIC: &[u8; 8] = b"bgfbat\x00\x01";
/// Header: magic, seed, next game, slot count.
const SAVED_HEADER: usize = 8 + 8 + 8 + 8;
/// Per slot: position key, generator state, dice, plies, and a flag and key for the
/// game that ended there at the last step.
const SAVED_SLOT: usize = 10 + 32 + 2 + 4 + 1 + 10;

/// Reads `N` bytes at `*at`, moving past them (the length was checked before).
fn take<const N: usize>(bytes: &[u8], at: &mut usize) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&bytes[*at..*at + N]);
    *at += N;
    out
}

impl GameBatch {
    /// The batch as bytes, to save a training run: every slot's position, roll, ply count
    /// and dice generator, the next game number and the games that ended at the last step.
    /// [`GameBatch::from_bytes`] gives back a batch that plays on exactly as this one
    /// does (the candidates are generated again, in the same order).
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.slots.len();
        let mut out = Vec::with_capacity(SAVED_HEADER + SAVED_SLOT * n);
        out.extend_from_slice(SAVED_MAGIC);
        out.extend_from_slice(&self.seed.to_le_bytes());
        out.extend_from_slice(&self.next_game.to_le_bytes());
        out.extend_from_slice(&(n as u64).to_le_bytes());
        for (slot, last) in self.slots.iter().zip(&self.finals) {
            out.extend_from_slice(&gnubg_id::key(&slot.pos));
            for word in slot.rng.state() {
                out.extend_from_slice(&word.to_le_bytes());
            }
            out.extend_from_slice(&[slot.dice.high().pips(), slot.dice.low().pips()]);
            out.extend_from_slice(&slot.plies.to_le_bytes());
            out.push(last.is_some() as u8);
            out.extend_from_slice(&last.map_or([0; 10], |p| gnubg_id::key(&p)));
        }
        out
    }

    /// The batch [`GameBatch::to_bytes`] saved. Checks everything a play relies on: the
    /// layout and its version, 1 to [`MAX_SLOTS`] slots, valid positions
    /// not yet over, rolls of two dice (a game's first one not a double, R3), ply counts
    /// below [`MAX_PLIES`], working generators and game numbers past every slot's game.
    pub fn from_bytes(bytes: &[u8]) -> Result<GameBatch, BatchBytesError> {
        let bad = |why: String| Err(BatchBytesError(why));
        if bytes.len() < SAVED_HEADER || &bytes[..8] != SAVED_MAGIC {
            return bad(
                "it does not start as GameBatch::to_bytes writes (bgfast 0.1 layout 1)".into(),
            );
        }
        let mut at = 8;
        let seed = u64::from_le_bytes(take(bytes, &mut at));
        let next_game = u64::from_le_bytes(take(bytes, &mut at));
        let n = u64::from_le_bytes(take(bytes, &mut at));
        if n == 0 || n > MAX_SLOTS as u64 {
            return bad(format!("{n} games: a batch holds 1 to {MAX_SLOTS}"));
        }
        let n = n as usize;
        if bytes.len() != SAVED_HEADER + SAVED_SLOT * n {
            return bad(format!(
                "{} bytes for {n} games, which take {}",
                bytes.len(),
                SAVED_HEADER + SAVED_SLOT * n
            ));
        }
        if next_game < n as u64 {
            return bad(format!(
                "the next game is {next_game}, but {n} games have started"
            ));
        }
        let slot_error = |i: usize, why: &str| BatchBytesError(format!("game {i}: {why}"));
        let mut batch = GameBatch::env(0, seed).map_err(|e| BatchBytesError(e.to_string()))?;
        batch.next_game = next_game;
        batch.slots = vec_with_capacity(n).map_err(|e| BatchBytesError(e.to_string()))?;
        batch.finals = vec_with_capacity(n).map_err(|e| BatchBytesError(e.to_string()))?;
        for i in 0..n {
            let pos = gnubg_id::from_key(&take(bytes, &mut at))
                .map_err(|e| slot_error(i, &format!("its position is not valid ({e})")))?;
            if pos.outcome().is_some() {
                return Err(slot_error(
                    i,
                    "its game is over (R15), yet it was not started again",
                ));
            }
            let mut words = [0u64; 4];
            for word in &mut words {
                *word = u64::from_le_bytes(take(bytes, &mut at));
            }
            let rng = GameRng::from_state(words)
                .ok_or_else(|| slot_error(i, "its dice generator is all zeros"))?;
            let [a, b] = take::<2>(bytes, &mut at);
            let (Some(a), Some(b)) = (Die::new(a), Die::new(b)) else {
                return Err(slot_error(i, &format!("its roll {a}-{b} is not two dice")));
            };
            let dice = Dice::new(a, b);
            let plies = u32::from_le_bytes(take(bytes, &mut at));
            if plies >= MAX_PLIES {
                return Err(slot_error(
                    i,
                    &format!("{plies} plies, past the cap of {MAX_PLIES}"),
                ));
            }
            if plies == 0 && (pos != Position::START || dice.is_double()) {
                return Err(slot_error(
                    i,
                    "its first ply is not the standard start with a non-double (R3)",
                ));
            }
            let [ended] = take::<1>(bytes, &mut at);
            let last = take::<10>(bytes, &mut at);
            let last = match ended {
                0 if last == [0; 10] => None,
                1 => Some(gnubg_id::from_key(&last).map_err(|e| {
                    slot_error(i, &format!("the game that ended there is not valid ({e})"))
                })?),
                _ => return Err(slot_error(i, "its last game's flag is neither 0 nor 1")),
            };
            batch.slots.push(Slot {
                pos,
                rng,
                dice,
                plies,
            });
            batch.finals.push(last);
        }
        batch.offsets = filled(n + 1, 0).map_err(|e| BatchBytesError(e.to_string()))?;
        Ok(batch)
    }

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

    /// The seed of every game's dice.
    pub fn seed(&self) -> u64 {
        self.seed
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

    /// Plays `plies` steps choosing each slot's middle candidate; every slot's reward.
    fn play(env: &mut GameBatch, plies: usize) -> Vec<i8> {
        let n = env.len();
        let mut out = vec![SlotStep::default(); n];
        let mut rewards = Vec::new();
        for _ in 0..plies {
            let offsets = env.generate().unwrap().to_vec();
            let choices: Vec<i64> = (0..n)
                .map(|i| ((offsets[i + 1] - offsets[i]) / 2) as i64)
                .collect();
            env.step(&choices, &mut out).unwrap();
            rewards.extend(out.iter().map(|s| s.reward));
        }
        rewards
    }

    fn state(env: &GameBatch) -> Vec<(Position, Dice, u8, Option<Position>)> {
        (0..env.len())
            .map(|i| {
                (
                    env.position(i),
                    env.dice(i),
                    env.player(i),
                    env.final_position(i),
                )
            })
            .collect()
    }

    #[test]
    fn a_saved_batch_plays_on_exactly_as_the_original() {
        let mut env = GameBatch::env(5, 9).unwrap();
        play(&mut env, 137); // some games have ended and started again
        let bytes = env.to_bytes();
        let mut copy = GameBatch::from_bytes(&bytes).unwrap();
        assert_eq!(state(&copy), state(&env));
        assert_eq!(copy.to_bytes(), bytes);
        assert_eq!(play(&mut copy, 300), play(&mut env, 300));
        assert_eq!(state(&copy), state(&env));
    }

    #[test]
    fn damaged_bytes_are_refused_never_a_panic() {
        let mut env = GameBatch::env(2, 4).unwrap();
        play(&mut env, 31);
        let bytes = env.to_bytes();
        for cut in 0..bytes.len() {
            assert!(
                GameBatch::from_bytes(&bytes[..cut]).is_err(),
                "cut at {cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(GameBatch::from_bytes(&longer).is_err());
        // Every byte changed in every bit: refused, or a batch that still plays.
        for at in 0..bytes.len() {
            for bit in 0..8 {
                let mut forged = bytes.clone();
                forged[at] ^= 1 << bit;
                if let Ok(mut batch) = GameBatch::from_bytes(&forged) {
                    play(&mut batch, 3);
                }
            }
        }
        let mut zero_rng = bytes.clone();
        zero_rng[32 + 10..32 + 42].fill(0);
        let Err(error) = GameBatch::from_bytes(&zero_rng) else {
            panic!("taken")
        };
        assert!(
            error
                .to_string()
                .contains("game 0: its dice generator is all zeros"),
            "{error}"
        );
        let mut many = bytes.clone();
        many[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
        let Err(error) = GameBatch::from_bytes(&many) else {
            panic!("taken")
        };
        assert!(
            error.to_string().contains("a batch holds 1 to 4194304"),
            "{error}"
        );
        let mut none = bytes[..32].to_vec();
        none[24..32].fill(0);
        assert!(
            GameBatch::from_bytes(&none).is_err(),
            "no games: a VecEnv has one at least"
        );
    }
}
