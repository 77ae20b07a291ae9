//! Positions as rows of the `(2, 25)` uint8 layout (`Position.to_array()`): pure Rust, shared
//! by the batch entry points and `examples/movegen_rate.rs`.

use bgfast_core::Position;

/// Bytes of one position in the `(2, 25)` uint8 layout.
pub const ROW_BYTES: usize = 50;

/// One side's packed checkers (nibble p = point p, nibble 25 = bar) as 32 bytes whose first
/// 25 are the counts of points 1..24 and the bar; the last 7 are zero.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn side_bytes(bits: u128) -> [u8; 32] {
    use core::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_set1_epi8, _mm_set_epi64x, _mm_srli_epi16, _mm_unpackhi_epi8,
        _mm_unpacklo_epi8,
    };
    let x = bits >> 4;
    // SAFETY: SSE2 is part of the x86_64 baseline, so these intrinsics are always available;
    // they only compute on registers. `[__m128i; 2]` and `[u8; 32]` have the same size and
    // every bit pattern is a valid `[u8; 32]`.
    unsafe {
        let v = _mm_set_epi64x((x >> 64) as i64, x as i64);
        let low = _mm_set1_epi8(0x0F);
        let even = _mm_and_si128(v, low); // nibbles 0, 2, 4, ... in byte order
        let odd = _mm_and_si128(_mm_srli_epi16(v, 4), low); // nibbles 1, 3, 5, ...
        let bytes: [__m128i; 2] = [_mm_unpacklo_epi8(even, odd), _mm_unpackhi_epi8(even, odd)];
        core::mem::transmute::<[__m128i; 2], [u8; 32]>(bytes)
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
}
