//! `libbgfast`: bgfast's C ABI, for programs in C, C++ and any language with a C foreign
//! function interface.
//!
//! The header `include/bgfast.h` is generated from this file by cbindgen (the `header`
//! test fails when it is stale). Every function:
//!
//! - validates its input (null pointers, text that is not a Position ID, counts that are
//!   no position, dice outside 1..6, buffers too small) and returns `BGFAST_OK` or a
//!   non-zero `BGFAST_ERROR_*` code, never writing past a buffer it was given;
//! - records a message for `bgfast_last_error` (per thread; empty after a success), in
//!   place in the thread's own buffer, so that a pointer to it never dangles;
//!   `bgfast_version` and `bgfast_last_error` itself, which cannot fail, leave it as it is;
//! - lets no panic cross the boundary: one is caught and reported as
//!   `BGFAST_ERROR_INTERNAL`.
//!
//! A position is `bgfast_position`, laid out as bgfast's Python arrays.

#![allow(non_camel_case_types)]

use std::cell::{RefCell, UnsafeCell};
use std::ffi::{c_char, c_int, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

mod rollout;
pub use rollout::*;

use bgfast_core::codec::{gnubg_id, move_text};
use bgfast_core::{Dice, MoveList, Position};
use bgfast_engine::{Evaluator, Net, Probabilities};

/// The call succeeded.
pub const BGFAST_OK: c_int = 0;
/// A pointer argument was null.
pub const BGFAST_ERROR_NULL: c_int = 1;
/// The text is not a GNU Backgammon Position ID (or not UTF-8).
pub const BGFAST_ERROR_INVALID_ID: c_int = 2;
/// The counts do not make a legal position (more than 15 checkers, both sides on one
/// point, ...); the message lists every violation.
pub const BGFAST_ERROR_INVALID_POSITION: c_int = 3;
/// A die is not 1 to 6.
pub const BGFAST_ERROR_INVALID_DICE: c_int = 4;
/// The results do not fit in the buffer given, and nothing is written: `bgfast_moves` sets
/// `*count` to how many there are; for the text functions the message says the bytes
/// needed (`BGFAST_MOVE_TEXT_BUFFER` always suffices).
pub const BGFAST_ERROR_BUFFER_TOO_SMALL: c_int = 5;
/// The game is over: one side has borne off all 15 checkers (R15); there are no moves
/// (`bgfast_moves` sets `*count` to 0).
pub const BGFAST_ERROR_GAME_OVER: c_int = 6;
/// A bug in bgfast (a caught panic); the message says where.
pub const BGFAST_ERROR_INTERNAL: c_int = 7;
/// The result given is not one of the roll's legal results (R8).
pub const BGFAST_ERROR_ILLEGAL_MOVE: c_int = 8;
/// An argument out of its range (a thread count above 256, a batch too large to address).
pub const BGFAST_ERROR_INVALID_ARGUMENT: c_int = 9;

/// The most distinct results one position and roll can have (no position and roll
/// exceeds 3,060 complete plays): a `results` buffer this long always suffices.
pub const BGFAST_MAX_MOVES: usize = 3060;
const _: () = assert!(BGFAST_MAX_MOVES == bgfast_core::MAX_PLAYS);

/// The bytes a Position ID needs: 14 characters and the terminating NUL.
pub const BGFAST_ID_BUFFER: usize = 15;

/// Bytes that always hold a play's text and its NUL. A play writes at most four chains of
/// points, with their hits, separators and counts: under 48 bytes.
pub const BGFAST_MOVE_TEXT_BUFFER: usize = 64;

/// The most threads a call may ask for (as every entry point of bgfast).
const MAX_THREADS: usize = bgfast_core::threads::MAX_THREADS;

/// Positions evaluated in one step of `bgfast_evaluate_batch` (its buffers' size).
const EVALUATION_SLICE: usize = 1 << 16;

/// A backgammon position seen from the side to move, as bgfast's Python arrays:
/// `checkers[0]` is the side to move, `checkers[1]` the opponent; index 0..23 is that
/// side's own point 1..24, index 24 its bar. Checkers not on the board are borne off.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct bgfast_position {
    /// Counts: `[side][point - 1]`, `[side][24]` the bar.
    pub checkers: [[u8; 25]; 2],
}

/// Bytes of the buffer behind `bgfast_last_error`, its NUL included: a longer message is
/// cut at a character boundary and ends in "...".
pub const BGFAST_MESSAGE_ROOM: usize = 1024;

thread_local! {
    /// This thread's last message, NUL-terminated, overwritten in place by each call, so
    /// that the pointer `bgfast_last_error` returns stays valid for the thread's life (a
    /// call in the same `printf` as that pointer must not free what it points to). Const,
    /// without a destructor: it lasts while the thread exits too.
    static LAST_ERROR: UnsafeCell<[u8; BGFAST_MESSAGE_ROOM]> =
        const { UnsafeCell::new([0; BGFAST_MESSAGE_ROOM]) };
    /// Each thread's move list, reused from call to call (no allocation per call).
    static MOVES: RefCell<MoveList> = RefCell::new(MoveList::new());
}

/// A refused call: the code returned and the message kept for `bgfast_last_error`.
#[derive(Debug)]
struct Failure {
    code: c_int,
    message: String,
}

impl Failure {
    fn new(code: c_int, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
        }
    }

    fn null(what: &str) -> Failure {
        Failure::new(BGFAST_ERROR_NULL, format!("{what} is a null pointer"))
    }
}

/// Keeps `message` for `bgfast_last_error`, cut to [`BGFAST_MESSAGE_ROOM`].
fn set_last_error(message: &str) {
    // A message never holds a NUL byte (all are written here); keep what precedes one.
    let text = message.split('\0').next().unwrap_or_default();
    let _ = LAST_ERROR.try_with(|buffer| {
        // SAFETY: the buffer is this thread's, and no reference to it outlives this call
        // (C holds only a pointer, and reads through it between calls).
        let buffer = unsafe { &mut *buffer.get() };
        write_message(buffer, text);
    });
}

