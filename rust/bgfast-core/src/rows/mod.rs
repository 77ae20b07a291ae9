//! Positions as rows of 50 count bytes: [`Position::to_counts`] flattened, bytes 0..25 the
//! side to move's points 1..24 and bar, bytes 25..50 the opponent's. The layout of the
//! Python batch arrays, and a compact one for engines that hand many positions to a net.
//!
//! Writing the rows of every result of a move generation is about as much work as the
//! generation itself if done position by position, so [`write_results`] works from the
//! results' keys: a key holds the mover's new checkers as they are packed (one nibble a
//! point), which two SSE2 unpacks spread into bytes (or, on CPUs with AVX-512 VBMI, one
//! permutation and one multishift: 5% off a contact `batch.all_rolls`), and unless the move
//! hit a blot the other side of every result is the origin's opponent, spread once per list.
//! [`generate_rows`] and [`par_generate_rows`] do it for many positions and rolls at once.
//!
//! ```
//! use bgfast_core::{rows, Dice, MoveList, Position};
//!
//! let mut list = MoveList::new();
//! Position::START.generate_moves(Dice::from_pips(3, 1).unwrap(), &mut list);
//! let mut out = vec![0u8; list.len() * rows::ROW_BYTES];
//! rows::write_results(&list, &mut out);
//! for (row, result) in out.chunks(rows::ROW_BYTES).zip(list.results()) {
//!     assert_eq!(row, result.to_counts().concat());
//! }
//! ```

#[cfg(target_arch = "x86_64")]
mod avx512;
mod generate;

pub use generate::{generate_rows, grow, par_generate_rows, par_generate_rows_until};

use core::mem::MaybeUninit;

use crate::movegen::{CHECKER_KEY_BITS, HIT_KEY_SHIFT};
use crate::{MoveList, Position};

/// Bytes of one position's row.
pub const ROW_BYTES: usize = 50;

/// Bytes a row store may clobber after its row (a following row overwrites them).
const SLACK: usize = 7;

/// A position's row.
#[inline]
pub fn row(position: &Position) -> [u8; ROW_BYTES] {
    let (to_move, moved) = (
        Side::spread(position.mover().bits()),
        Side::spread(position.opponent().bits()),
    );
    let mut row = [0u8; ROW_BYTES];
    // SAFETY: `row` holds ROW_BYTES bytes.
    unsafe { store_last_row(row.as_mut_ptr(), &to_move, &moved) };
    row
}

/// Writes the rows of every result in `list` (each with the opponent to move, as
/// [`MoveList::result`] gives it) into `dst`, which must hold exactly
/// `list.len() * ROW_BYTES` bytes. Panics otherwise.
#[inline]
pub fn write_results(list: &MoveList, dst: &mut [u8]) {
    // SAFETY: `[u8]` and `[MaybeUninit<u8>]` have the same layout; the callee only writes
    // initialised bytes.
    let dst = unsafe { &mut *(dst as *mut [u8] as *mut [MaybeUninit<u8>]) };
    write_keys(&list.origin(), list.keys(), dst);
}

/// Writes the rows of the results with these `keys` ([`MoveList::keys`] of a generation
/// from `origin`) into `dst`, which must hold exactly `keys.len() * ROW_BYTES` bytes; every
/// byte of `dst` is initialised when it returns, none after it touched. Panics otherwise.
///
/// Keys saved from a list stand for the same results later, so a caller can keep them (16
/// bytes a result) and write the rows elsewhere.
pub fn write_keys(origin: &Position, keys: &[u128], dst: &mut [MaybeUninit<u8>]) {
    #[cfg(target_arch = "x86_64")]
    if avx512_writer() {
        // SAFETY: available() detected every feature the AVX-512 writer is compiled for.
        return unsafe { avx512::write_keys(origin, keys, dst) };
    }
    write_keys_baseline(origin, keys, dst);
}

/// Whether the AVX-512 writer runs: the CPU has it and the baseline is not forced
/// ([`crate::isa`]).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn avx512_writer() -> bool {
    crate::isa::fast_row_writer(avx512::available)
}

/// The name of the row writer that runs (see [`crate::isa::report`]).
pub(crate) fn writer_name() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    return if avx512_writer() {
        "AVX-512 VBMI"
    } else {
        "SSE2"
    };
    #[cfg(not(target_arch = "x86_64"))]
    "portable"
}

