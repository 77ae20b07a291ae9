//! The scratch board a play is built on, the position prepared once for all rolls, and the
//! tables and bit helpers both generators share. Everything is in the mover's numbering.

use crate::checkers::{Checkers, BAR};
use crate::position::Position;

use super::list::HIT_KEY_SHIFT;

/// The bar's bit in the point masks.
pub(super) const BAR_BIT: u32 = 1 << BAR;

/// Points 1..=6.
pub(super) const HOME_BITS: u32 = 0b111_1110;

#[inline(always)]
const fn unit(point: u32) -> u128 {
    1u128 << (4 * point)
}

/// `STEPS[d][p]`: what moving one checker `d` pips from point `p` subtracts from the packed
/// board (a table lookup is cheaper than two variable 128-bit shifts); bearing off for
/// `p <= d`. Indexed with `& 7` and `& 31` so that no bounds check remains.
pub(super) static STEPS: [[u128; 32]; 8] = {
    let mut table = [[0u128; 32]; 8];
    let mut d = 1;
    while d <= 6 {
        let mut p = 1;
        while p <= BAR as u32 {
            table[d as usize][p as usize] = if p > d {
                unit(p) - unit(p - d)
            } else {
                unit(p)
            };
            p += 1;
        }
        d += 1;
    }
    table
};

/// `NIBBLES[p]`: the packed board's bits for point `p`.
pub(super) static NIBBLES: [u128; 32] = {
    let mut table = [0u128; 32];
    let mut p = 0;
    while p < 26 {
        table[p] = 0xF << (4 * p);
        p += 1;
    }
    table
};

/// What moving one checker `die` pips from `from` subtracts from the packed board.
#[inline(always)]
pub(super) fn step_delta(from: u32, die: u32) -> u128 {
    STEPS[(die & 7) as usize][(from & 31) as usize]
}

/// The key bits recording the blots hit (bit `p` of `hits` = point `p`).
#[inline(always)]
pub(super) const fn hit_key(hits: u32) -> u128 {
    ((hits >> 1) as u128) << HIT_KEY_SHIFT
}

/// `HIT_KEYS[p]`: the key bit recording a hit on point `p` (1..=24).
pub(super) static HIT_KEYS: [u128; 32] = {
    let mut table = [0u128; 32];
    let mut p = 1;
    while p <= 24 {
        table[p] = hit_key(1 << p);
        p += 1;
    }
    table
};

/// The set bits of a mask, lowest first.
#[inline(always)]
pub(super) fn bits(mut mask: u32) -> impl Iterator<Item = u32> {
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

/// The mover's side of the board while a play is built.
#[derive(Clone, Copy)]
pub(super) struct Scratch {
    pub(super) own: u128,
    pub(super) occupied: u32,
    pub(super) blots: u32,
    pub(super) hits: u32,
}

impl Scratch {
    /// The key of the board as it stands (see [`MoveList::key`](super::MoveList::key)).
    #[inline(always)]
    pub(super) fn key(&self) -> u128 {
        self.own | hit_key(self.hits)
    }

    /// The source points from which a checker can legally move `die` pips (R6, R7, R12–R14).
    #[inline(always)]
    pub(super) fn movable(&self, die: u32, blocked: u32) -> u32 {
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
    #[inline(always)]
    pub(super) fn step(&self, from: u32, die: u32) -> Scratch {
        let mut next = *self;
        next.own -= step_delta(from, die);
        if next.own & NIBBLES[(from & 31) as usize] == 0 {
            next.occupied &= !(1 << from);
        }
        // Bearing off lands on bit 0, which no mask keeps.
        let to = from.saturating_sub(die);
        next.occupied = (next.occupied | (1 << to)) & !1;
        next.hits |= next.blots & (1 << to);
        next
    }

    /// The key after one more legal step, without building the scratch board (debug checks).
    #[cfg(debug_assertions)]
    pub(super) fn key_after(&self, from: u32, die: u32) -> u128 {
        let to = from.saturating_sub(die);
        (self.own - step_delta(from, die)) | hit_key(self.hits | (self.blots & (1 << to)))
    }
}

/// What generation needs of a position that is still being played, computed once per
/// position: the scratch board, the opponent's blocked points (in the mover's numbering),
/// the mover's points with two or more checkers, how many checkers are outside home (the bar
/// counts), and whether a non-double may bear off.
#[derive(Clone, Copy)]
pub(super) struct Board {
    pub(super) start: Scratch,
    pub(super) blocked: u32,
    pub(super) multi: u32,
    pub(super) outside: u8,
    pub(super) bear_off: bool,
}

/// A position made ready for generation: its [`Board`], or `None` once the game is over.
#[derive(Clone, Copy)]
pub(crate) struct Prepared {
    pub(super) position: Position,
    pub(super) board: Option<Board>,
}

/// Prepares `position` for generation: once per position, however many rolls follow.
#[inline(always)]
pub(crate) fn prepare(position: &Position) -> Prepared {
    let mover = position.mover();
    let opponent = position.opponent();
    // R15: a side with no checker left on the board has won.
    let board = if mover.bits() == 0 || opponent.bits() == 0 {
        None
    } else {
        let start = Scratch {
            own: mover.bits(),
            occupied: mover.occupied().bits(),
            blots: opponent.blots().mirrored().bits(),
            hits: 0,
        };
        Some(Board {
            start,
            blocked: opponent.made().mirrored().bits(),
            multi: mover.made().bits(),
            outside: outside_home(start.own),
            bear_off: bear_off_possible(&start),
        })
    };
    Prepared {
        position: *position,
        board,
    }
}

/// Whether a checker might be borne off this turn of a non-double: only when at most one
/// checker is outside the home board (one move can bring it home) and none is on the bar.
#[inline(always)]
fn bear_off_possible(start: &Scratch) -> bool {
    let outside = start.occupied & !HOME_BITS;
    if outside == 0 {
        return true;
    }
    if outside & (outside - 1) != 0 || outside & BAR_BIT != 0 {
        return false;
    }
    (start.own >> (4 * outside.trailing_zeros())) & 0xF == 1
}

/// How many checkers stand outside the home board: on points 7..=24 or the bar.
#[inline(always)]
fn outside_home(own: u128) -> u8 {
    Checkers::from_bits_unchecked((own >> 28) << 28).on_board()
}
