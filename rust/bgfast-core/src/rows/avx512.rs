//! [`super::write_keys`] for CPUs with AVX-512 VBMI (Intel since Ice Lake, AMD since Zen 4):
//! a row is one 64-byte register, built from the key by a byte permutation (each quadword
//! of the row gets the 8 key bytes holding its points), a multishift (each row byte the 4
//! bits of its point, and 4 more) and one ternary-logic step (drop the extra bits, add the
//! side to move), and written by one masked store of exactly its 50 bytes; the SSE2 writer
//! needs about three times the instructions and four stores. A row whose move hit (18% of
//! the contact corpus' results) gets its side to move from the key's record of hits, again
//! in registers: the record as a byte mask, permuted onto the points hit, takes a checker
//! from each, and their number goes to the bar.
//!
//! Measured (`movegen_rate`, generation and rows of a contact (position, roll)): 170 ns with
//! the SSE2 writer, 150 ns with this one; the rest of the writing cost is the memory the
//! rows go to.

use core::arch::x86_64::{
    __m512i, _mm512_add_epi8, _mm512_and_si512, _mm512_broadcast_i32x4, _mm512_loadu_si512,
    _mm512_mask_storeu_epi8, _mm512_maskz_set1_epi8, _mm512_movm_epi8,
    _mm512_multishift_epi64_epi8, _mm512_permutexvar_epi8, _mm512_ternarylogic_epi32,
    _mm_loadu_si128, _mm_set_epi64x,
};
use core::mem::MaybeUninit;

use super::ROW_BYTES;
use crate::movegen::HIT_KEY_SHIFT;
use crate::Position;

/// Bytes 0..25 of a row: the side to move's points 1..25.
const TO_MOVE: u64 = (1 << 25) - 1;
/// Bytes 25..50: the other side's.
const MOVED: u64 = ((1 << 50) - 1) & !TO_MOVE;

/// How the bytes `mask` of a row (one side's) are spread from a packed side: each
/// quadword of the row takes 8 bytes of the side (byte permutation `window`) that hold its
/// points, and then each row byte the 8 bits at `shift` of them (multishift).
struct Layout {
    window: [u8; 64],
    shift: [u8; 64],
}

/// The point of row byte `j`: `j + 1` on the side to move, `j - 24` on the other.
const fn point(j: usize) -> usize {
    if j < 25 {
        j + 1
    } else {
        j - 24
    }
}

/// The layout of the side whose row bytes are `mask`.
const fn layout(mask: u64) -> Layout {
    let mut out = Layout {
        window: [0; 64],
        shift: [0; 64],
    };
    let mut q = 0;
    while q < 8 {
        // The lowest point of the side in this quadword; its window starts at its byte, and
        // 8 bytes (16 points) cover the quadword's at most 8 points.
        let mut first = usize::MAX;
        let mut j = 8 * q;
        while j < 8 * q + 8 {
            if mask >> j & 1 == 1 && point(j) < first {
                first = point(j);
            }
            j += 1;
        }
        if first != usize::MAX {
            let start = first / 2;
            let mut k = 0;
            while k < 8 {
                out.window[8 * q + k] = (start + k) as u8;
                k += 1;
            }
            let mut j = 8 * q;
            while j < 8 * q + 8 {
                if mask >> j & 1 == 1 {
                    out.shift[j] = (4 * (point(j) - 2 * start)) as u8;
                }
                j += 1;
            }
        }
        q += 1;
    }
    out
}

const TO_MOVE_LAYOUT: Layout = layout(TO_MOVE);
const MOVED_LAYOUT: Layout = layout(MOVED);

/// 0x0F in the bytes of `mask`, 0 in the others.
const fn low_nibbles(mask: u64) -> [u8; 64] {
    let mut out = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        if mask >> j & 1 == 1 {
            out[j] = 0x0F;
        }
        j += 1;
    }
    out
}

const TO_MOVE_NIBBLES: [u8; 64] = low_nibbles(TO_MOVE);
const MOVED_NIBBLES: [u8; 64] = low_nibbles(MOVED);

/// The row byte of the side to move's bar.
const BAR_BYTE: u32 = 24;

/// For row byte `j` of the side to move, the bit of a key's record of hits that stands for
/// its point `j + 1`: bit `i` is the mover's point `i + 1`, the opponent's `24 - i`. Bytes
/// that no hit can reach take bit 63, which is never set.
const HIT_BYTE: [u8; 64] = {
    let mut idx = [63u8; 64];
    let mut j = 0;
    while j < 24 {
        idx[j] = (23 - j) as u8;
        j += 1;
    }
    idx
};

/// Whether this CPU can run [`write_keys`] (checked once by the standard library).
#[inline]
pub(super) fn available() -> bool {
    std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512vbmi")
}