/// Writes `text` and a NUL into `buffer`, cut at a character boundary and ended by "..."
/// when it does not fit.
fn write_message(buffer: &mut [u8; BGFAST_MESSAGE_ROOM], text: &str) {
    const CUT: &str = "...";
    let (kept, tail) = if text.len() < BGFAST_MESSAGE_ROOM {
        (text, "")
    } else {
        let mut end = BGFAST_MESSAGE_ROOM - 1 - CUT.len();
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        (&text[..end], CUT)
    };
    let (head, rest) = buffer.split_at_mut(kept.len());
    head.copy_from_slice(kept.as_bytes());
    rest[..tail.len()].copy_from_slice(tail.as_bytes());
    rest[tail.len()] = 0;
}

/// Runs `f` on this thread's reusable move list, or on a fresh one while the thread exits
/// (C `atexit` handlers and `pthread_key_create` destructors run after Rust's thread-locals
/// with destructors are gone).
fn with_move_list<T>(f: impl FnOnce(&mut MoveList) -> T) -> T {
    let mut list = MOVES.try_with(RefCell::take).unwrap_or_default();
    let value = f(&mut list);
    let _ = MOVES.try_with(|kept| kept.replace(list));
    value
}

/// Runs `body`, catching a panic, and turns its outcome into a code and a message.
fn guard(body: impl FnOnce() -> Result<(), Failure>) -> c_int {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => {
            set_last_error("");
            BGFAST_OK
        }
        Ok(Err(failure)) => {
            set_last_error(&failure.message);
            failure.code
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_string());
            set_last_error(&format!("internal error in bgfast: {what}"));
            BGFAST_ERROR_INTERNAL
        }
    }
}

/// The validated position behind `pos`.
///
/// # Safety
/// `pos` is null or points to a readable `bgfast_position`.
unsafe fn read_position(pos: *const bgfast_position) -> Result<Position, Failure> {
    // SAFETY: the caller promises a readable struct or null; null is refused.
    let pos = unsafe { pos.as_ref() }.ok_or_else(|| Failure::null("pos"))?;
    Position::from_counts(&pos.checkers[0], &pos.checkers[1])
        .map_err(|e| Failure::new(BGFAST_ERROR_INVALID_POSITION, e.to_string()))
}

fn to_struct(position: &Position) -> bgfast_position {
    bgfast_position {
        checkers: position.to_counts(),
    }
}

/// Reads a GNU Backgammon Position ID (14 characters, NUL-terminated) into `*out`, seen
/// from the side to move. Returns `BGFAST_OK`, or `BGFAST_ERROR_NULL` /
/// `BGFAST_ERROR_INVALID_ID` leaving `*out` unchanged. Reads `id` up to its first NUL but
/// never more than `BGFAST_ID_BUFFER` (15) bytes: a text with no NUL among them is longer
/// than an ID and refused. When the 15th byte is whitespace, such as the newline `fgets`
/// keeps, the message says so (strip it before the call).
///
/// # Safety
/// `id` is null, or readable up to its first NUL or for 15 bytes, whichever comes first
/// (so an unterminated `char id[15]` is safe, and refused); `out` is null or points to a
/// writable `bgfast_position`.
#[no_mangle]
pub unsafe extern "C" fn bgfast_position_from_id(
    id: *const c_char,
    out: *mut bgfast_position,
) -> c_int {
    guard(|| {
        if id.is_null() {
            return Err(Failure::null("id"));
        }
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        // SAFETY: non-null and readable up to a NUL or for 15 bytes, as the caller promises.
        let text = unsafe { id_text(id) }.map_err(too_long)?;
        let text = core::str::from_utf8(text)
            .map_err(|_| Failure::new(BGFAST_ERROR_INVALID_ID, "the Position ID is not UTF-8"))?;
        let position = gnubg_id::decode(text).map_err(|e| {
            Failure::new(
                BGFAST_ERROR_INVALID_ID,
                format!("invalid Position ID {text:?}: {e}"),
            )
        })?;
        // SAFETY: non-null and writable, as the caller promises.
        unsafe { out.write(to_struct(&position)) };
        Ok(())
    })
}

/// The bytes of `id` before its NUL, if it has one among its first `BGFAST_ID_BUFFER`
/// bytes, or else (`Err`) those 15 bytes: no more are read. A longer text is no Position
/// ID whatever follows, so neither a huge string nor a buffer the caller forgot to
/// terminate is read (or copied into the message) past them.
///
/// # Safety
/// `id` is non-null and readable up to its first NUL or for 15 bytes, whichever comes first.
unsafe fn id_text<'a>(id: *const c_char) -> Result<&'a [u8], &'a [u8]> {
    let start = id.cast::<u8>();
    let mut len = 0;
    // SAFETY: every byte up to the NUL, or up to 15, is readable; the scan stops at either.
    while unsafe { start.add(len).read() } != 0 {
        len += 1;
        if len == BGFAST_ID_BUFFER {
            // SAFETY: these 15 bytes were just read.
            return Err(unsafe { std::slice::from_raw_parts(start, len) });
        }
    }
    // SAFETY: the `len` bytes before the NUL were just read.
    Ok(unsafe { std::slice::from_raw_parts(start, len) })
}

/// The refusal of an ID whose first 15 bytes hold no NUL: it is longer than 14 characters.
/// The common cause is a line read with `fgets`, which keeps its newline where the NUL
/// should be: the message names such a 15th byte, so the fix is plain.
fn too_long(first: &[u8]) -> Failure {
    let len = gnubg_id::ID_LEN;
    let message = match first {
        [head @ .., last] if last.is_ascii_whitespace() => format!(
            "invalid Position ID {:?} followed by {:?}: an ID is {len} characters and then \
             the terminating NUL (strip the newline fgets keeps, or other whitespace)",
            String::from_utf8_lossy(head),
            char::from(*last),
        ),
        _ => format!(
            "invalid Position ID {:?}...: longer than {len} characters (no NUL among its \
             first {BGFAST_ID_BUFFER} bytes, and no more are read)",
            String::from_utf8_lossy(first),
        ),
    };
    Failure::new(BGFAST_ERROR_INVALID_ID, message)
}

