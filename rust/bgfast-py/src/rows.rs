//! Positions as rows of the `(2, 25)` uint8 layout (`Position.to_array()`): pure Rust, shared
//! by the batch entry points and `examples/movegen_rate.rs`.

use std::mem::MaybeUninit;

use bgfast_core::{Checkers, Position};

/// Bytes of one position in the `(2, 25)` uint8 layout.
pub const ROW_BYTES: usize = 50;

/// One side's packed checkers (nibble p = point p, nibble 25 = bar) as two vectors holding
/// 32 bytes whose first 25 are the counts of points 1..24 and the bar; the last 7 are zero.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn side_vectors(bits: u128) -> [core::arch::x86_64::__m128i; 2] {
    use core::arch::x86_64::{
        _mm_and_si128, _mm_set1_epi8, _mm_set_epi64x, _mm_srli_epi16, _mm_unpackhi_epi8,
        _mm_unpacklo_epi8,
    };
    let x = bits >> 4;
    // SAFETY: SSE2 is part of the x86_64 baseline, so these intrinsics are always available;
    // they only compute on registers.
    unsafe {
        let v = _mm_set_epi64x((x >> 64) as i64, x as i64);
        let low = _mm_set1_epi8(0x0F);
        let even = _mm_and_si128(v, low); // nibbles 0, 2, 4, ... in byte order
        let odd = _mm_and_si128(_mm_srli_epi16(v, 4), low); // nibbles 1, 3, 5, ...
        [_mm_unpacklo_epi8(even, odd), _mm_unpackhi_epi8(even, odd)]
    }
}

/// One side's packed checkers as 32 bytes (see [`side_vectors`]).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn side_bytes(bits: u128) -> [u8; 32] {
    // SAFETY: `[__m128i; 2]` and `[u8; 32]` have the same size and every bit pattern is a
    // valid `[u8; 32]`.
    unsafe {
        core::mem::transmute::<[core::arch::x86_64::__m128i; 2], [u8; 32]>(side_vectors(bits))
    }
}

/// Portable fallback: spread 8 nibbles at a time into 8 bytes.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn side_bytes(bits: u128) -> [u8; 32] {
    fn spread(x: u32) -> u64 {
        let x = x as u64;
        let x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
        let x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
        (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F
    }
    let x = bits >> 4;
    let mut out = [0u8; 32];
    for k in 0..4 {
        let word = spread((x >> (32 * k)) as u32);
        out[8 * k..8 * k + 8].copy_from_slice(&word.to_le_bytes());
    }
    out
}

/// A position as a `(2, 25)` row: the side to move, then the opponent.
#[inline(always)]
pub fn row_bytes(position: &Position) -> [u8; ROW_BYTES] {
    let mut buf = [0u8; 64];
    buf[..32].copy_from_slice(&side_bytes(position.mover().bits()));
    // The mover's 7 trailing zero bytes are overwritten by the opponent's row.
    buf[25..57].copy_from_slice(&side_bytes(position.opponent().bits()));
    let mut row = [0u8; ROW_BYTES];
    row.copy_from_slice(&buf[..ROW_BYTES]);
    row
}

/// Bytes a [`write_row_with_slack`] may clobber after its row.
const SLACK: usize = 7;

/// One side's 32 bytes as they are stored (the x86_64 build keeps them in two vectors).
#[cfg(target_arch = "x86_64")]
type SideRow = [core::arch::x86_64::__m128i; 2];
#[cfg(not(target_arch = "x86_64"))]
type SideRow = [u8; 32];

#[inline(always)]
fn side_row(checkers: Checkers) -> SideRow {
    #[cfg(target_arch = "x86_64")]
    return side_vectors(checkers.bits());
    #[cfg(not(target_arch = "x86_64"))]
    return side_bytes(checkers.bits());
}

/// Writes a row (`row0` then `row1`) into `dst[..ROW_BYTES]` with four 16-byte stores,
/// clobbering the `SLACK` bytes after it (a following row overwrites them). Panics if `dst`
/// is shorter than `ROW_BYTES + SLACK`.
#[inline(always)]
fn write_row_with_slack(dst: &mut [MaybeUninit<u8>], row0: &SideRow, row1: &SideRow) {
    let dst = &mut dst[..ROW_BYTES + SLACK];
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{__m128i, _mm_storeu_si128};
        let p = dst.as_mut_ptr().cast::<u8>();
        // SAFETY: `dst` holds ROW_BYTES + SLACK = 57 bytes; the stores cover 0..16, 16..32,
        // 25..41 and 41..57, unaligned stores need no alignment, and writing initialises
        // MaybeUninit bytes. Row 0's zero bytes 25..32 are overwritten by row 1's.
        unsafe {
            _mm_storeu_si128(p.cast::<__m128i>(), row0[0]);
            _mm_storeu_si128(p.add(16).cast::<__m128i>(), row0[1]);
            _mm_storeu_si128(p.add(25).cast::<__m128i>(), row1[0]);
            _mm_storeu_si128(p.add(41).cast::<__m128i>(), row1[1]);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (head, tail) = dst.split_at_mut(25);
        for (d, &s) in head.iter_mut().zip(row0.iter()) {
            d.write(s);
        }
        for (d, &s) in tail.iter_mut().zip(row1.iter()) {
            d.write(s);
        }
    }
}