/// [`write_keys`] with SSE2 (x86-64's baseline) or, elsewhere, portable code.
fn write_keys_baseline(origin: &Position, keys: &[u128], dst: &mut [MaybeUninit<u8>]) {
    let n = keys.len();
    assert_eq!(dst.len(), n * ROW_BYTES, "one row per key");
    let Some((&last, rest)) = keys.split_last() else {
        return;
    };
    let unhit = Side::spread(origin.opponent().bits());
    let row_of = |key: u128| {
        let moved = Side::spread(key & CHECKER_KEY_BITS);
        let hits = (key >> HIT_KEY_SHIFT) as u32;
        let to_move = if hits == 0 {
            unhit
        } else {
            unhit.after_hits(hits)
        };
        (to_move, moved)
    };
    let base = dst.as_mut_ptr().cast::<u8>();
    // Whether a move hit is as good as random, so rather than branch on it row by row, each
    // group of 64 rows is first written as if nothing was hit, then the rows that hit get
    // their side to move rewritten (found through a bit mask, without mispredictions).
    for (g, group) in rest.chunks(64).enumerate() {
        let first = g * 64;
        let mut hits = 0u64;
        for (k, key) in group.iter().enumerate() {
            hits |= u64::from(key >> HIT_KEY_SHIFT != 0) << k;
            let moved = Side::spread_key(key);
            // SAFETY: row i = first + k starts at i * ROW_BYTES and, as i + 1 < n, the row
            // after it leaves at least SLACK bytes of `dst` beyond this one; the clobbered
            // bytes belong to the next row, which is written after this one.
            unsafe { store_row(base.add((first + k) * ROW_BYTES), &unhit, &moved) };
        }
        while hits != 0 {
            let k = hits.trailing_zeros() as usize;
            hits &= hits - 1;
            let (to_move, moved) = row_of(group[k]);
            // SAFETY: row first + k is one of the rows just written, inside `dst`.
            unsafe { store_to_move(base.add((first + k) * ROW_BYTES), &to_move, &moved) };
        }
    }
    // The last row has no slack after it.
    let (to_move, moved) = row_of(last);
    // SAFETY: the last row's ROW_BYTES bytes are the end of `dst` (its length was checked).
    unsafe { store_last_row(base.add(rest.len() * ROW_BYTES), &to_move, &moved) };
}

/// One side's packed checkers (nibble p = point p, p = 1..=25, nibbles 26 and up zero)
/// spread into 32 bytes: the counts of points 1..24 and the bar, then 7 zero bytes.
#[derive(Clone, Copy)]
struct Side(
    #[cfg(target_arch = "x86_64")] [core::arch::x86_64::__m128i; 2],
    #[cfg(not(target_arch = "x86_64"))] [u8; 32],
);

