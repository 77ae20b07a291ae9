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
const BUFFER: usize = 4096;
const _: () = assert!(MAX_PLAYS <= BUFFER && BUFFER.is_power_of_two());

const BAR_BIT: u32 = 1 << BAR;
/// Points 1..=6.
const HOME_BITS: u32 = 0b111_1110;
/// The mover's packed checkers occupy key bits 4..104; the blots hit fill the rest.
const CHECKER_KEY_BITS: u128 = (1u128 << 104) - 1;

/// Move codes: bits 0..3 the number of steps, bit 3 set when the low die moves first, then
/// five bits per step for its source point.
const LOW_FIRST: u32 = 1 << 3;
const LEN_BITS: u32 = 0b111;

#[inline(always)]
const fn unit(point: u32) -> u128 {
    1u128 << (4 * point)
}

/// `STEPS[d][p]`: what moving one checker `d` pips from point `p` subtracts from the packed
/// board (a table lookup is cheaper than two variable 128-bit shifts); bearing off for
/// `p <= d`. Indexed with `& 7` and `& 31` so that no bounds check remains.
static STEPS: [[u128; 32]; 8] = {
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
static NIBBLES: [u128; 32] = {
    let mut table = [0u128; 32];
    let mut p = 0;
    while p < 26 {
        table[p] = 0xF << (4 * p);
        p += 1;
    }
    table
};

#[inline(always)]
fn step_delta(from: u32, die: u32) -> u128 {
    STEPS[(die & 7) as usize][(from & 31) as usize]
}

/// The key bits recording the blots hit (bit `p` of `hits` = point `p`).
#[inline(always)]
const fn hit_key(hits: u32) -> u128 {
    ((hits >> 1) as u128) << 104
}

#[inline(always)]
const fn code2(first: u32, second: u32, low_first: bool) -> u32 {
    2 | (if low_first { LOW_FIRST } else { 0 }) | (first << 4) | (second << 9)
}

/// The mover's side of the board while a play is built.
#[derive(Clone, Copy)]
struct Scratch {
    own: u128,
    occupied: u32,
    blots: u32,
    hits: u32,
}

impl Scratch {
    #[inline(always)]
    fn key(&self) -> u128 {
        self.own | hit_key(self.hits)
    }

    /// The source points from which a checker can legally move `die` pips (R6, R7, R12–R14).
    #[inline(always)]
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
    #[inline(always)]
    fn step(&self, from: u32, die: u32) -> Scratch {
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
    fn key_after(&self, from: u32, die: u32) -> u128 {
        let to = from.saturating_sub(die);
        (self.own - step_delta(from, die)) | hit_key(self.hits | (self.blots & (1 << to)))
    }
}

/// A reusable buffer of legal moves: the distinct results of one position and roll, each with
/// one move that reaches it. Allocates once in [`MoveList::new`]; generating into it never
/// allocates again.
pub struct MoveList {
    origin: Position,
    dice: Dice,
    len: usize,
    keys: Box<[u128; BUFFER]>,
    codes: Box<[u32; BUFFER]>,
    /// The scratch board of `origin`, kept for the next call: engines and perft generate
    /// all 21 rolls of one position in a row. `None` until the first call.
    prepared: Option<Prepared>,
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

    /// The position the moves were generated from.
    #[inline]
    pub fn origin(&self) -> Position {
        self.origin
    }

    /// The roll the moves were generated for.
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
    /// the move was generated from.
    #[inline]
    pub fn result(&self, origin: &Position) -> Position {
        result_of(origin, self.key)
    }

    /// The move's steps; `origin` and `dice` must be those it was generated for.
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
    let hits = ((key >> 104) as u32) << 1;
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

/// What generation needs of a position that is still being played, computed once per
/// position: the scratch board, the opponent's blocked points (in the mover's numbering),
/// the mover's points with two or more checkers, how many checkers are outside home (the bar
/// counts), and whether a non-double may bear off.
#[derive(Clone, Copy)]
struct Board {
    start: Scratch,
    blocked: u32,
    multi: u32,
    outside: u8,
    bear_off: bool,
}

/// A position made ready for generation: its [`Board`], or `None` once the game is over.
#[derive(Clone, Copy)]
pub(crate) struct Prepared {
    position: Position,
    board: Option<Board>,
}

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
    *len = 0;
    if !matches!(prepared, Some(p) if p.position == *position) {
        *prepared = Some(prepare(position));
    }
    let Some(board) = prepared.as_ref().and_then(|p| p.board.as_ref()) else {
        return;
    };
    let (high, low) = (dice.high().pips() as u32, dice.low().pips() as u32);
    *len = write_all(keys, codes, board, high, low);
    if *len == 0 {
        // R10: no legal play, the pass.
        keys[0] = board.start.key();
        codes[0] = 0;
        *len = 1;
    }
    #[cfg(debug_assertions)]
    {
        let (start, blocked) = (board.start, board.blocked);
        debug_check(list, &start, blocked);
    }
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

/// [`count_all`] compiled for x86-64-v3 CPUs, like [`generate_fast_isa`].
///
/// # Safety
/// The CPU must have those features ([`fast_isa`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,bmi1,bmi2,fma,lzcnt,movbe,popcnt,sse3,sse4.1,sse4.2,ssse3")]
unsafe fn count_all_fast_isa(board: &Board, high: u32, low: u32) -> usize {
    count_all(board, high, low)
}

/// 0: not checked yet, 1: baseline only, 2: BMI1, BMI2, LZCNT and POPCNT available.
#[cfg(target_arch = "x86_64")]
static FAST_ISA: core::sync::atomic::AtomicU8 = core::sync::atomic::AtomicU8::new(0);

/// Whether the CPU has BMI1, BMI2, LZCNT and POPCNT (checked once).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn fast_isa() -> bool {
    use core::sync::atomic::Ordering::Relaxed;
    match FAST_ISA.load(Relaxed) {
        0 => {
            let has = std::is_x86_feature_detected!("avx")
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
                && std::is_x86_feature_detected!("ssse3");
            FAST_ISA.store(if has { 2 } else { 1 }, Relaxed);
            has
        }
        state => state == 2,
    }
}

/// Tests only: run the baseline code even on a CPU with the faster instructions (`true`), or
/// detect again (`false`). Both compile the same source; the tests run the corpora both ways.
#[doc(hidden)]
pub fn force_baseline_isa(baseline: bool) {
    #[cfg(target_arch = "x86_64")]
    FAST_ISA.store(
        if baseline { 1 } else { 0 },
        core::sync::atomic::Ordering::Relaxed,
    );
    #[cfg(not(target_arch = "x86_64"))]
    let _ = baseline;
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

/// Where the constructive generators put results: the list's buffers, or a counter.
trait Sink {
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
struct Writer<'a, const CODES: bool> {
    keys: &'a mut [u128; BUFFER],
    codes: &'a mut [u32; BUFFER],
    n: usize,
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
struct Counter(usize);

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

/// Debug builds: keys are distinct, [`Position::count_moves`] agrees, and a non-double list
/// has exactly the results of trying both orders of the dice with a hash set.
#[cfg(debug_assertions)]
fn debug_check(list: &MoveList, start: &Scratch, blocked: u32) {
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

/// R8 with no checker on the bar and no bear-off: the canonical forms of the module doc.
#[inline(always)]
fn both_dice_free<S: Sink>(
    sink: &mut S,
    start: &Scratch,
    blocked: u32,
    two_or_more: u32,
    a: u32,
    b: u32,
) {
    let (own, occupied, blots) = (start.own, start.occupied, start.blots);
    let movable_a = occupied & !(blocked << a) & (!0u32 << (a + 1));
    let movable_b = occupied & !(blocked << b) & (!0u32 << (b + 1));
    let hit_from_b = blots << b;
    // Two checkers: x moves a, y moves b.
    for x in bits(movable_a) {
        let xa = x - a;
        let after_x = (own - step_delta(x, a)) | hit_key(blots & (1 << xa));
        // Not from x - a or onto x (one checker moving twice); from x only if two are there.
        let ys = movable_b & !(1 << xa) & !(1 << (x + b)) & (!(1 << x) | two_or_more);
        push_steps(sink, ys, after_x, b, hit_from_b, |y| code2(x, y, false));
    }
    // One checker moves a + b.
    let ab = a + b;
    let zs = (movable_a | movable_b) & !(blocked << ab) & (!0u32 << (ab + 1));
    for z in bits(zs) {
        let moved =
            (own - step_delta(z, a) - step_delta(z - a, b)) | hit_key(blots & (1 << (z - ab)));
        chain(sink, moved, z, movable_a, movable_b, blots, a, b);
    }
}

/// The one or two results of one checker moving from `z` through `z - a` or `z - b`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn chain<S: Sink>(
    sink: &mut S,
    moved: u128,
    z: u32,
    movable_a: u32,
    movable_b: u32,
    blots: u32,
    a: u32,
    b: u32,
) {
    let via_a = movable_a & (1 << z) != 0;
    let hit_a = blots & (1 << (z - a));
    let hit_b = blots & (1 << (z - b));
    if via_a {
        sink.push(moved | hit_key(hit_a), code2(z, z - a, false));
    }
    // Through z - b: a new result unless the route through z - a hit nothing on the way too.
    if movable_b & (1 << z) != 0 && !(via_a && hit_a == 0 && hit_b == 0) {
        sink.push(moved | hit_key(hit_b), code2(z, z - b, true));
    }
}

/// R8 with exactly one checker on the bar (R12: it enters first); no bear-off is possible.
#[inline(always)]
fn both_dice_one_on_bar<S: Sink>(sink: &mut S, start: &Scratch, blocked: u32, a: u32, b: u32) {
    let bar = BAR as u32;
    let (own, blots) = (start.own, start.blots);
    let board = start.occupied & !BAR_BIT;
    let (ea, eb) = (bar - a, bar - b);
    let open_a = if blocked & (1 << ea) == 0 {
        1u32 << bar
    } else {
        0
    };
    let open_b = if blocked & (1 << eb) == 0 {
        1u32 << bar
    } else {
        0
    };
    // Two checkers: the entering one and one already on the board.
    for (second, entry, open, low_first) in [(b, ea, open_a, false), (a, eb, open_b, true)] {
        if open == 0 {
            continue;
        }
        let after = (own - step_delta(bar, bar - entry)) | hit_key(blots & (1 << entry));
        let ys = board & !(blocked << second) & (!0u32 << (second + 1)) & !(1 << entry);
        push_steps(sink, ys, after, second, blots << second, |y| {
            code2(bar, y, low_first)
        });
    }
    // The entering checker moves on with the other die.
    let fin = bar - a - b;
    if blocked & (1 << fin) == 0 && (open_a | open_b) != 0 {
        let moved =
            (own - step_delta(bar, a) - step_delta(bar - a, b)) | hit_key(blots & (1 << fin));
        chain(sink, moved, bar, open_a, open_b, blots, a, b);
    }
}

/// R9: no play uses both dice; the higher die if it can move, else the lower. Distinct
/// sources give distinct results, so no deduplication is needed.
#[inline(always)]
fn one_die<S: Sink>(sink: &mut S, start: &Scratch, blocked: u32, high: u32, low: u32) {
    for (die, flag) in [(high, 0), (low, LOW_FIRST)] {
        let sources = start.movable(die, blocked);
        push_steps(sink, sources, start.key(), die, start.blots << die, |f| {
            1 | flag | (f << 4)
        });
        if sources != 0 {
            return;
        }
    }
}

/// R8 for a non-double when a bear-off is possible (at most one checker outside home, none
/// on the bar). The canonical forms of the module doc still list every result, but which
/// single moves are legal now depends on the order (R14: a higher die bears off only the
/// rearmost checker), so each form is checked in both orders through the general
/// [`Scratch::movable`], and a bear-off adds one coincidence: two checkers borne off by
/// `a` and `b` either way round leave the same board.
#[inline(always)]
fn both_dice_bear_off<S: Sink>(sink: &mut S, start: &Scratch, blocked: u32, a: u32, b: u32) {
    let movable_a = start.movable(a, blocked);
    let movable_b = start.movable(b, blocked);
    // Points left empty when one checker leaves them.
    let singles = start.occupied & !Checkers::from_bits_unchecked(start.own).made().bits();
    // The sources that can move `second` once a checker has moved `first` from `from`
    // (Scratch::step then Scratch::movable, on the masks alone: no bar here).
    let movable_after = |from: u32, first: u32, second: u32| {
        let mut occupied = start.occupied & !(singles & (1 << from));
        if from > first {
            occupied |= 1 << (from - first);
        }
        let mut movable = occupied & !(blocked << second) & (!0u32 << (second + 1));
        if occupied & !HOME_BITS == 0 && occupied != 0 {
            movable |= occupied & (1 << second);
            let highest = 31 - occupied.leading_zeros();
            if highest < second {
                movable |= 1 << highest;
            }
        }
        movable
    };
    // b_after_a[x]: the sources that can move b once a checker has moved a from x; and the
    // other way round. Sources are home points or the one point outside, which gets slot 7.
    let slot = |p: u32| p.min(7) as usize;
    let mut b_after_a = [0u32; 8];
    let mut a_after_b = [0u32; 8];
    for x in bits(movable_a) {
        b_after_a[slot(x)] = movable_after(x, a, b);
    }
    for y in bits(movable_b) {
        a_after_b[slot(y)] = movable_after(y, b, a);
    }
    let a_then_b = |x: u32, y: u32| movable_a & (1 << x) != 0 && b_after_a[slot(x)] & (1 << y) != 0;
    let b_then_a = |x: u32, y: u32| movable_b & (1 << y) != 0 && a_after_b[slot(y)] & (1 << x) != 0;
    // x bears off with a and y with b; the same board as y with a and x with b, listed once:
    // from the pair whose a-checker stands higher.
    let repeated_bear_off =
        |x: u32, y: u32| x <= b && y <= b && x < y && (a_then_b(y, x) || b_then_a(y, x));
    let key = |x: u32, y: u32| {
        let landing = |p: u32, d: u32| {
            if p > d {
                start.blots & (1 << (p - d))
            } else {
                0
            }
        };
        (start.own - step_delta(x, a) - step_delta(y, b)) | hit_key(landing(x, a) | landing(y, b))
    };
    // Two checkers, x moving a and y moving b; a second step from the first one's landing
    // point or onto its starting point is one checker moving twice (below).
    for x in bits(movable_a) {
        let landed = if x > a { 1 << (x - a) } else { 0 };
        let ys = b_after_a[slot(x)] & !landed & !(1 << (x + b));
        for y in bits(ys) {
            if !repeated_bear_off(x, y) {
                sink.push(key(x, y), code2(x, y, false));
            }
        }
    }
    for y in bits(movable_b) {
        let landed = if y > b { 1 << (y - b) } else { 0 };
        let xs = a_after_b[slot(y)] & !landed & !(1 << (y + a));
        for x in bits(xs) {
            if !a_then_b(x, y) && !repeated_bear_off(x, y) {
                sink.push(key(x, y), code2(y, x, true));
            }
        }
    }
    // One checker moves a + b, through z - a or z - b (and may bear off at the end).
    for z in bits((movable_a | movable_b) & !0u32 << (b + 1)) {
        let via_a = z > a && a_then_b(z, z - a);
        let via_b = b_then_a(z - b, z);
        if !(via_a || via_b) {
            continue;
        }
        let end = z.saturating_sub(a + b);
        let board = if via_a {
            start.own - step_delta(z, a) - step_delta(z - a, b)
        } else {
            start.own - step_delta(z, b) - step_delta(z - b, a)
        };
        let hit_end = if end > 0 { start.blots & (1 << end) } else { 0 };
        let hit_a = if via_a {
            start.blots & (1 << (z - a))
        } else {
            0
        };
        let hit_b = start.blots & (1 << (z - b));
        if via_a {
            sink.push(board | hit_key(hit_end | hit_a), code2(z, z - a, false));
        }
        if via_b && !(via_a && hit_a == 0 && hit_b == 0) {
            sink.push(board | hit_key(hit_end | hit_b), code2(z, z - b, true));
        }
    }
}

/// How many checkers stand outside the home board: on points 7..=24 or the bar.
#[inline(always)]
fn outside_home(own: u128) -> u8 {
    Checkers::from_bits_unchecked((own >> 28) << 28).on_board()
}

/// Sources no higher than `point` (doubles take non-increasing sources).
#[inline(always)]
fn up_to(point: u32) -> u32 {
    (2u32 << point) - 1
}

/// The key bit recording a hit by the checker moving from `from`, if `hit_from` has it:
/// bit `from` of `hit_from` moved up by `shift` within the key's high word.
#[inline(always)]
fn hit_bit(hit_from: u32, from: u32, shift: u32) -> u128 {
    (((hit_from & (1 << from)) as u64) << shift) as u128 * (1u128 << 64)
}

/// Doubles on masks alone, the same enumeration as [`generate_double`]. Without `BEAR_OFF`
/// at least four checkers are outside the home board (the bar counts), so that none can be
/// borne off this turn (each step brings at most one home) and a source only needs a checker
/// and an open landing point: the common case. `BAR_RULE` makes the bar the only source while
/// a checker is there (R12); `BEAR_OFF` adds R13 and R14 (never with a checker on the bar).
#[inline(always)]
fn double_on_masks<S: Sink, const BAR_RULE: bool, const BEAR_OFF: bool>(
    sink: &mut S,
    start: &Scratch,
    blocked: u32,
    die: u32,
) {
    let (own, occupied, blots) = (start.own, start.occupied, start.blots);
    let steps = &STEPS[(die & 7) as usize];
    // Sources whose landing point is open (and on the board).
    let open = !(blocked << die) & (!0u32 << (die + 1));
    // The sources at a step, no higher than `limit` (the previous step's source); R12:
    // while a checker is on the bar, only the bar.
    let sources = |occupied: u32, limit: u32| {
        let mut movable = occupied & open & limit;
        if BAR_RULE && occupied & BAR_BIT != 0 {
            movable &= BAR_BIT;
        }
        // R13, R14 as in Scratch::movable.
        if BEAR_OFF && occupied & !HOME_BITS == 0 && occupied != 0 {
            movable |= occupied & (1 << die) & limit;
            let highest = 31 - occupied.leading_zeros();
            if highest < die {
                movable |= (1 << highest) & limit;
            }
        }
        movable
    };
    // The landing point's bit; bearing off lands on bit 0, which no mask keeps.
    let landing = |from: u32| {
        if BEAR_OFF {
            (1u32 << from.saturating_sub(die)) & !1
        } else {
            1 << (from - die)
        }
    };
    // Sources whose landing point holds a blot, and the shift from such a source's bit to
    // the key bit of the hit: key bit 103 + p (bit 39 + p of the high word) records a hit on
    // point p = source - die.
    let hit_from = blots << die;
    let hit_shift = 39 - die;
    let mut longest = 1;
    for f1 in bits(sources(occupied, !0)) {
        let key1 = (own - steps[(f1 & 31) as usize]) | hit_bit(hit_from, f1, hit_shift);
        let mut occ1 = occupied | landing(f1);
        if key1 & NIBBLES[(f1 & 31) as usize] == 0 {
            occ1 &= !(1 << f1);
        }
        let c1 = f1 << 4;
        let m2 = sources(occ1, up_to(f1));
        if m2 == 0 {
            if longest == 1 {
                sink.push(key1, c1 | 1);
            }
            continue;
        }
        if longest < 2 {
            sink.clear();
            longest = 2;
        }
        for f2 in bits(m2) {
            let key2 = (key1 - steps[(f2 & 31) as usize]) | hit_bit(hit_from, f2, hit_shift);
            let mut occ2 = occ1 | landing(f2);
            if key2 & NIBBLES[(f2 & 31) as usize] == 0 {
                occ2 &= !(1 << f2);
            }
            let c2 = c1 | (f2 << 9);
            let m3 = sources(occ2, up_to(f2));
            if m3 == 0 {
                if longest == 2 {
                    sink.push(key2, c2 | 2);
                }
                continue;
            }
            if longest < 3 {
                sink.clear();
                longest = 3;
            }
            // The third step from each source, those that hit nothing first (no hit bit).
            let mut third = |f3: u32, key3: u128| {
                let mut occ3 = occ2 | landing(f3);
                if key3 & NIBBLES[(f3 & 31) as usize] == 0 {
                    occ3 &= !(1 << f3);
                }
                let c3 = c2 | (f3 << 14);
                let m4 = sources(occ3, up_to(f3));
                if m4 == 0 {
                    if longest == 3 {
                        sink.push(key3, c3 | 3);
                    }
                    return;
                }
                if longest < 4 {
                    sink.clear();
                    longest = 4;
                }
                push_steps(sink, m4, key3, die, hit_from, |f4| c3 | 4 | (f4 << 19));
            };
            for f3 in bits(m3 & !hit_from) {
                third(f3, key2 - steps[(f3 & 31) as usize]);
            }
            for f3 in bits(m3 & hit_from) {
                third(
                    f3,
                    (key2 - steps[(f3 & 31) as usize]) | HIT_KEYS[((f3 - die) & 31) as usize],
                );
            }
        }
    }
}

/// Doubles as four nested loops over non-increasing sources (see the module doc), keeping only
/// the longest plays (R5, R8): the general case, with checkers on the bar or bear-offs.
fn generate_double<S: Sink>(sink: &mut S, start: &Scratch, blocked: u32, die: u32) {
    let mut longest = 1;
    for f1 in bits(start.movable(die, blocked)) {
        let s1 = start.step(f1, die);
        let c1 = f1 << 4;
        let m2 = s1.movable(die, blocked) & up_to(f1);
        if m2 == 0 {
            if longest == 1 {
                sink.push(s1.key(), c1 | 1);
            }
            continue;
        }
        if longest < 2 {
            sink.clear();
            longest = 2;
        }
        for f2 in bits(m2) {
            let s2 = s1.step(f2, die);
            let c2 = c1 | (f2 << 9);
            let m3 = s2.movable(die, blocked) & up_to(f2);
            if m3 == 0 {
                if longest == 2 {
                    sink.push(s2.key(), c2 | 2);
                }
                continue;
            }
            if longest < 3 {
                sink.clear();
                longest = 3;
            }
            for f3 in bits(m3) {
                let s3 = s2.step(f3, die);
                let c3 = c2 | (f3 << 14);
                let m4 = s3.movable(die, blocked) & up_to(f3);
                if m4 == 0 {
                    if longest == 3 {
                        sink.push(s3.key(), c3 | 3);
                    }
                    continue;
                }
                if longest < 4 {
                    sink.clear();
                    longest = 4;
                }
                let hit_from = s3.blots << die;
                push_steps(sink, m4, s3.key(), die, hit_from, |f4| c3 | 4 | (f4 << 19));
            }
        }
    }
}

/// `HIT_KEYS[p]`: the key bit recording a hit on point `p` (1..=24).
static HIT_KEYS: [u128; 32] = {
    let mut table = [0u128; 32];
    let mut p = 1;
    while p <= 24 {
        table[p] = hit_key(1 << p);
        p += 1;
    }
    table
};

/// One result per source `f` in `sources`: `base` with one more checker moved `die` pips
/// from `f`, hitting the blot there when `hit_from` has `f`. Sources that hit nothing (most)
/// take a subtraction and a store each.
#[inline(always)]
fn push_steps<S: Sink>(
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

/// The set bits of a mask, lowest first.
#[inline(always)]
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
