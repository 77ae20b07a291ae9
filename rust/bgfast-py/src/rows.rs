//! Positions as rows of the `(2, 25)` uint8 layout (`Position.to_array()`): pure Rust, shared
//! by the batch entry points and `examples/movegen_rate.rs`.

use std::mem::MaybeUninit;

use bgfast_core::Position;

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

/// Writes the row of `position` into `dst[..ROW_BYTES]` with four 16-byte stores, clobbering
/// the `SLACK` bytes after it (a following row overwrites them). Panics if `dst` is shorter
/// than `ROW_BYTES + SLACK`.
#[inline(always)]
fn write_row_with_slack(dst: &mut [MaybeUninit<u8>], position: &Position) {
    let dst = &mut dst[..ROW_BYTES + SLACK];
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{__m128i, _mm_storeu_si128};
        let [m0, m1] = side_vectors(position.mover().bits());
        let [o0, o1] = side_vectors(position.opponent().bits());
        let p = dst.as_mut_ptr().cast::<u8>();
        // SAFETY: `dst` holds ROW_BYTES + SLACK = 57 bytes; the stores cover 0..16, 16..32,
        // 25..41 and 41..57, unaligned stores need no alignment, and writing initialises
        // MaybeUninit bytes. The mover's zero bytes 25..32 are overwritten by the opponent's.
        unsafe {
            _mm_storeu_si128(p.cast::<__m128i>(), m0);
            _mm_storeu_si128(p.add(16).cast::<__m128i>(), m1);
            _mm_storeu_si128(p.add(25).cast::<__m128i>(), o0);
            _mm_storeu_si128(p.add(41).cast::<__m128i>(), o1);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    write_row(&mut dst[..ROW_BYTES], position);
}

/// Writes the row of `position` into exactly `dst[..ROW_BYTES]`.
#[inline(always)]
fn write_row(dst: &mut [MaybeUninit<u8>], position: &Position) {
    for (d, &s) in dst[..ROW_BYTES].iter_mut().zip(&row_bytes(position)) {
        d.write(s);
    }
}

/// Writes one row per position into `dst`, which must be exactly `ROW_BYTES` times as long
/// as `positions`; every byte of `dst` is initialised when it returns, none after it touched.
#[inline]
pub fn write_rows(dst: &mut [MaybeUninit<u8>], positions: impl ExactSizeIterator<Item = Position>) {
    let n = positions.len();
    assert_eq!(dst.len(), n * ROW_BYTES, "one row per position");
    for (i, position) in positions.enumerate() {
        let at = i * ROW_BYTES;
        if i + 1 < n {
            // The slack lands inside the next row, which is written next.
            write_row_with_slack(&mut dst[at..], &position);
        } else {
            write_row(&mut dst[at..], &position);
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
    fn write_rows_matches_row_bytes() {
        let positions: Vec<Position> = ["4HPwATDgc/ABMA", "v3sAAAhmdzMAAQ", "AAAAUUoppaQAAA"]
            .iter()
            .map(|id| gnubg_id::decode(id).unwrap())
            .collect();
        let mut buffer = [MaybeUninit::new(0xAAu8); 3 * ROW_BYTES + 9];
        write_rows(&mut buffer[..3 * ROW_BYTES], positions.iter().copied());
        for (i, p) in positions.iter().enumerate() {
            let got: Vec<u8> = buffer[i * ROW_BYTES..(i + 1) * ROW_BYTES]
                .iter()
                .map(|b| unsafe { b.assume_init() })
                .collect();
            assert_eq!(got, row_bytes(p));
        }
        // Nothing after the last row is touched.
        assert!(buffer[3 * ROW_BYTES..]
            .iter()
            .all(|b| unsafe { b.assume_init() } == 0xAA));
    }
}
