//! Legal move generation: every distinct position a roll can reach (R4–R14).
//!
//! The generator works on a scratch board in the mover's numbering: packed counts, a mask of
//! occupied points, and the opponent's blocked points and blots as masks. Blocked points
//! cannot change during a turn (only blots can be hit), so the checkers a die can move are a
//! few mask operations. Results are keyed by 128 bits (the mover's packed checkers and the
//! blots hit), which identifies the resulting position exactly.
//!
//! Doubles are enumerated with non-increasing source points only: every play of a double
//! can be reordered that way and stay legal (moving a rearmost checker first never blocks
//! another, and bearing off only needs the points above to be empty), and two different
//! multisets of sources never reach the same position, so doubles need no deduplication.
//! Non-doubles try both dice orders and drop repeats with a small stamped hash table.

use crate::checkers::{Checkers, BAR};
use crate::dice::Dice;
use crate::mv::{Move, Step, OFF};
use crate::position::Position;

/// The most complete plays any position and roll can have: four moves chosen from at most 15
/// source points with repeats, C(18, 4). Distinct results can never exceed it, so a
/// [`MoveList`] never grows past its first allocation.
pub const MAX_PLAYS: usize = 3060;

const BAR_BIT: u32 = 1 << BAR;
/// Points 1..=6.
const HOME_BITS: u32 = 0b111_1110;
/// The mover's packed checkers occupy key bits 4..104; the blots hit fill the rest.
const CHECKER_KEY_BITS: u128 = (1u128 << 104) - 1;

const TABLE_BITS: u32 = 10;
const TABLE_SIZE: usize = 1 << TABLE_BITS;
const INDEX_BITS: u32 = 12;
const _: () = assert!(MAX_PLAYS < (1 << INDEX_BITS));

/// The mover's side of the board while a play is built.
#[derive(Clone, Copy)]
struct Scratch {
    own: u128,
    occupied: u32,
    blots: u32,
    hits: u32,
}

impl Scratch {
    #[inline]
    fn key(&self) -> u128 {
        self.own | (((self.hits >> 1) as u128) << 104)
    }

    /// The source points from which a checker can legally move `die` pips (R6, R7, R12–R14).
    #[inline]
    fn movable(&self, die: u32, blocked: u32) -> u32 {
        let occupied = self.occupied;
        // R12: while a checker is on the bar, it is the only one that may move.
        let sources = if occupied & BAR_BIT != 0 {
            BAR_BIT
        } else {
            occupied
        };
        let mut movable = sources & !(blocked << die) & (!0u32 << (die + 1));
        // R13: bearing off only once every checker is home.
        if occupied & !HOME_BITS == 0 && occupied != 0 {
            // R14: exactly from the die's point, or from the highest point if the die is higher.
            movable |= occupied & (1 << die);
            let highest = 31 - occupied.leading_zeros();
            if highest < die {
                movable |= 1 << highest;
            }
        }
        movable
    }

    /// Moves one checker `die` pips from `from`; the caller knows the step is legal.
    #[inline]
    fn step(&self, from: u32, die: u32) -> (Scratch, Step) {
        let mut next = *self;
        next.own -= 1u128 << (4 * from);
        if (next.own >> (4 * from)) & 0xF == 0 {
            next.occupied &= !(1 << from);
        }
        let to = from.saturating_sub(die);
        let mut hit = false;
        if to != OFF as u32 {
            next.own += 1u128 << (4 * to);
            next.occupied |= 1 << to;
            if next.blots & (1 << to) != 0 {
                hit = true;
                next.blots &= !(1 << to);
                next.hits |= 1 << to;
            }
        }
        (
            next,
            Step {
                from: from as u8,
                to: to as u8,
                hit,
            },
        )
    }
}

#[derive(Clone, Copy)]
struct Play {
    key: u128,
    mv: Move,
}

/// A reusable buffer of legal moves: the distinct results of one position and roll, each with
/// one move that reaches it. Allocates once in [`MoveList::new`]; generating into it never
/// allocates again.
pub struct MoveList {
    origin: Position,
    plays: Vec<Play>,
    /// Stamped slots for deduplicating non-doubles: `stamp << INDEX_BITS | index`.
    table: Box<[u32; TABLE_SIZE]>,
    stamp: u32,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl MoveList {
    /// An empty list with room for [`MAX_PLAYS`] moves.
    pub fn new() -> MoveList {
        MoveList {
            origin: Position::START,
            plays: Vec::with_capacity(MAX_PLAYS),
            table: Box::new([0; TABLE_SIZE]),
            stamp: 0,
        }
    }

    /// The number of distinct results.
    #[inline]
    pub fn len(&self) -> usize {
        self.plays.len()
    }

    /// Whether there is no result (only when the game is already over).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.plays.is_empty()
    }

    /// The position the moves were generated from.
    #[inline]
    pub fn origin(&self) -> Position {
        self.origin
    }

    /// The `i`-th move.
    #[inline]
    pub fn mv(&self, i: usize) -> Move {
        self.plays[i].mv
    }

    /// The position after the `i`-th move, with the opponent to move.
    #[inline]
    pub fn result(&self, i: usize) -> Position {
        let key = self.plays[i].key;
        let mover = Checkers::from_bits_unchecked(key & CHECKER_KEY_BITS);
        let hits = ((key >> 104) as u32) << 1;
        let mut opponent = self.origin.opponent();
        if hits != 0 {
            let mirrored = crate::pointset::PointSet(hits).mirrored();
            for point in mirrored {
                opponent = opponent.minus(point, 1);
            }
            opponent = opponent.plus(BAR, hits.count_ones() as u8);
        }
        Position::from_sides_unchecked(opponent, mover)
    }