/// Writes the Position ID of `*pos` into `out` (`char out[15]`: 14 characters and a NUL).
/// Returns `BGFAST_OK`, or `BGFAST_ERROR_NULL` / `BGFAST_ERROR_INVALID_POSITION`
/// leaving `out` unchanged.
///
/// # Safety
/// `pos` is null or points to a readable `bgfast_position`; `out` is null or points to at
/// least `BGFAST_ID_BUFFER` (15) writable bytes.
#[no_mangle]
pub unsafe extern "C" fn bgfast_position_to_id(
    pos: *const bgfast_position,
    out: *mut c_char,
) -> c_int {
    guard(|| {
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        // SAFETY: forwarded from the caller.
        let position = unsafe { read_position(pos) }?;
        let id = gnubg_id::encode(&position);
        let bytes = id.as_bytes();
        debug_assert_eq!(bytes.len() + 1, BGFAST_ID_BUFFER);
        let n = bytes.len().min(BGFAST_ID_BUFFER - 1);
        // SAFETY: `out` has room for 15 bytes, as the caller promises; n + 1 <= 15.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr().cast::<c_char>(), out, n);
            out.add(n).write(0);
        }
        Ok(())
    })
}

/// Writes the distinct legal results of `*pos` for the roll `die1`-`die2` (each 1..6, in
/// either order) into `results[0..*count]`, in bgfast's move-generation order (that of
/// Python's `Position.moves`), each seen from its side to move (the opponent of `*pos`).
/// A roll that cannot be played has one result: the same checkers, the opponent to move.
///
/// `*count` is set whenever the position and roll are valid: to the number of results, or
/// to 0 for a finished game, which returns `BGFAST_ERROR_GAME_OVER` (one side has borne
/// off all 15 checkers: there is nothing to play). If the count exceeds `capacity`,
/// nothing is written to `results` and `BGFAST_ERROR_BUFFER_TOO_SMALL` is returned (call
/// again with a buffer of `*count`, or `BGFAST_MAX_MOVES`, which always suffices).
/// `results` may be null when `capacity` is 0. Other errors, which leave `*count` as it
/// was: `BGFAST_ERROR_NULL`, `BGFAST_ERROR_INVALID_POSITION`, `BGFAST_ERROR_INVALID_DICE`.
///
/// # Safety
/// `pos` is null or points to a readable `bgfast_position`; `results` is null or points to
/// `capacity` writable `bgfast_position`s; `count` is null or points to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn bgfast_moves(
    pos: *const bgfast_position,
    die1: c_int,
    die2: c_int,
    results: *mut bgfast_position,
    capacity: usize,
    count: *mut usize,
) -> c_int {
    guard(|| {
        if count.is_null() {
            return Err(Failure::null("count"));
        }
        if results.is_null() && capacity > 0 {
            return Err(Failure::null("results (with a capacity above 0)"));
        }
        // SAFETY: forwarded from the caller.
        let position = unsafe { read_position(pos) }?;
        let dice = dice(die1, die2)?;
        if position.outcome().is_some() {
            // A loop `for (i = 0; i < count; i++)` after the call then does nothing, even
            // if the caller ignores the code.
            // SAFETY: non-null and writable, as the caller promises.
            unsafe { count.write(0) };
            return Err(Failure::new(
                BGFAST_ERROR_GAME_OVER,
                "the game is over: one side has borne off all 15 checkers (R15)",
            ));
        }
        with_move_list(|list| {
            position.generate_moves(dice, list);
            let n = list.len();
            // SAFETY: non-null and writable, as the caller promises.
            unsafe { count.write(n) };
            if n > capacity {
                return Err(Failure::new(
                    BGFAST_ERROR_BUFFER_TOO_SMALL,
                    format!("{n} results do not fit in a buffer of {capacity}"),
                ));
            }
            for (i, result) in list.results().enumerate() {
                // SAFETY: i < n <= capacity elements, writable as the caller promises.
                unsafe { results.add(i).write(to_struct(&result)) };
            }
            Ok(())
        })
    })
}

fn dice(die1: c_int, die2: c_int) -> Result<Dice, Failure> {
    let die = |d: c_int| u8::try_from(d).ok().filter(|p| (1..=6).contains(p));
    match (die(die1), die(die2)) {
        (Some(a), Some(b)) => Ok(Dice::from_pips(a, b).expect("both in 1..=6")),
        _ => Err(Failure::new(
            BGFAST_ERROR_INVALID_DICE,
            format!("dice are 1 to 6, not {die1} and {die2}"),
        )),
    }
}

/// Writes the shipped net's (wildbg's) five probabilities for the side to move of `*pos`,
/// before it rolls, into `probabilities` (`float probabilities[5]`): win, win gammon, win
/// backgammon, lose gammon, lose backgammon (a finished game exactly). Returns
/// `BGFAST_OK`, or `BGFAST_ERROR_NULL` / `BGFAST_ERROR_INVALID_POSITION` leaving
/// `probabilities` unchanged.
///
/// The first call in the process that evaluates (this, `bgfast_evaluate_batch` or
/// `bgfast_best_move`) loads the net: about half a millisecond, and some 24 KB of the
/// calling thread's stack, so make it from a thread with an ordinary stack (later calls
/// need less than 16 KB).
///
/// # Safety
/// `pos` is null or points to a readable `bgfast_position`; `probabilities` is null or
/// points to 5 writable floats.
#[no_mangle]
pub unsafe extern "C" fn bgfast_evaluate(
    pos: *const bgfast_position,
    probabilities: *mut f32,
) -> c_int {
    guard(|| {
        if probabilities.is_null() {
            return Err(Failure::null("probabilities"));
        }
        // SAFETY: forwarded from the caller.
        let position = unsafe { read_position(pos) }?;
        let mut out = [Probabilities::default()];
        Net::wildbg().evaluate(&[position], &mut out);
        let values = out[0].to_array();
        // SAFETY: room for 5 floats, as the caller promises.
        unsafe { std::ptr::copy_nonoverlapping(values.as_ptr(), probabilities, 5) };
        Ok(())
    })
}

