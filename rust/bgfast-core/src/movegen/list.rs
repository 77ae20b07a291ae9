//! The results of one position and roll: [`MoveList`], which owns the buffers the generators
//! write, and [`CompactMove`]; decoding a result's key into the position it stands for and
//! a move code into the steps of a [`Move`].

use super::board::Prepared;
use crate::checkers::{Checkers, BAR};
use crate::dice::Dice;
use crate::mv::{Move, Step, OFF};
use crate::pointset::PointSet;
use crate::position::Position;

/// The most complete plays any position and roll can have: four moves chosen from at most 15
/// source points with repeats, C(18, 4). Distinct results can never exceed it, so a
/// [`MoveList`] never grows past its first allocation.
pub const MAX_PLAYS: usize = 3060;

/// The buffers' length: a power of two above [`MAX_PLAYS`], so that writes index with a mask
/// instead of a bounds check (the mask never changes an index: lists stay within MAX_PLAYS).
pub(crate) const BUFFER: usize = 4096;
const _: () = assert!(MAX_PLAYS <= BUFFER && BUFFER.is_power_of_two());

/// Where a key's record of the blots hit starts: below it are the mover's packed checkers
/// (bits 4..104), from it one bit per opponent point hit.
pub(crate) const HIT_KEY_SHIFT: u32 = 104;
/// The mover's packed checkers in a key.
pub(crate) const CHECKER_KEY_BITS: u128 = (1u128 << HIT_KEY_SHIFT) - 1;

/// Move codes: bits 0..3 the number of steps, bit 3 set when the low die moves first, then
/// five bits per step for its source point.
pub(super) const LOW_FIRST: u32 = 1 << 3;
const LEN_BITS: u32 = 0b111;

/// The code of a two-step move from `first`, then from `second`; `low_first` when the low
/// die moves first.
#[inline(always)]
pub(super) const fn code2(first: u32, second: u32, low_first: bool) -> u32 {
    2 | (if low_first { LOW_FIRST } else { 0 }) | (first << 4) | (second << 9)
}

/// A reusable buffer of legal moves: the distinct results of one position and roll, each with
/// one move that reaches it. Allocates once in [`MoveList::new`]; generating into it never
/// allocates again.
pub struct MoveList {
    pub(super) origin: Position,
    pub(super) dice: Dice,
    pub(super) len: usize,
    pub(super) keys: Box<[u128; BUFFER]>,
    pub(super) codes: Box<[u32; BUFFER]>,
    /// The scratch board of `origin`, kept for the next call: engines and perft generate
    /// all 21 rolls of one position in a row. `None` until the first call.
    pub(super) prepared: Option<Prepared>,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl Clone for MoveList {
    fn clone(&self) -> Self {
        let mut copy = MoveList::new();
        copy.origin = self.origin;
        copy.dice = self.dice;
        copy.len = self.len;
        copy.keys[..self.len].copy_from_slice(&self.keys[..self.len]);
        copy.codes[..self.len].copy_from_slice(&self.codes[..self.len]);
        copy.prepared = self.prepared;
        copy
    }
}

impl core::fmt::Debug for MoveList {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MoveList")
            .field("origin", &self.origin)
            .field("dice", &self.dice)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl MoveList {
    /// An empty list with room for [`MAX_PLAYS`] moves.
    pub fn new() -> MoveList {
        MoveList {
            origin: Position::START,
            dice: Dice::ALL_21[0],
            len: 0,
            // Through a Vec, so that the arrays are never built on the stack.
            keys: vec![0; BUFFER]
                .into_boxed_slice()
                .try_into()
                .expect("BUFFER keys"),
            codes: vec![0; BUFFER]
                .into_boxed_slice()
                .try_into()
                .expect("BUFFER codes"),
            prepared: None,
        }
    }

    /// The number of distinct results.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no result (only when the game is already over).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The position the moves were generated from ([`Position::START`] for a list nothing
    /// was generated into yet).
    #[inline]
    pub fn origin(&self) -> Position {
        self.origin
    }

    /// The roll the moves were generated for (2-1 for a list nothing was generated into
    /// yet).
    #[inline]
    pub fn dice(&self) -> Dice {
        self.dice
    }

    /// The `i`-th move, rebuilt from its source points. Panics if `i >= len()`.
    #[inline]
    pub fn mv(&self, i: usize) -> Move {
        self.compact(i).mv(&self.origin, self.dice)
    }

    /// The `i`-th move in 20 bytes: enough to rebuild the move and its result after the
    /// list has been reused. Panics if `i >= len()`.
    #[inline]
    pub fn compact(&self, i: usize) -> CompactMove {
        let key = self.keys[..self.len][i];
        // Doubles store no code: it follows from the key (see `CompactMove::mv`).
        let code = if self.dice.is_double() {
            0
        } else {
            self.codes[..self.len][i]
        };
        CompactMove { key, code }
    }

    /// The position after the `i`-th move, with the opponent to move. Panics if `i >= len()`.
    #[inline]
    pub fn result(&self, i: usize) -> Position {
        result_of(&self.origin, self.keys[..self.len][i])
    }

    /// The 128-bit key of the `i`-th result: equal keys for one origin mean equal results.
    /// Panics if `i >= len()`.
    #[inline]
    pub fn key(&self, i: usize) -> u128 {
        self.keys[..self.len][i]
    }

    /// The keys of every result, in list order (see [`MoveList::key`]).
    #[inline]
    pub fn keys(&self) -> &[u128] {
        &self.keys[..self.len]
    }

    /// Every result, with the opponent to move, in list order; cheaper than [`MoveList::iter`]
    /// when the moves are not needed (a double's move is rebuilt on demand).
    pub fn results(&self) -> impl ExactSizeIterator<Item = Position> + '_ {
        (0..self.len()).map(move |i| self.result(i))
    }

