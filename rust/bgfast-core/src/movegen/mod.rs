//! Legal move generation: every distinct position a roll can reach (R4–R14).
//!
//! The generator works on a scratch board in the mover's numbering: packed counts, a mask of
//! occupied points, and the opponent's blocked points and blots as masks. Blocked points
//! cannot change during a turn (only blots can be hit), so the checkers a die can move are a
//! few mask operations. Results are keyed by 128 bits (the mover's packed checkers and the
//! blots hit), which identifies the resulting position exactly. No hash table is needed:
//! every result is built once, in a canonical form.
//!
//! **Doubles** are enumerated with non-increasing source points only, as four nested loops:
//! every play of a double can be reordered that way and stay legal (moving a rearmost
//! checker first never blocks another, and bearing off only needs the points above to be
//! empty), and two different multisets of sources never reach the same position, so doubles
//! need no deduplication. Their moves are not stored: the sources follow from the key (see
//! [`MoveList::mv`]).
//!
//! **Non-doubles** `a > b`: a play of both dice changes the board in exactly one of two ways:
//! - *two checkers*: one from `x` by `a`, one from `y` by `b`, with `y != x - a` and
//!   `x != y - b` (else one checker really made both moves). The removed points `{x, y}` and
//!   the landing points tell the pair apart, so each legal pair `(x, y)` (two checkers there
//!   if `x == y`) is one result. Without a checker on the bar and without a bear-off both
//!   single moves are legal from the start in either order; with one checker on the bar,
//!   that checker is `x` or `y` and enters first.
//! - *one checker* from `z` to `z - a - b` (or off), through `z - a` or `z - b`: one result
//!   per legal route, except that both routes give the same result when neither
//!   intermediate point holds a blot (nothing is hit on the way).
//!
//! Every sequence of two steps maps to one of these forms (a second step from the first
//! step's landing point, or onto its starting point, is one checker moving twice), so the
//! forms list each result exactly once. When a bear-off is possible this turn (at most one
//! checker outside home), single moves depend on the order (R14: a higher die bears off
//! only the rearmost checker), so each pair is checked in both orders, and bear-offs add one
//! coincidence: two checkers borne off by `a` and `b` either way round leave the same board;
//! that result is listed once. Debug builds check every non-double list against a hash set
//! of both dice orders, and the tests compare everything with a brute-force reference.
//!
//! [`MoveList`] remembers the prepared board of its last position, so the 21 rolls of one
//! position (an engine's 1-ply look-ahead, perft) prepare it once.
//!
//! This file holds the entry points on [`Position`] and the choice of instruction set; the
//! parts live in submodules: `list` (the [`MoveList`] and decoding its results), `board`
//! (the scratch board, the prepared position and the tables), `sink` (where results go:
//! the list or a counter), `non_doubles` and `doubles` (the two generators).

mod board;
mod doubles;
mod list;
mod non_doubles;
mod sink;

pub(crate) use board::prepare;
pub use list::{CompactMove, MoveList, MAX_PLAYS};
pub(crate) use list::{CHECKER_KEY_BITS, HIT_KEY_SHIFT};

use board::{hit_key, step_delta, Board, Prepared, BAR_BIT};
use doubles::{double_on_masks, generate_double};
use list::code2;
pub(crate) use list::BUFFER;
use non_doubles::{both_dice_bear_off, both_dice_free, both_dice_one_on_bar, one_die};
#[cfg(debug_assertions)]
use sink::debug_check;
use sink::{Counter, Sink, Writer};

use crate::checkers::BAR;
use crate::dice::Dice;
use crate::position::Position;

impl Position {
    /// Generates the legal moves for `dice` into `list`, replacing its contents.
    ///
    /// Each distinct resulting position appears once, with one move reaching it. A roll
    /// with no legal play gives one result, the pass (R10). A finished game gives none.
    #[inline]
    pub fn generate_moves(&self, dice: Dice, list: &mut MoveList) {
        #[cfg(target_arch = "x86_64")]
        if fast_isa() {
            // SAFETY: fast_isa() detected every feature generate_fast_isa is compiled for.
            unsafe { generate_fast_isa(self, dice, list) };
            return;
        }
        generate(self, dice, list);
    }

    /// The number of legal moves for `dice`: what [`Position::generate_moves`] followed by
    /// [`MoveList::len`] gives, without storing anything (perft's last ply).
    #[inline]
    pub fn count_moves(&self, dice: Dice) -> usize {
        count_prepared(&prepare(self), dice)
    }