/// Writes the probabilities of `n` positions (`pos[0..n]`) into `probabilities[0..5 n]`,
/// five a position as `bgfast_evaluate` writes them, on `threads` threads (0: the
/// environment variable `RAYON_NUM_THREADS` when it holds a positive number, else every
/// core this process may use, at most 256; 1: the calling thread; at most 256). Every
/// position is checked before any is evaluated: a bad one returns
/// `BGFAST_ERROR_INVALID_POSITION` naming its index, and nothing is written. Other errors:
/// `BGFAST_ERROR_INVALID_ARGUMENT` (more than 256 threads, whatever `n`, or `n` too large
/// to address), `BGFAST_ERROR_NULL` (a null pointer with `n` above 0). `n` = 0 with a
/// valid thread count does nothing and succeeds.
///
/// More than one thread runs on a pool of worker threads that bgfast keeps for the rest of
/// the process (one pool a thread count, the four most recently used kept), rebuilt in a
/// forked child. A pool with one worker per CPU the process may use pins each worker to its
/// own CPU; set the environment variable `BGFAST_PIN_THREADS=0` before the first call to
/// leave them unpinned (for a program with its own threads on those CPUs).
///
/// # Safety
/// `pos` is null or points to `n` readable `bgfast_position`s; `probabilities` is null or
/// points to `5 n` writable floats that do not overlap them.
#[no_mangle]
pub unsafe extern "C" fn bgfast_evaluate_batch(
    pos: *const bgfast_position,
    n: usize,
    probabilities: *mut f32,
    threads: usize,
) -> c_int {
    guard(|| {
        // The thread count first, as every entry point checks it: whatever the work.
        if threads > MAX_THREADS {
            return Err(Failure::new(
                BGFAST_ERROR_INVALID_ARGUMENT,
                format!("threads must be from 0 (every core) to {MAX_THREADS}, not {threads}"),
            ));
        }
        if n == 0 {
            return Ok(());
        }
        if pos.is_null() {
            return Err(Failure::null("pos"));
        }
        if probabilities.is_null() {
            return Err(Failure::null("probabilities"));
        }
        let addressable = |size: usize| {
            n.checked_mul(size)
                .is_some_and(|b| b <= isize::MAX as usize)
        };
        if !addressable(size_of::<bgfast_position>()) || !addressable(5 * size_of::<f32>()) {
            return Err(Failure::new(
                BGFAST_ERROR_INVALID_ARGUMENT,
                format!("{n} positions are more than memory can address"),
            ));
        }
        // SAFETY: `n` readable structs, as the caller promises; the size is addressable.
        let given = unsafe { std::slice::from_raw_parts(pos, n) };
        let position = |i: usize, p: &bgfast_position| {
            Position::from_counts(&p.checkers[0], &p.checkers[1]).map_err(|e| {
                Failure::new(BGFAST_ERROR_INVALID_POSITION, format!("position {i}: {e}"))
            })
        };
        for (i, p) in given.iter().enumerate() {
            position(i, p)?;
        }
        // SAFETY: `5 n` writable floats, as the caller promises; the size is addressable.
        let out = unsafe { std::slice::from_raw_parts_mut(probabilities, 5 * n) };
        let threads = if threads == 0 {
            bgfast_core::threads::default_threads()
        } else {
            threads
        };
        let slice = EVALUATION_SLICE.min(n);
        let mut positions = Vec::with_capacity(slice);
        let mut chances = vec![Probabilities::default(); slice];
        for (k, (part, out)) in given
            .chunks(EVALUATION_SLICE)
            .zip(out.chunks_mut(5 * EVALUATION_SLICE))
            .enumerate()
        {
            positions.clear();
            for (i, p) in part.iter().enumerate() {
                positions.push(position(k * EVALUATION_SLICE + i, p)?);
            }
            let chances = &mut chances[..part.len()];
            Net::wildbg().evaluate_parallel(&positions, chances, threads);
            for (c, o) in chances.iter().zip(out.chunks_exact_mut(5)) {
                o.copy_from_slice(&c.to_array());
            }
        }
        Ok(())
    })
}

/// Writes the shipped net's (wildbg's) play of the roll `die1`-`die2` in `*pos` into
/// `*result` (the position after it, the opponent to move, as `bgfast_moves` lists it):
/// the result worst for the opponent, as Python's `Net.best_move`; a forced play, or the
/// pass of a roll that cannot be played (the same checkers), without evaluating. If `text`
/// is not null, also writes the play in GNU Backgammon's notation ("8/5 6/5"; "" for the
/// pass) and its NUL there; `BGFAST_MOVE_TEXT_BUFFER` bytes always suffice.
///
/// Errors, which write nothing: `BGFAST_ERROR_NULL`, `BGFAST_ERROR_INVALID_POSITION`,
/// `BGFAST_ERROR_INVALID_DICE`, `BGFAST_ERROR_GAME_OVER`, and `BGFAST_ERROR_BUFFER_TOO_SMALL`
/// when the text needs more than `text_capacity` bytes.
///
/// # Safety
/// `pos` is null or points to a readable `bgfast_position`; `result` is null or points to a
/// writable one; `text` is null or points to `text_capacity` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn bgfast_best_move(
    pos: *const bgfast_position,
    die1: c_int,
    die2: c_int,
    result: *mut bgfast_position,
    text: *mut c_char,
    text_capacity: usize,
) -> c_int {
    guard(|| {
        if result.is_null() {
            return Err(Failure::null("result"));
        }
        // SAFETY: forwarded from the caller.
        let position = unsafe { read_position(pos) }?;
        let dice = playable(&position, die1, die2)?;
        with_move_list(|list| {
            position.generate_moves(dice, list);
            let best = if list.len() == 1 {
                0
            } else {
                Net::wildbg()
                    .best(list)
                    .ok_or_else(|| Failure::new(BGFAST_ERROR_INTERNAL, "no result to choose"))?
            };
            let play = move_text::format(&list.compact(best).mv(&position, dice));
            check_text_room(text, text_capacity, &play)?;
            // SAFETY: non-null and writable, as the caller promises.
            unsafe { result.write(to_struct(&list.result(best))) };
            // SAFETY: checked just above.
            unsafe { write_text(text, &play) };
            Ok(())
        })
    })
}