impl Side {
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn spread(bits: u128) -> Side {
        use core::arch::x86_64::_mm_set_epi64x;
        // SAFETY: SSE2 is part of the x86_64 baseline; the intrinsic computes on registers.
        Side::spread_vector(unsafe { _mm_set_epi64x((bits >> 64) as i64, bits as i64) })
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn spread(bits: u128) -> Side {
        Side(side_bytes(bits))
    }

    /// This side, the origin's opponent, as it is in a result whose key records `hits` (bit
    /// `i`: the mover hit a blot on its point `i + 1`, the opponent's `24 - i`): a checker
    /// fewer on each point hit, and as many more on the bar.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn after_hits(self, hits: u32) -> Side {
        use core::arch::x86_64::{_mm_add_epi8, _mm_set_epi64x, _mm_sub_epi8};
        let lost = |bits: u32| HIT_POINTS[(bits & 0xFF) as usize] as i64;
        // Row bytes 0..8 are points 1..8, the hits recorded in bits 23..16; 8..16 bits
        // 15..8; 16..24 bits 7..0; byte 24 (byte 8 of the second vector) is the bar.
        // SAFETY: SSE2 is part of the x86_64 baseline; the intrinsics compute on registers.
        unsafe {
            let low = _mm_sub_epi8(self.0[0], _mm_set_epi64x(lost(hits >> 8), lost(hits >> 16)));
            let high = _mm_sub_epi8(self.0[1], _mm_set_epi64x(0, lost(hits)));
            let bar = _mm_set_epi64x(i64::from(hits.count_ones()), 0);
            Side([low, _mm_add_epi8(high, bar)])
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn after_hits(self, hits: u32) -> Side {
        Side(bytes_after_hits(self.0, hits))
    }

    /// The moved side of a result from its key, read straight from memory. Bytes 25..32 of
    /// the side then hold the key's record of hits instead of zeros, which no row keeps: a
    /// moved side is stored last, so they land in a row's slack, overwritten by the next
    /// row. (The last row, which has no slack, spreads its key masked.)
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn spread_key(key: &u128) -> Side {
        use core::arch::x86_64::{__m128i, _mm_loadu_si128};
        // SAFETY: `key` is 16 readable bytes (an unaligned load needs no more); SSE2 is part
        // of the x86_64 baseline.
        Side::spread_vector(unsafe { _mm_loadu_si128((key as *const u128).cast::<__m128i>()) })
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn spread_key(key: &u128) -> Side {
        Side::spread(key & CHECKER_KEY_BITS)
    }

    /// The spread of packed checkers held in a vector.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn spread_vector(v: core::arch::x86_64::__m128i) -> Side {
        use core::arch::x86_64::{
            _mm_and_si128, _mm_set1_epi8, _mm_srli_epi16, _mm_srli_si128, _mm_unpackhi_epi8,
            _mm_unpacklo_epi8,
        };
        // SAFETY: SSE2 is part of the x86_64 baseline; these intrinsics only compute on
        // registers.
        unsafe {
            let low = _mm_set1_epi8(0x0F);
            // Byte k of `even` is nibble 2k (point 2k), of `odd` nibble 2k + 1. Dropping
            // point 0 from `even` lines the two up: byte 2k of the row is point 2k + 1,
            // byte 2k + 1 is point 2k + 2.
            let even = _mm_srli_si128(_mm_and_si128(v, low), 1);
            let odd = _mm_and_si128(_mm_srli_epi16(v, 4), low);
            Side([_mm_unpacklo_epi8(odd, even), _mm_unpackhi_epi8(odd, even)])
        }
    }
}

/// [`Side::after_hits`] on a side's row bytes (the portable way).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn bytes_after_hits(mut bytes: [u8; 32], hits: u32) -> [u8; 32] {
    for i in 0..24 {
        bytes[23 - i] -= ((hits >> i) & 1) as u8;
    }
    bytes[24] += hits.count_ones() as u8;
    bytes
}

/// For a byte of a key's record of hits, the eight row bytes it takes a checker from: byte
/// `k` is 1 if bit `7 - k` is set (the record counts points up, the row the opponent's).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const HIT_POINTS: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut x = 0;
    while x < 256 {
        let mut k = 0;
        while k < 8 {
            table[x] |= (((x >> (7 - k)) & 1) as u64) << (8 * k);
            k += 1;
        }
        x += 1;
    }
    table
};

/// One side's row bytes, as [`Side::spread`] gives them (the portable way).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn side_bytes(bits: u128) -> [u8; 32] {
    // Bytes 25..32 take nibbles 26..32; the last of them lies past the u128.
    core::array::from_fn(|k| (bits.checked_shr(4 * (k as u32 + 1)).unwrap_or(0) & 0xF) as u8)
}

/// Stores a row at `p`: `to_move`'s 25 bytes, then `moved`'s, and `SLACK` bytes more.
///
/// # Safety
/// `p` must be valid for writing `ROW_BYTES + SLACK` bytes.
#[inline(always)]
unsafe fn store_row(p: *mut u8, to_move: &Side, moved: &Side) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{__m128i, _mm_storeu_si128};
        // SAFETY: the caller gives 57 writable bytes; the stores cover 0..16, 16..32, 25..41
        // and 41..57 and need no alignment. `to_move`'s zero bytes 25..32 are overwritten.
        unsafe {
            _mm_storeu_si128(p.cast::<__m128i>(), to_move.0[0]);
            _mm_storeu_si128(p.add(16).cast::<__m128i>(), to_move.0[1]);
            _mm_storeu_si128(p.add(25).cast::<__m128i>(), moved.0[0]);
            _mm_storeu_si128(p.add(41).cast::<__m128i>(), moved.0[1]);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller gives 57 writable bytes: 0..25 and 25..57 are written.
    unsafe {
        core::ptr::copy_nonoverlapping(to_move.0.as_ptr(), p, 25);
        core::ptr::copy_nonoverlapping(moved.0.as_ptr(), p.add(25), 32);
    }
}

