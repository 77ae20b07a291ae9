//! Where the generators put their results: a [`MoveList`]'s buffers
//! ([`Writer`]) or only a count ([`Counter`], for perft's last ply), behind one trait so
//! that each generator is compiled once per sink; and, in debug builds, the check of every
//! list against a plain both-orders search.

#[cfg(debug_assertions)]
use super::board::Scratch;
use super::board::{bits, HIT_KEYS, STEPS};
#[cfg(debug_assertions)]
use super::list::MoveList;
use super::list::{BUFFER, MAX_PLAYS};

/// Where the constructive generators put results: the list's buffers, or a counter.
pub(super) trait Sink {
    /// Adds one result.
    fn push(&mut self, key: u128, code: u32);
    /// Adds one result per set bit `f` of `sources`: `key(f)` with move code `code(f)`.
    fn push_each(&mut self, sources: u32, key: impl Fn(u32) -> u128, code: impl Fn(u32) -> u32);
    /// Drops every result so far (a longer play of a double was found, R8).
    fn clear(&mut self);
    /// Whether no result was added since the start or the last clear.
    fn is_empty(&self) -> bool;
}

/// Writes into a list's buffers; `n` stays in a register while the loops run. Doubles store
/// no move codes (`CODES = false`): [`MoveList::mv`] derives them from the key.
pub(super) struct Writer<'a, const CODES: bool> {
    pub(super) keys: &'a mut [u128; BUFFER],
    pub(super) codes: &'a mut [u32; BUFFER],
    pub(super) n: usize,
}

impl<const CODES: bool> Sink for Writer<'_, CODES> {
    #[inline(always)]
    fn push(&mut self, key: u128, code: u32) {
        // MAX_PLAYS < BUFFER bounds every list (longer plays of a double clear the shorter
        // ones before they could pile up), so the mask never wraps; it only lets the compiler
        // drop the bounds checks.
        debug_assert!(self.n < MAX_PLAYS);
        let i = self.n & (BUFFER - 1);
        self.keys[i] = key;
        if CODES {
            self.codes[i] = code;
        }
        self.n += 1;
    }

    #[inline(always)]
    fn push_each(&mut self, sources: u32, key: impl Fn(u32) -> u128, code: impl Fn(u32) -> u32) {
        for f in bits(sources) {
            self.push(key(f), code(f));
        }
    }

    #[inline(always)]
    fn clear(&mut self) {
        self.n = 0;
    }

    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.n == 0
    }
}

/// Only counts: the constructive forms are distinct by construction.
pub(super) struct Counter(pub(super) usize);

impl Sink for Counter {
    #[inline(always)]
    fn push(&mut self, _key: u128, _code: u32) {
        self.0 += 1;
    }

    #[inline(always)]
    fn push_each(&mut self, sources: u32, _key: impl Fn(u32) -> u128, _code: impl Fn(u32) -> u32) {
        self.0 += sources.count_ones() as usize;
    }

    #[inline(always)]
    fn clear(&mut self) {
        self.0 = 0;
    }

    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.0 == 0
    }
}

/// One result per source `f` in `sources`: `base` with one more checker moved `die` pips
/// from `f`, hitting the blot there when `hit_from` has `f`. Sources that hit nothing (most)
/// take a subtraction and a store each.
#[inline(always)]
pub(super) fn push_steps<S: Sink>(
    sink: &mut S,
    sources: u32,
    base: u128,
    die: u32,
    hit_from: u32,
    code: impl Fn(u32) -> u32,
) {
    let steps = &STEPS[(die & 7) as usize];
    sink.push_each(
        sources & !hit_from,
        |f| base - steps[(f & 31) as usize],
        &code,
    );
    let hitting = sources & hit_from;
    if hitting != 0 {
        sink.push_each(
            hitting,
            |f| (base - steps[(f & 31) as usize]) | HIT_KEYS[(f.wrapping_sub(die) & 31) as usize],
            &code,
        );
    }
}

/// Debug builds: keys are distinct, [`Position::count_moves`](crate::Position::count_moves)
/// agrees, and a non-double list has exactly the results of trying both orders of the dice
/// with a hash set.
#[cfg(debug_assertions)]
pub(super) fn debug_check(list: &MoveList, start: &Scratch, blocked: u32) {
    let mut keys = list.keys().to_vec();
    keys.sort_unstable();
    keys.dedup();
    let (origin, dice) = (list.origin, list.dice);
    assert_eq!(
        keys.len(),
        list.len(),
        "duplicate results for {origin:?} {dice}"
    );
    assert_eq!(
        origin.count_moves(dice),
        list.len(),
        "count_moves for {origin:?} {dice}"
    );
    if !dice.is_double() {
        let (high, low) = (dice.high().pips() as u32, dice.low().pips() as u32);
        let mut expected = std::collections::HashSet::new();
        // R8: both dice whenever possible, in either order (R4).
        for (first, second) in [(high, low), (low, high)] {
            for from in bits(start.movable(first, blocked)) {
                let after = start.step(from, first);
                for from2 in bits(after.movable(second, blocked)) {
                    expected.insert(after.key_after(from2, second));
                }
            }
        }
        // R9, R10: else the higher die if it moves, else the lower, else a pass.
        for die in [high, low] {
            if expected.is_empty() {
                expected.extend(bits(start.movable(die, blocked)).map(|f| start.key_after(f, die)));
            }
        }
        if expected.is_empty() {
            expected.insert(start.key());
        }
        let mut expected: Vec<u128> = expected.into_iter().collect();
        expected.sort_unstable();
        assert_eq!(
            keys, expected,
            "constructive != both orders for {origin:?} {dice}"
        );
    }
}