/// Writes the notation of the play that turns `*pos` into `*result` with the roll
/// `die1`-`die2` into `text` (GNU Backgammon's, as `bgfast_best_move` writes it: "" for the
/// pass) and its NUL; `BGFAST_MOVE_TEXT_BUFFER` bytes always suffice. `*result` is one of
/// the positions `bgfast_moves` lists for that roll, the opponent to move.
///
/// Errors, which write nothing: `BGFAST_ERROR_ILLEGAL_MOVE` when `*result` is no legal
/// result of the roll (R8), `BGFAST_ERROR_BUFFER_TOO_SMALL`, `BGFAST_ERROR_NULL`,
/// `BGFAST_ERROR_INVALID_POSITION` (either position), `BGFAST_ERROR_INVALID_DICE`,
/// `BGFAST_ERROR_GAME_OVER`.
///
/// # Safety
/// `pos` and `result` are null or point to readable `bgfast_position`s; `text` is null or
/// points to `text_capacity` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn bgfast_move_text(
    pos: *const bgfast_position,
    die1: c_int,
    die2: c_int,
    result: *const bgfast_position,
    text: *mut c_char,
    text_capacity: usize,
) -> c_int {
    guard(|| {
        if text.is_null() {
            return Err(Failure::null("text"));
        }
        // SAFETY: forwarded from the caller.
        let position = unsafe { read_position(pos) }?;
        if result.is_null() {
            return Err(Failure::null("result"));
        }
        // SAFETY: forwarded from the caller (and not null).
        let after = unsafe { read_position(result) }
            .map_err(|f| Failure::new(f.code, format!("result: {}", f.message)))?;
        let dice = playable(&position, die1, die2)?;
        with_move_list(|list| {
            position.generate_moves(dice, list);
            let find = |wanted: Position| (0..list.len()).find(|&i| list.result(i) == wanted);
            let i = find(after).ok_or_else(|| {
                // The likeliest slip in C: the result seen from the mover's side.
                let hint = if find(after.flipped()).is_some() {
                    ": its sides are swapped; give it as bgfast_moves lists it, the opponent to move"
                } else {
                    ""
                };
                Failure::new(
                    BGFAST_ERROR_ILLEGAL_MOVE,
                    format!(
                        "R8: the result is not one of the {} legal results of {die1}-{die2}{hint}",
                        list.len()
                    ),
                )
            })?;
            let play = move_text::format(&list.compact(i).mv(&position, dice));
            check_text_room(text, text_capacity, &play)?;
            // SAFETY: checked just above.
            unsafe { write_text(text, &play) };
            Ok(())
        })
    })
}

/// The roll `die1`-`die2` of `position`, if the game goes on (R15).
fn playable(position: &Position, die1: c_int, die2: c_int) -> Result<Dice, Failure> {
    let dice = dice(die1, die2)?;
    if position.outcome().is_some() {
        return Err(Failure::new(
            BGFAST_ERROR_GAME_OVER,
            "the game is over: one side has borne off all 15 checkers (R15)",
        ));
    }
    Ok(dice)
}

/// Refuses a non-null `text` of `capacity` bytes that cannot hold `play` and its NUL.
fn check_text_room(text: *mut c_char, capacity: usize, play: &str) -> Result<(), Failure> {
    if text.is_null() || play.len() < capacity {
        return Ok(());
    }
    Err(Failure::new(
        BGFAST_ERROR_BUFFER_TOO_SMALL,
        format!(
            "the play {play:?} needs {} with its NUL, more than {capacity} \
             (BGFAST_MOVE_TEXT_BUFFER always suffices)",
            bytes(play.len() + 1)
        ),
    ))
}

/// "1 byte", "2 bytes", ...
fn bytes(n: usize) -> String {
    if n == 1 {
        "1 byte".into()
    } else {
        format!("{n} bytes")
    }
}

/// Writes `play` and a NUL at `text`, if it is not null.
///
/// # Safety
/// `text` is null or has room for `play` and its NUL (see [`check_text_room`]).
unsafe fn write_text(text: *mut c_char, play: &str) {
    if text.is_null() {
        return;
    }
    // SAFETY: room for the bytes and the NUL, as the caller checked.
    unsafe {
        std::ptr::copy_nonoverlapping(play.as_ptr().cast::<c_char>(), text, play.len());
        text.add(play.len()).write(0);
    }
}

/// The message of this thread's most recent call to a function that returns a code: what
/// was wrong, or an empty string after a success (or before any call); one longer than
/// `BGFAST_MESSAGE_ROOM - 1` bytes is cut and ends in "...". `bgfast_version` and
/// `bgfast_last_error`, which cannot fail, leave it as it is. The pointer is the same for
/// the thread's whole life and always valid there; each call that returns a code rewrites
/// the text it points to (so `printf("%d %s", call(), bgfast_last_error())` shows that
/// call's message, whatever order C evaluates the arguments in). Copy the text to keep it
/// past the next call; never free it.
#[no_mangle]
pub extern "C" fn bgfast_last_error() -> *const c_char {
    LAST_ERROR
        .try_with(|buffer| buffer.get().cast::<c_char>().cast_const())
        .unwrap_or(c"".as_ptr())
}