    /// The 128-bit key of the `i`-th result: equal keys for one origin mean equal results.
    #[inline]
    pub fn key(&self, i: usize) -> u128 {
        self.plays[i].key
    }

    /// Every (move, result) pair, results with the opponent to move.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Move, Position)> + '_ {
        (0..self.len()).map(move |i| (self.mv(i), self.result(i)))
    }

    fn begin(&mut self, origin: Position) {
        self.origin = origin;
        self.plays.clear();
        self.stamp += 1;
        if self.stamp >= 1 << (32 - INDEX_BITS) {
            self.table.fill(0);
            self.stamp = 1;
        }
    }

    #[inline]
    fn push(&mut self, key: u128, mv: Move) {
        debug_assert!(self.plays.len() < MAX_PLAYS);
        self.plays.push(Play { key, mv });
    }

    /// Adds the play unless its result is already listed.
    #[inline]
    fn insert(&mut self, key: u128, mv: Move) {
        let folded = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
        let mut slot = (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - TABLE_BITS)) as usize;
        loop {
            let entry = self.table[slot];
            if entry >> INDEX_BITS != self.stamp {
                self.table[slot] = (self.stamp << INDEX_BITS) | self.plays.len() as u32;
                self.push(key, mv);
                return;
            }
            if self.plays[(entry & ((1 << INDEX_BITS) - 1)) as usize].key == key {
                return;
            }
            slot = (slot + 1) & (TABLE_SIZE - 1);
        }
    }
}

impl Position {
    /// Generates the legal moves for `dice` into `list`, replacing its contents.
    ///
    /// Each distinct resulting position appears once, with one move reaching it. A roll
    /// with no legal play gives one result, the pass (R10). A finished game gives none.
    pub fn generate_moves(&self, dice: Dice, list: &mut MoveList) {
        list.begin(*self);
        if self.outcome().is_some() {
            return;
        }
        let mover = self.mover();
        let opponent = self.opponent();
        let start = Scratch {
            own: mover.bits(),
            occupied: mover.occupied().bits(),
            blots: opponent.blots().mirrored().bits(),
            hits: 0,
        };
        let blocked = opponent.made().mirrored().bits();
        if dice.is_double() {
            generate_double(list, start, blocked, dice.high().pips() as u32);
        } else {
            generate_non_double(
                list,
                start,
                blocked,
                dice.high().pips() as u32,
                dice.low().pips() as u32,
            );
        }
        if list.plays.is_empty() {
            list.push(start.key(), Move::PASS);
        }
    }

    /// The legal moves for `dice` in a new list; engines should reuse one with
    /// [`Position::generate_moves`].
    pub fn legal_moves(&self, dice: Dice) -> MoveList {
        let mut list = MoveList::new();
        self.generate_moves(dice, &mut list);
        list
    }
}

fn generate_non_double(list: &mut MoveList, start: Scratch, blocked: u32, high: u32, low: u32) {
    // R8: both dice whenever possible, in either order (R4).
    for (first, second) in [(high, low), (low, high)] {
        for from in bits(start.movable(first, blocked)) {
            let (after_first, step1) = start.step(from, first);
            for from2 in bits(after_first.movable(second, blocked)) {
                let (after_both, step2) = after_first.step(from2, second);
                let mut mv = Move::PASS;
                mv.push(step1);
                mv.push(step2);
                list.insert(after_both.key(), mv);
            }
        }
    }
    if !list.plays.is_empty() {
        return;
    }
    // R9: only one die can be played; the higher one if it can. Distinct sources give
    // distinct results, so no deduplication is needed.
    for die in [high, low] {
        for from in bits(start.movable(die, blocked)) {
            let (after, step) = start.step(from, die);
            let mut mv = Move::PASS;
            mv.push(step);
            list.push(after.key(), mv);
        }
        if !list.plays.is_empty() {
            return;
        }
    }
}

fn generate_double(list: &mut MoveList, start: Scratch, blocked: u32, die: u32) {
    let mut longest = 0;
    let mut mv = Move::PASS;
    extend_double(
        list,
        &start,
        blocked,
        die,
        BAR as u32,
        &mut mv,
        &mut longest,
    );
}

/// Extends a play of a double with sources no higher than `max_from` (see the module doc),
/// keeping only the longest plays (R5, R8).
fn extend_double(
    list: &mut MoveList,
    board: &Scratch,
    blocked: u32,
    die: u32,
    max_from: u32,
    mv: &mut Move,
    longest: &mut usize,
) {
    let depth = mv.steps().len();
    let movable = if depth == 4 {
        0
    } else {
        board.movable(die, blocked) & ((2u32 << max_from) - 1)
    };
    if movable == 0 {
        if depth > *longest {
            list.plays.clear();
            *longest = depth;
        }
        if depth == *longest && depth > 0 {
            list.push(board.key(), *mv);
        }
        return;
    }
    for from in bits(movable) {
        let (next, step) = board.step(from, die);
        mv.push(step);
        extend_double(list, &next, blocked, die, from, mv, longest);
        mv.pop();
    }
}

/// The set bits of a mask, lowest first.
#[inline]
fn bits(mut mask: u32) -> impl Iterator<Item = u32> {
    core::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let bit = mask.trailing_zeros();
            mask &= mask - 1;
            Some(bit)
        }
    })
}