/// [`super::write_keys`], same contract and output.
///
/// # Safety
/// The CPU must have AVX-512 F, BW and VBMI ([`available`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) unsafe fn write_keys(origin: &Position, keys: &[u128], dst: &mut [MaybeUninit<u8>]) {
    assert_eq!(dst.len(), keys.len() * ROW_BYTES, "one row per key");
    let to_move = Spreader::new(&TO_MOVE_LAYOUT, &TO_MOVE_NIBBLES);
    let moved = Spreader::new(&MOVED_LAYOUT, &MOVED_NIBBLES);
    // The side to move of a row without a hit, zero in the other side's bytes.
    let unhit = _mm512_and_si512(to_move.spread(origin.opponent().bits()), to_move.nibbles);
    // SAFETY: HIT_BYTE is 64 readable bytes.
    let hit_byte = unsafe { _mm512_loadu_si512(HIT_BYTE.as_ptr().cast()) };
    let base = dst.as_mut_ptr().cast::<u8>();
    // As in the SSE2 writer: a group of 64 rows as if nothing was hit, then the rows that
    // hit get their side to move rewritten, found through a bit mask (whether a move hit is
    // as good as random: a branch on it would mispredict).
    for (g, group) in keys.chunks(64).enumerate() {
        let first = g * 64;
        let mut hit_rows = 0u64;
        for (k, key) in group.iter().enumerate() {
            hit_rows |= u64::from(key >> HIT_KEY_SHIFT != 0) << k;
            // SAFETY: `key` is 16 readable bytes.
            let spread = unsafe { moved.spread_at(key) };
            // unhit | (spread & nibbles): the side to move, then the moved side's nibbles
            // (the bits the multishift took past a point's nibble are dropped).
            let row = _mm512_ternarylogic_epi32::<0xF8>(unhit, spread, moved.nibbles);
            // SAFETY: row first + k is inside `dst` (ROW_BYTES bytes at (first + k) *
            // ROW_BYTES), and the masked store writes exactly those bytes.
            unsafe {
                _mm512_mask_storeu_epi8(
                    base.add((first + k) * ROW_BYTES).cast(),
                    TO_MOVE | MOVED,
                    row,
                )
            };
        }
        while hit_rows != 0 {
            let k = hit_rows.trailing_zeros() as usize;
            hit_rows &= hit_rows - 1;
            // The side to move loses a checker on each point hit and gains them on its bar.
            let hits = (group[k] >> HIT_KEY_SHIFT) as u64;
            let lost = _mm512_permutexvar_epi8(hit_byte, _mm512_movm_epi8(hits));
            let on_bar = _mm512_maskz_set1_epi8(1 << BAR_BYTE, hits.count_ones() as i8);
            let side = _mm512_add_epi8(_mm512_add_epi8(unhit, lost), on_bar);
            // SAFETY: as above; only the side to move's 25 bytes are stored.
            unsafe {
                _mm512_mask_storeu_epi8(base.add((first + k) * ROW_BYTES).cast(), TO_MOVE, side)
            };
        }
    }
}

/// One side's [`Layout`], loaded into registers.
#[derive(Clone, Copy)]
struct Spreader {
    window: __m512i,
    shift: __m512i,
    /// 0x0F in the side's bytes, 0 in the others.
    nibbles: __m512i,
}

impl Spreader {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn new(layout: &Layout, nibbles: &[u8; 64]) -> Spreader {
        // SAFETY: each array is 64 readable bytes.
        unsafe {
            Spreader {
                window: _mm512_loadu_si512(layout.window.as_ptr().cast()),
                shift: _mm512_loadu_si512(layout.shift.as_ptr().cast()),
                nibbles: _mm512_loadu_si512(nibbles.as_ptr().cast()),
            }
        }
    }

    /// The side's row bytes of packed checkers `bits` (nibble `p` = point `p`), each with
    /// the next point's nibble still above it.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn spread(self, bits: u128) -> __m512i {
        let v = _mm_set_epi64x((bits >> 64) as i64, bits as i64);
        self.select(_mm512_broadcast_i32x4(v))
    }

    /// [`Spreader::spread`] of the packed checkers at `key`, read straight from memory (its
    /// record of hits lies above point 25 and is never selected).
    ///
    /// # Safety
    /// `key` must be 16 readable bytes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    unsafe fn spread_at(self, key: &u128) -> __m512i {
        // SAFETY: the caller gives 16 readable bytes; an unaligned load needs no more.
        let v = unsafe { _mm_loadu_si128((key as *const u128).cast()) };
        self.select(_mm512_broadcast_i32x4(v))
    }

    /// Every lane of `v` holds the packed side (so window bytes past 15 repeat it).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn select(self, v: __m512i) -> __m512i {
        _mm512_multishift_epi64_epi8(self.shift, _mm512_permutexvar_epi8(self.window, v))
    }
}