    /// The legal moves for `dice` in a new list; engines should reuse one with
    /// [`Position::generate_moves`].
    pub fn legal_moves(&self, dice: Dice) -> MoveList {
        let mut list = MoveList::new();
        self.generate_moves(dice, &mut list);
        list
    }
}

/// [`Position::count_moves`] for a prepared position.
#[inline]
pub(crate) fn count_prepared(prepared: &Prepared, dice: Dice) -> usize {
    let Some(board) = prepared.board else {
        return 0;
    };
    let (high, low) = (dice.high().pips() as u32, dice.low().pips() as u32);
    count_dispatch(&board, high, low).max(1)
}

/// [`Position::generate_moves`], inlined into each instruction-set build.
#[inline(always)]
fn generate(position: &Position, dice: Dice, list: &mut MoveList) {
    // Borrowed field by field, so that the cached board is read in place, not copied.
    let MoveList {
        origin,
        dice: list_dice,
        len,
        keys,
        codes,
        prepared,
    } = list;
    *origin = *position;
    *list_dice = dice;
    *len = fill(position, dice, keys, codes, prepared);
    #[cfg(debug_assertions)]
    if let Some(board) = list.prepared.as_ref().and_then(|p| p.board.as_ref()) {
        let (start, blocked) = (board.start, board.blocked);
        debug_check(list, &start, blocked);
    }
}

/// Writes the results of `position` and `dice` into `keys` and `codes`, preparing the
/// board into `prepared` unless it holds this position's already; returns how many (a pass
/// is one, a finished game none).
#[inline(always)]
fn fill(
    position: &Position,
    dice: Dice,
    keys: &mut [u128; BUFFER],
    codes: &mut [u32; BUFFER],
    prepared: &mut Option<Prepared>,
) -> usize {
    if !matches!(prepared, Some(p) if p.position == *position) {
        *prepared = Some(prepare(position));
    }
    let Some(board) = prepared.as_ref().and_then(|p| p.board.as_ref()) else {
        return 0;
    };
    let (high, low) = (dice.high().pips() as u32, dice.low().pips() as u32);
    match write_all(keys, codes, board, high, low) {
        0 => {
            // R10: no legal play, the pass.
            keys[0] = board.start.key();
            codes[0] = 0;
            1
        }
        n => n,
    }
}

/// The keys of the results of `position` and `dice`, as [`Position::generate_moves`] lists
/// them, written into `keys` instead of a list; `scratch` lends its prepared board and move
/// codes, and is left empty. Returns how many. For writers that keep many lists' keys side
/// by side (`rows::par_generate_rows`), which then need no copy.
pub(crate) fn generate_keys(
    position: &Position,
    dice: Dice,
    scratch: &mut MoveList,
    keys: &mut [u128; BUFFER],
) -> usize {
    scratch.len = 0;
    #[cfg(target_arch = "x86_64")]
    if fast_isa() {
        // SAFETY: fast_isa() detected every feature fill_fast_isa is compiled for.
        return unsafe {
            fill_fast_isa(
                position,
                dice,
                keys,
                &mut scratch.codes,
                &mut scratch.prepared,
            )
        };
    }
    fill(
        position,
        dice,
        keys,
        &mut scratch.codes,
        &mut scratch.prepared,
    )
}

/// Writes the results of a roll into the buffers; returns how many.
#[inline(always)]
fn write_all(
    keys: &mut [u128; BUFFER],
    codes: &mut [u32; BUFFER],
    board: &Board,
    high: u32,
    low: u32,
) -> usize {
    if high == low {
        let mut writer = Writer::<false> { keys, codes, n: 0 };
        generate_constructive(&mut writer, board, high, low);
        writer.n
    } else {
        let mut writer = Writer::<true> { keys, codes, n: 0 };
        generate_constructive(&mut writer, board, high, low);
        writer.n
    }
}

/// Counts the results of a roll.
#[inline(always)]
fn count_all(board: &Board, high: u32, low: u32) -> usize {
    let mut counter = Counter(0);
    generate_constructive(&mut counter, board, high, low);
    counter.0
}

// The generator is all inlined code, so it can be compiled twice: for the x86-64 baseline,
// and for CPUs with BMI1/BMI2/LZCNT/POPCNT (most x86-64 CPUs since 2013-2015), where
// variable shifts, leading zeros and bit counts are single instructions (about 8% faster).
// The choice is made at run time, once.

/// [`generate`] compiled for x86-64-v3 CPUs (AVX2, BMI1, BMI2, LZCNT, POPCNT, ...).
///
/// # Safety
/// The CPU must have those features ([`fast_isa`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,bmi1,bmi2,fma,lzcnt,movbe,popcnt,sse3,sse4.1,sse4.2,ssse3")]
unsafe fn generate_fast_isa(position: &Position, dice: Dice, list: &mut MoveList) {
    generate(position, dice, list)
}