/// The library's version, such as "0.1.0" (static; never free it). Leaves
/// `bgfast_last_error` as it is.
#[no_mangle]
pub extern "C" fn bgfast_version() -> *const c_char {
    static VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => panic!("the version holds a NUL"),
        };
    VERSION.as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last() -> String {
        // SAFETY: bgfast_last_error returns a valid NUL-terminated string.
        unsafe { CStr::from_ptr(bgfast_last_error()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn start_position_round_trips_and_has_16_moves_for_31() {
        let mut pos = bgfast_position::default();
        let id = c"4HPwATDgc/ABMA";
        // SAFETY: valid pointers.
        assert_eq!(unsafe { bgfast_position_from_id(id.as_ptr(), &mut pos) }, 0);
        assert_eq!(pos.checkers, Position::START.to_counts());
        let mut out = [0 as c_char; 16];
        out[15] = 0x55;
        // SAFETY: 16 writable bytes.
        assert_eq!(unsafe { bgfast_position_to_id(&pos, out.as_mut_ptr()) }, 0);
        // SAFETY: NUL-terminated by the call.
        assert_eq!(unsafe { CStr::from_ptr(out.as_ptr()) }, id);
        assert_eq!(out[15], 0x55, "wrote past 15 bytes");
        let mut results = vec![bgfast_position::default(); BGFAST_MAX_MOVES];
        let mut n = 0usize;
        // SAFETY: valid buffers.
        let code = unsafe { bgfast_moves(&pos, 3, 1, results.as_mut_ptr(), results.len(), &mut n) };
        assert_eq!((code, n), (0, 16));
        assert_eq!(last(), "");
    }

    #[test]
    fn errors_are_codes_with_messages() {
        let mut pos = bgfast_position::default();
        // SAFETY: null and valid pointers only.
        unsafe {
            assert_eq!(
                bgfast_position_from_id(std::ptr::null(), &mut pos),
                BGFAST_ERROR_NULL
            );
            assert!(last().contains("id"));
            let bad = c"not an id";
            assert_eq!(
                bgfast_position_from_id(bad.as_ptr(), &mut pos),
                BGFAST_ERROR_INVALID_ID
            );
            let id = c"4HPwATDgc/ABMA";
            assert_eq!(bgfast_position_from_id(id.as_ptr(), &mut pos), BGFAST_OK);
            let mut n = 0usize;
            let code = bgfast_moves(&pos, 7, 1, std::ptr::null_mut(), 0, &mut n);
            assert_eq!(code, BGFAST_ERROR_INVALID_DICE);
            let code = bgfast_moves(&pos, 3, 1, std::ptr::null_mut(), 0, &mut n);
            assert_eq!((code, n), (BGFAST_ERROR_BUFFER_TOO_SMALL, 16));
            let mut too_many = pos;
            too_many.checkers[0][10] = 9;
            let mut probabilities = [0f32; 5];
            let code = bgfast_evaluate(&too_many, probabilities.as_mut_ptr());
            assert_eq!(code, BGFAST_ERROR_INVALID_POSITION);
            assert!(last().contains("invalid position"), "{}", last());
            assert_eq!(probabilities, [0f32; 5]);
        }
    }

    #[test]
    fn a_long_id_is_refused_after_15_bytes_not_read_and_quoted_whole() {
        // A 64 MiB string was scanned to its end and quoted in the message (64 MiB more).
        let mut text = vec![b'A'; 64 << 20];
        text.push(0);
        let mut pos = bgfast_position::default();
        // SAFETY: a NUL-terminated string and a writable struct.
        let code = unsafe { bgfast_position_from_id(text.as_ptr().cast(), &mut pos) };
        assert_eq!(code, BGFAST_ERROR_INVALID_ID);
        assert!(last().len() < 200, "{} bytes of message", last().len());
        assert!(
            last().contains("longer than 14 characters (no NUL among its first 15 bytes"),
            "{}",
            last()
        );
        // 15 bytes and no NUL at all: refused from those 15 alone, quoted whole.
        let unterminated = [b'A'; 15];
        // SAFETY: the call reads at most 15 bytes (the contract this test checks).
        let code = unsafe { bgfast_position_from_id(unterminated.as_ptr().cast(), &mut pos) };
        assert_eq!(code, BGFAST_ERROR_INVALID_ID);
        assert!(last().contains(r#""AAAAAAAAAAAAAAA"..."#), "{}", last());
        assert_eq!(
            pos,
            bgfast_position::default(),
            "a refused call writes nothing"
        );
        // 14 characters then the NUL is an ID; 14 non-ASCII bytes are not (7 characters).
        let id = c"4HPwATDgc/ABMA";
        // SAFETY: NUL-terminated.
        assert_eq!(
            unsafe { bgfast_position_from_id(id.as_ptr(), &mut pos) },
            BGFAST_OK
        );
        let wide = c"\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}";
        // SAFETY: NUL-terminated.
        let code = unsafe { bgfast_position_from_id(wide.as_ptr(), &mut pos) };
        assert_eq!(code, BGFAST_ERROR_INVALID_ID);
        assert!(last().contains("not 7"), "{}", last());
    }

    #[test]
    fn an_id_with_the_newline_fgets_keeps_is_refused_naming_the_newline() {
        // It said "no NUL among its first 15 bytes", as if a terminator were missing.
        let mut pos = bgfast_position::default();
        for (line, shown) in [
            (c"4HPwATDgc/ABMA\n", r#""4HPwATDgc/ABMA" followed by '\n'"#),
            (
                c"4HPwATDgc/ABMA\r\n",
                r#""4HPwATDgc/ABMA" followed by '\r'"#,
            ),
        ] {
            // SAFETY: NUL-terminated, and a writable struct.
            let code = unsafe { bgfast_position_from_id(line.as_ptr(), &mut pos) };
            assert_eq!(code, BGFAST_ERROR_INVALID_ID);
            assert!(last().contains(shown), "{}", last());
            assert!(
                last().contains("strip the newline fgets keeps"),
                "{}",
                last()
            );
            assert!(!last().contains("no NUL"), "{}", last());
        }
        // A shorter line's newline is counted as a character and shown by the decoder.
        // SAFETY: NUL-terminated, and a writable struct.
        let code = unsafe { bgfast_position_from_id(c"4HPw\n".as_ptr(), &mut pos) };
        assert_eq!(code, BGFAST_ERROR_INVALID_ID);
        assert!(last().contains(r#""4HPw\n""#), "{}", last());
        assert_eq!(
            pos,
            bgfast_position::default(),
            "a refused call writes nothing"
        );
    }

    fn text(buffer: &[c_char]) -> String {
        // SAFETY: the calls under test NUL-terminate what they write.
        unsafe { CStr::from_ptr(buffer.as_ptr()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn the_best_move_is_the_nets_and_its_text_names_it() {
        let start = to_struct(&Position::START);
        let mut result = bgfast_position::default();
        let mut play = [0 as c_char; BGFAST_MOVE_TEXT_BUFFER];
        let (out, room) = (play.as_mut_ptr(), play.len());
        // SAFETY: valid buffers.
        let code = unsafe { bgfast_best_move(&start, 3, 1, &mut result, out, room) };
        assert_eq!((code, text(&play).as_str()), (BGFAST_OK, "8/5 6/5"));
        let dice = Dice::from_pips(3, 1).unwrap();
        let mut list = MoveList::new();
        Position::START.generate_moves(dice, &mut list);
        let best = Net::wildbg().best(&list).unwrap();
        assert_eq!(result, to_struct(&list.result(best)));
        // Every result's text, as the core writes it.
        for i in 0..list.len() {
            let after = to_struct(&list.result(i));
            // SAFETY: valid buffers.
            let code = unsafe { bgfast_move_text(&start, 1, 3, &after, out, room) };
            let want = move_text::format(&list.compact(i).mv(&Position::START, dice));
            assert_eq!((code, text(&play)), (BGFAST_OK, want));
        }
        // The text is optional for the best move; a result that is no play is refused.
        // SAFETY: valid buffers and a null text.
        let code = unsafe { bgfast_best_move(&start, 6, 6, &mut result, std::ptr::null_mut(), 0) };
        assert_eq!(code, BGFAST_OK);
        // SAFETY: valid buffers.
        let code = unsafe { bgfast_move_text(&start, 3, 1, &start, out, room) };
        assert_eq!(code, BGFAST_ERROR_ILLEGAL_MOVE);
        assert!(
            last().starts_with("R8: the result is not one of the 16"),
            "{}",
            last()
        );
        assert!(!last().contains("swapped"), "{}", last());
        // A result seen from the mover's side is named as such.
        let mover_side = to_struct(&list.result(best).flipped());
        // SAFETY: valid buffers.
        let code = unsafe { bgfast_move_text(&start, 3, 1, &mover_side, out, room) };
        assert_eq!(code, BGFAST_ERROR_ILLEGAL_MOVE);
        assert!(
            last().ends_with(
                "its sides are swapped; give it as bgfast_moves lists it, the opponent to move"
            ),
            "{}",
            last()
        );
    }

    #[test]
    fn a_play_text_that_does_not_fit_writes_nothing() {
        let start = to_struct(&Position::START);
        let mut result = bgfast_position::default();
        let mut play = [0x55 as c_char; 8];
        // "8/5 6/5" and its NUL need 8 bytes: 7 are refused, 8 do.
        // SAFETY: 7 of the 8 bytes offered.
        let code = unsafe { bgfast_best_move(&start, 3, 1, &mut result, play.as_mut_ptr(), 7) };
        assert_eq!(code, BGFAST_ERROR_BUFFER_TOO_SMALL);
        assert!(last().contains("needs 8 bytes"), "{}", last());
        assert_eq!(result, bgfast_position::default(), "no result written");
        assert_eq!(play, [0x55 as c_char; 8], "no text written");
        // SAFETY: 8 writable bytes.
        let code = unsafe { bgfast_best_move(&start, 3, 1, &mut result, play.as_mut_ptr(), 8) };
        assert_eq!((code, text(&play).as_str()), (BGFAST_OK, "8/5 6/5"));
    }

    #[test]
    fn no_play_text_comes_near_the_buffer() {
        // Games of random plays: every roll of every position they pass, every result.
        let mut rng = bgfast_core::rng::GameRng::new(7, 0);
        let mut list = MoveList::new();
        let mut longest = 0;
        for _ in 0..40 {
            let mut position = Position::START;
            while position.outcome().is_none() {
                for dice in Dice::ALL_21 {
                    position.generate_moves(dice, &mut list);
                    for i in 0..list.len() {
                        let play = move_text::format(&list.compact(i).mv(&position, dice));
                        longest = longest.max(play.len());
                    }
                }
                position.generate_moves(rng.roll(), &mut list);
                position = list.result(rng.below(list.len() as u32) as usize);
            }
        }
        assert!(longest < 48, "a play of {longest} bytes");
    }

    #[test]
    fn a_batch_evaluates_as_one_position_at_a_time_and_checks_every_position_first() {
        let mut list = MoveList::new();
        Position::START.generate_moves(Dice::from_pips(6, 6).unwrap(), &mut list);
        let positions: Vec<bgfast_position> = list.results().map(|p| to_struct(&p)).collect();
        let n = positions.len();
        for threads in [0, 1, 2] {
            let mut out = vec![0f32; 5 * n];
            // SAFETY: n positions and 5 n floats.
            let code =
                unsafe { bgfast_evaluate_batch(positions.as_ptr(), n, out.as_mut_ptr(), threads) };
            assert_eq!(code, BGFAST_OK);
            for (p, got) in positions.iter().zip(out.chunks_exact(5)) {
                let mut one = [0f32; 5];
                // SAFETY: valid buffers.
                assert_eq!(unsafe { bgfast_evaluate(p, one.as_mut_ptr()) }, BGFAST_OK);
                assert_eq!(got, one);
            }
        }
        let mut bad = positions.clone();
        bad[3].checkers[0][10] = 9;
        let mut out = vec![7f32; 5 * n];
        // SAFETY: n positions and 5 n floats.
        let code = unsafe { bgfast_evaluate_batch(bad.as_ptr(), n, out.as_mut_ptr(), 1) };
        assert_eq!(code, BGFAST_ERROR_INVALID_POSITION);
        assert!(last().starts_with("position 3: "), "{}", last());
        assert!(
            out.iter().all(|&x| x == 7.0),
            "a refused batch writes nothing"
        );
        // SAFETY: n positions and 5 n floats.
        let code = unsafe { bgfast_evaluate_batch(positions.as_ptr(), n, out.as_mut_ptr(), 257) };
        assert_eq!(code, BGFAST_ERROR_INVALID_ARGUMENT);
        // SAFETY: nothing is read for n = 0; a huge n is refused before any read.
        unsafe {
            let nothing = bgfast_evaluate_batch(std::ptr::null(), 0, std::ptr::null_mut(), 0);
            assert_eq!(nothing, BGFAST_OK);
            // The thread count is checked whatever the work, as everywhere else.
            let none = bgfast_evaluate_batch(std::ptr::null(), 0, std::ptr::null_mut(), 9999);
            assert_eq!(none, BGFAST_ERROR_INVALID_ARGUMENT);
            let huge =
                bgfast_evaluate_batch(positions.as_ptr(), usize::MAX / 8, out.as_mut_ptr(), 1);
            assert_eq!(huge, BGFAST_ERROR_INVALID_ARGUMENT);
        }
    }

    #[test]
    fn a_finished_game_sets_count_to_0() {
        // *count was left as it was (a sentinel 777 stayed 777) although the doc said it is
        // set whenever the position and roll are valid.
        let mut over = bgfast_position::default();
        over.checkers[1][5] = 15; // the side to move has borne off all 15
        let mut results = [bgfast_position::default(); 4];
        let mut n = 777usize;
        // SAFETY: valid buffers.
        let code = unsafe { bgfast_moves(&over, 3, 1, results.as_mut_ptr(), 4, &mut n) };
        assert_eq!((code, n), (BGFAST_ERROR_GAME_OVER, 0));
        assert_eq!(results, [bgfast_position::default(); 4]);
        // Invalid dice are refused first: then *count is left alone.
        n = 777;
        // SAFETY: valid buffers.
        let code = unsafe { bgfast_moves(&over, 0, 1, results.as_mut_ptr(), 4, &mut n) };
        assert_eq!((code, n), (BGFAST_ERROR_INVALID_DICE, 777));
    }

    #[test]
    fn version_leaves_the_last_error_as_it_is() {
        let mut n = 0usize;
        // SAFETY: a null position is refused; `n` is writable.
        let code = unsafe { bgfast_moves(std::ptr::null(), 3, 1, std::ptr::null_mut(), 0, &mut n) };
        assert_eq!(code, BGFAST_ERROR_NULL);
        let message = last();
        assert!(message.contains("pos"), "{message}");
        // SAFETY: a static NUL-terminated string.
        let version = unsafe { CStr::from_ptr(bgfast_version()) };
        assert_eq!(version.to_str(), Ok(env!("CARGO_PKG_VERSION")));
        assert_eq!(last(), message, "bgfast_version changed the last error");
        // A success clears it; the version again leaves it (empty).
        let mut pos = bgfast_position::default();
        // SAFETY: NUL-terminated, and a writable struct.
        let code = unsafe { bgfast_position_from_id(c"4HPwATDgc/ABMA".as_ptr(), &mut pos) };
        assert_eq!((code, last().as_str()), (BGFAST_OK, ""));
        let _ = bgfast_version();
        assert_eq!(last(), "");
    }

    #[test]
    fn the_message_pointer_never_dangles_and_shows_the_latest_call() {
        let kept = bgfast_last_error();
        let mut pos = bgfast_position::default();
        // SAFETY: the ID is NUL-terminated; `pos` is writable.
        let code = unsafe { bgfast_position_from_id(c"bad".as_ptr(), &mut pos) };
        assert_eq!(code, BGFAST_ERROR_INVALID_ID);
        assert_eq!(bgfast_last_error(), kept);
        // SAFETY: the pointer is this thread's buffer, valid for its life.
        assert!(!unsafe { CStr::from_ptr(kept) }.is_empty());
        // SAFETY: as above.
        let code = unsafe { bgfast_position_from_id(c"4HPwATDgc/ABMA".as_ptr(), &mut pos) };
        assert_eq!(code, BGFAST_OK);
        // SAFETY: as above.
        assert!(unsafe { CStr::from_ptr(kept) }.is_empty());
    }

    #[test]
    fn a_long_message_is_cut_at_a_character_and_says_so() {
        let mut buffer = [0xAA; BGFAST_MESSAGE_ROOM];
        let long = format!("x{}", "\u{e9}".repeat(BGFAST_MESSAGE_ROOM));
        write_message(&mut buffer, &long);
        let text = CStr::from_bytes_until_nul(&buffer)
            .unwrap()
            .to_str()
            .unwrap();
        assert!(text.ends_with("...") && text.len() < BGFAST_MESSAGE_ROOM);
        assert!(long.starts_with(text.trim_end_matches("...")));
        let fits = "y".repeat(BGFAST_MESSAGE_ROOM - 1);
        write_message(&mut buffer, &fits);
        let text = CStr::from_bytes_until_nul(&buffer).unwrap();
        assert_eq!(text.to_bytes(), fits.as_bytes());
    }

    #[test]
    fn a_panic_does_not_cross_the_boundary() {
        let code = guard(|| panic!("boom"));
        assert_eq!(code, BGFAST_ERROR_INTERNAL);
        assert!(last().contains("boom"));
    }
}