/// Stores a row at `p` like [`store_row`], but not a byte past its `ROW_BYTES`: the last 16
/// bytes of `moved`'s 25 go in one store that overlaps the one before it. (Going through a
/// buffer instead stalls on reading back the buffer's overlapping stores.)
///
/// # Safety
/// `p` must be valid for writing `ROW_BYTES` bytes.
#[inline(always)]
unsafe fn store_last_row(p: *mut u8, to_move: &Side, moved: &Side) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{
            __m128i, _mm_or_si128, _mm_slli_si128, _mm_srli_si128, _mm_storeu_si128,
        };
        // SAFETY: the caller gives ROW_BYTES writable bytes; the stores cover 0..16, 16..32,
        // 25..41 and 34..50 and need no alignment. The last one holds `moved`'s bytes 9..25:
        // 7 from its first vector, 9 from its second (whose bytes past them it drops).
        unsafe {
            let [m0, m1] = moved.0;
            let tail = _mm_or_si128(_mm_srli_si128(m0, 9), _mm_slli_si128(m1, 7));
            _mm_storeu_si128(p.cast::<__m128i>(), to_move.0[0]);
            _mm_storeu_si128(p.add(16).cast::<__m128i>(), to_move.0[1]);
            _mm_storeu_si128(p.add(25).cast::<__m128i>(), m0);
            _mm_storeu_si128(p.add(34).cast::<__m128i>(), tail);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller gives ROW_BYTES writable bytes: 0..25 and 25..50 are written.
    unsafe {
        core::ptr::copy_nonoverlapping(to_move.0.as_ptr(), p, 25);
        core::ptr::copy_nonoverlapping(moved.0.as_ptr(), p.add(25), 25);
    }
}

/// Rewrites the side to move of the row at `p`, which holds `moved` as its other side: the
/// stores cover bytes 0..41 of the row only (`to_move`'s zero padding over bytes 25..32 is
/// overwritten again by `moved`'s first bytes).
///
/// # Safety
/// `p` must be valid for writing `ROW_BYTES` bytes.
#[inline(always)]
unsafe fn store_to_move(p: *mut u8, to_move: &Side, moved: &Side) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{__m128i, _mm_storeu_si128};
        // SAFETY: the caller gives ROW_BYTES writable bytes; the stores cover 0..16, 16..32
        // and 25..41 and need no alignment.
        unsafe {
            _mm_storeu_si128(p.cast::<__m128i>(), to_move.0[0]);
            _mm_storeu_si128(p.add(16).cast::<__m128i>(), to_move.0[1]);
            _mm_storeu_si128(p.add(25).cast::<__m128i>(), moved.0[0]);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = moved;
        // SAFETY: the caller gives ROW_BYTES writable bytes; 0..25 are written.
        unsafe { core::ptr::copy_nonoverlapping(to_move.0.as_ptr(), p, 25) };
    }
}