    /// Every (move, result) pair, results with the opponent to move.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Move, Position)> + '_ {
        (0..self.len()).map(move |i| (self.mv(i), self.result(i)))
    }
}

/// One generated move, compact: the result's key and, for non-doubles, the sources in play
/// order. With the origin and the roll it rebuilds the [`Move`] and the resulting position,
/// so a caller can keep many moves without keeping a [`MoveList`] (20 bytes a move).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CompactMove {
    key: u128,
    code: u32,
}

impl CompactMove {
    /// The key of the result (see [`MoveList::key`]).
    #[inline]
    pub fn key(&self) -> u128 {
        self.key
    }

    /// The position after the move, with the opponent to move; `origin` must be the position
    /// the move was generated from. Nothing checks it (the move keeps only the result's key,
    /// read against `origin`'s checkers): from another position the result is meaningless
    /// and may break [`Position`]'s invariants, as [`Position::play_unchecked`] with a move
    /// of another position does. Keep each move with its origin.
    #[inline]
    pub fn result(&self, origin: &Position) -> Position {
        result_of(origin, self.key)
    }

    /// The move's steps; `origin` and `dice` must be those it was generated for (unchecked,
    /// as in [`CompactMove::result`]).
    pub fn mv(&self, origin: &Position, dice: Dice) -> Move {
        let code = if dice.is_double() {
            double_code(origin, dice, self.key)
        } else {
            self.code
        };
        let (high, low) = (dice.high().pips(), dice.low().pips());
        let (first, second) = if code & LOW_FIRST != 0 {
            (low, high)
        } else {
            (high, low)
        };
        let mut blots = origin.opponent().blots().mirrored().bits();
        let mut mv = Move::PASS;
        for k in 0..code & LEN_BITS {
            let from = ((code >> (4 + 5 * k)) & 0x1F) as u8;
            let die = if k % 2 == 0 { first } else { second };
            let to = from.saturating_sub(die);
            let hit = to != OFF && blots & (1 << to) != 0;
            blots &= !(1 << to);
            mv.push(Step { from, to, hit });
        }
        mv
    }
}

/// The position a key stands for: the mover's checkers as keyed, the opponent's blots that
/// were hit moved to its bar, and the turn passed.
#[inline]
fn result_of(origin: &Position, key: u128) -> Position {
    let mover = Checkers::from_bits_unchecked(key & CHECKER_KEY_BITS);
    let hits = ((key >> HIT_KEY_SHIFT) as u32) << 1;
    let mut opponent = origin.opponent();
    if hits != 0 {
        for point in PointSet(hits).mirrored() {
            opponent = opponent.minus(point, 1);
        }
        opponent = opponent.plus(BAR, hits.count_ones() as u8);
    }
    Position::from_sides_unchecked(opponent, mover)
}

/// The move code of a double's result, which is not stored: the sources follow from the
/// change of counts. A point `p` gains the checkers moved from `p + d` and loses those moved
/// from it, so from the bar down, `uses(p) = uses(p + d) - change(p)`. Sources taken highest
/// first make a legal order (see the module doc). Only the points whose count changed, and
/// the points a moving checker passes through, are visited.
fn double_code(origin: &Position, dice: Dice, key: u128) -> u32 {
    let die = u32::from(dice.high().pips());
    let before = origin.mover();
    let after = Checkers::from_bits_unchecked(key & CHECKER_KEY_BITS);
    let mut uses = [0i32; 32];
    let mut code = 0;
    let mut k = 0;
    let mut pending = changed_points(before, after);
    while pending != 0 {
        let p = 31 - pending.leading_zeros();
        pending &= !(1 << p);
        let change = i32::from(after.count(p as u8)) - i32::from(before.count(p as u8));
        let arriving = uses.get((p + die) as usize).copied().unwrap_or(0);
        uses[p as usize] = arriving - change;
        for _ in 0..uses[p as usize] {
            code |= p << (4 + 5 * k);
            k += 1;
        }
        if uses[p as usize] > 0 && p > die {
            // A checker left p and landed on p - die, perhaps to move on from there.
            pending |= 1 << (p - die);
        }
    }
    code | k
}

/// The points (bit p) whose count differs between two packed boards.
#[inline]
fn changed_points(before: Checkers, after: Checkers) -> u32 {
    let x = before.bits() ^ after.bits();
    let flags = (x | (x >> 1) | (x >> 2) | (x >> 3)) & 0x1111_1111_1111_1111_1111_1111_1111_1111;
    crate::checkers::compress_nibble_flags(flags)
}