/// Writes the row of `position` into exactly `dst[..ROW_BYTES]`.
#[inline(always)]
fn write_row(dst: &mut [MaybeUninit<u8>], position: &Position) {
    for (d, &s) in dst[..ROW_BYTES].iter_mut().zip(&row_bytes(position)) {
        d.write(s);
    }
}

/// Writes one row per result of a move generation from `origin` into `dst`, which must be
/// exactly `ROW_BYTES` times as long as `results`; every byte of `dst` is initialised when
/// it returns, none after it touched.
///
/// A result's row 0 (its side to move) is `origin`'s opponent unless the move hit a blot, so
/// those bytes are computed once per origin: only row 1 changes from result to result.
#[inline]
pub fn write_results(
    dst: &mut [MaybeUninit<u8>],
    origin: &Position,
    results: impl ExactSizeIterator<Item = Position>,
) {
    let n = results.len();
    assert_eq!(dst.len(), n * ROW_BYTES, "one row per result");
    let unhit = origin.opponent();
    let unhit_row = side_row(unhit);
    for (i, result) in results.enumerate() {
        let at = i * ROW_BYTES;
        if i + 1 == n {
            write_row(&mut dst[at..], &result);
            break;
        }
        // The slack lands inside the next row, which is written next.
        let row1 = side_row(result.opponent());
        if result.mover() == unhit {
            write_row_with_slack(&mut dst[at..], &unhit_row, &row1);
        } else {
            write_row_with_slack(&mut dst[at..], &side_row(result.mover()), &row1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bgfast_core::codec::gnubg_id;

    #[test]
    fn rows_match_to_counts() {
        for id in [
            "4HPwATDgc/ABMA",
            "v3sAAAhmdzMAAQ",
            "m/oZAIDb7UQAAA",
            "AAAAUUoppaQAAA",
        ] {
            let position = gnubg_id::decode(id).unwrap();
            let [mover, opponent] = position.to_counts();
            let row = row_bytes(&position);
            assert_eq!(row[..25], mover, "{id}");
            assert_eq!(row[25..], opponent, "{id}");
        }
    }

    #[test]
    fn write_results_matches_row_bytes() {
        // Results with and without hits (row 0 changes only when a blot is hit), doubles,
        // a bar entry and a bear-off.
        let mut list = bgfast_core::MoveList::new();
        // One on the bar against blots on the mover's 2-, 3- and 5-points (its opponent's
        // 23-, 22- and 20-points).
        let mut mover = [0i32; 25];
        (mover[24], mover[5], mover[7]) = (1, 10, 4);
        let mut opponent = [0i32; 25];
        (opponent[22], opponent[21], opponent[19], opponent[5]) = (1, 1, 1, 12);
        let on_bar = Position::from_counts(&mover, &opponent).unwrap();
        let origins = [
            "4HPwATDgc/ABMA",
            "v3sAAAhmdzMAAQ",
            "m/oZAIDb7UQAAA",
            "AAAAUUoppaQAAA",
        ]
        .map(|id| (id.to_string(), gnubg_id::decode(id).unwrap()));
        let mut hits = 0;
        for (id, origin) in origins
            .into_iter()
            .chain([("on the bar".to_string(), on_bar)])
        {
            for dice in bgfast_core::Dice::ALL_21 {
                origin.generate_moves(dice, &mut list);
                let n = list.len();
                let mut buffer = vec![MaybeUninit::new(0xAAu8); n * ROW_BYTES + 9];
                write_results(&mut buffer[..n * ROW_BYTES], &origin, list.results());
                for (i, result) in list.results().enumerate() {
                    let got: Vec<u8> = buffer[i * ROW_BYTES..(i + 1) * ROW_BYTES]
                        .iter()
                        .map(|b| unsafe { b.assume_init() })
                        .collect();
                    assert_eq!(got, row_bytes(&result), "{id} {dice} result {i}");
                    hits += usize::from(result.mover() != origin.opponent());
                }
                // Nothing after the last row is touched.
                assert!(buffer[n * ROW_BYTES..]
                    .iter()
                    .all(|b| unsafe { b.assume_init() } == 0xAA));
            }
        }
        assert!(hits > 100, "results with hits: {hits}");
    }
}