const _: () = assert!(ROW_BYTES == 2 * 25 && SLACK == 32 - 25);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::gnubg_id;
    use crate::Dice;

    #[test]
    fn row_is_to_counts() {
        for id in ["4HPwATDgc/ABMA", "v3sAAAhmdzMAAQ", "AAAAUUoppaQAAA"] {
            let position = gnubg_id::decode(id).unwrap();
            assert_eq!(
                row(&position)[..],
                position.to_counts().concat()[..],
                "{id}"
            );
        }
    }

    #[test]
    fn results_with_and_without_hits_bar_and_bear_off() {
        // One on the bar against blots on the mover's 2-, 3- and 5-points (the
        // opponent's 23-, 22- and 20-points), beside corpus-like positions.
        let mut mover = [0i32; 25];
        (mover[24], mover[5], mover[7]) = (1, 10, 4);
        let mut opponent = [0i32; 25];
        (opponent[22], opponent[21], opponent[19], opponent[5]) = (1, 1, 1, 12);
        let on_bar = Position::from_counts(&mover, &opponent).unwrap();
        let mut origins: Vec<Position> = ["4HPwATDgc/ABMA", "v3sAAAhmdzMAAQ", "m/oZAIDb7UQAAA"]
            .iter()
            .map(|id| gnubg_id::decode(id).unwrap())
            .collect();
        origins.extend([on_bar, gnubg_id::decode("AAAAUUoppaQAAA").unwrap()]);
        let mut list = MoveList::new();
        let (mut hits, mut late_hits) = (0, 0);
        // The writer this CPU runs (AVX-512 where it can), and the baseline one.
        type Writer = fn(&Position, &[u128], &mut [MaybeUninit<u8>]);
        let writers: [(&str, Writer); 2] = [
            ("dispatched", write_keys),
            ("baseline", write_keys_baseline),
        ];
        for (origin, (name, writer)) in origins.iter().flat_map(|o| writers.map(|w| (o, w))) {
            for dice in Dice::ALL_21 {
                origin.generate_moves(dice, &mut list);
                let n = list.len();
                let mut buffer = vec![MaybeUninit::new(0xAAu8); n * ROW_BYTES + 9];
                writer(origin, list.keys(), &mut buffer[..n * ROW_BYTES]);
                // SAFETY: every byte was initialised with 0xAA or written since.
                let bytes: Vec<u8> = buffer.iter().map(|b| unsafe { b.assume_init() }).collect();
                for (i, result) in list.results().enumerate() {
                    let got = &bytes[i * ROW_BYTES..(i + 1) * ROW_BYTES];
                    assert_eq!(got, row(&result), "{name}: {origin:?} {dice} result {i}");
                    let hit = result.mover() != origin.opponent();
                    hits += usize::from(hit);
                    late_hits += usize::from(hit && i >= 64);
                }
                assert!(bytes[n * ROW_BYTES..].iter().all(|&b| b == 0xAA));
                let mut plain = vec![0u8; n * ROW_BYTES];
                write_results(&list, &mut plain);
                assert_eq!(plain, bytes[..n * ROW_BYTES]);
            }
        }
        assert!(hits > 200, "results with hits: {hits}");
        // Rows are written in groups of 64: hits beyond the first group are covered too.
        assert!(late_hits > 10, "hits in rows 64 and later: {late_hits}");
    }

    #[test]
    #[should_panic(expected = "one row per key")]
    fn wrong_length_panics() {
        let mut list = MoveList::new();
        Position::START.generate_moves(Dice::from_pips(3, 1).unwrap(), &mut list);
        write_results(&list, &mut [0u8; 10]);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn hits_in_registers_are_the_portable_hits() {
        // One checker on every point (only the arithmetic matters here), so that any record
        // of hits has a blot to take.
        let bits: u128 = (1..=24).map(|p| 1u128 << (4 * p)).sum();
        let side = Side::spread(bits);
        for hits in [1u32, 1 << 23, 0b101, 0x80_0100, 0xFF_FFFF, 0x12_3456] {
            let mut got = [0u8; 32];
            // SAFETY: `got` is 32 writable bytes; SSE2 is part of the x86_64 baseline.
            unsafe {
                use core::arch::x86_64::{__m128i, _mm_storeu_si128};
                let after = side.after_hits(hits);
                _mm_storeu_si128(got.as_mut_ptr().cast::<__m128i>(), after.0[0]);
                _mm_storeu_si128(got.as_mut_ptr().add(16).cast::<__m128i>(), after.0[1]);
            }
            let want = bytes_after_hits(side_bytes(bits), hits);
            assert_eq!(got[..25], want[..25], "hits {hits:#x}");
            assert_eq!(u32::from(want[24]), hits.count_ones());
            assert_eq!(
                want[23],
                u8::from(hits & 1 == 0),
                "bit 0 is the opponent's point 24"
            );
        }
    }

    #[test]
    fn side_bytes_checkers() {
        let c = Position::START.mover();
        let bytes = side_bytes(c.bits());
        assert_eq!(bytes[..25], c.to_counts());
        assert!(bytes[25..].iter().all(|&b| b == 0));
    }
}