/// [`fill`] compiled for x86-64-v3 CPUs, like [`generate_fast_isa`].
///
/// # Safety
/// The CPU must have those features ([`fast_isa`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,bmi1,bmi2,fma,lzcnt,movbe,popcnt,sse3,sse4.1,sse4.2,ssse3")]
unsafe fn fill_fast_isa(
    position: &Position,
    dice: Dice,
    keys: &mut [u128; BUFFER],
    codes: &mut [u32; BUFFER],
    prepared: &mut Option<Prepared>,
) -> usize {
    fill(position, dice, keys, codes, prepared)
}

/// [`count_all`] compiled for x86-64-v3 CPUs, like [`generate_fast_isa`].
///
/// # Safety
/// The CPU must have those features ([`fast_isa`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,bmi1,bmi2,fma,lzcnt,movbe,popcnt,sse3,sse4.1,sse4.2,ssse3")]
unsafe fn count_all_fast_isa(board: &Board, high: u32, low: u32) -> usize {
    count_all(board, high, low)
}

/// Whether the CPU has every feature of the x86-64-v3 build.
#[cfg(target_arch = "x86_64")]
fn cpu_has_fast_isa() -> bool {
    std::is_x86_feature_detected!("avx")
        && std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("fma")
        && std::is_x86_feature_detected!("lzcnt")
        && std::is_x86_feature_detected!("movbe")
        && std::is_x86_feature_detected!("popcnt")
        && std::is_x86_feature_detected!("sse3")
        && std::is_x86_feature_detected!("sse4.1")
        && std::is_x86_feature_detected!("sse4.2")
        && std::is_x86_feature_detected!("ssse3")
}

/// Whether the x86-64-v3 build runs: the CPU has it and the baseline is not forced
/// ([`crate::isa`]).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn fast_isa() -> bool {
    crate::isa::fast_generator(cpu_has_fast_isa)
}

/// The name of the generator build that runs (see [`crate::isa::report`]).
pub(crate) fn isa_name() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    return if fast_isa() {
        "x86-64-v3"
    } else {
        "x86-64 baseline"
    };
    #[cfg(not(target_arch = "x86_64"))]
    "portable"
}

/// Tests only: [`crate::isa::force_baseline`], kept under its old name.
#[doc(hidden)]
pub fn force_baseline_isa(baseline: bool) {
    crate::isa::force_baseline(baseline);
}

#[inline(always)]
fn count_dispatch(board: &Board, high: u32, low: u32) -> usize {
    #[cfg(target_arch = "x86_64")]
    if fast_isa() {
        // SAFETY: fast_isa() detected every feature count_all_fast_isa is compiled for.
        return unsafe { count_all_fast_isa(board, high, low) };
    }
    count_all(board, high, low)
}

/// Every roll except a non-double that may bear off: no deduplication needed.
#[inline(always)]
fn generate_constructive<S: Sink>(sink: &mut S, board: &Board, high: u32, low: u32) {
    let (start, blocked) = (&board.start, board.blocked);
    if high == low {
        let on_bar = start.occupied & BAR_BIT != 0;
        match (board.outside >= 4, on_bar) {
            (true, false) => double_on_masks::<S, false, false>(sink, start, blocked, high),
            (true, true) => double_on_masks::<S, true, false>(sink, start, blocked, high),
            (false, false) => double_on_masks::<S, false, true>(sink, start, blocked, high),
            (false, true) => generate_double(sink, start, blocked, high),
        }
        return;
    }
    match (start.own >> (4 * BAR)) & 0xF {
        0 if board.bear_off => both_dice_bear_off(sink, start, blocked, high, low),
        0 => both_dice_free(sink, start, blocked, board.multi, high, low),
        1 => both_dice_one_on_bar(sink, start, blocked, high, low),
        _ => {
            // R12: two or more on the bar: both dice can only enter.
            let (ea, eb) = (BAR as u32 - high, BAR as u32 - low);
            if blocked & ((1 << ea) | (1 << eb)) == 0 {
                let key = start.own - step_delta(BAR as u32, high) - step_delta(BAR as u32, low);
                let hits = start.blots & ((1 << ea) | (1 << eb));
                sink.push(key | hit_key(hits), code2(BAR as u32, BAR as u32, false));
            }
        }
    }
    // Nothing uses both dice.
    if sink.is_empty() {
        one_die(sink, start, blocked, high, low);
    }
}
