//! One side's checkers, packed: 4 bits per point in that side's own numbering.
//!
//! Nibble `p` (1..=24) is the count on point `p`, nibble 25 the bar; nibble 0 and the bits
//! above nibble 25 are always zero, so equal boards have equal bits. Borne-off checkers are
//! not stored: they are `15 - on_board()`.

use crate::pointset::PointSet;

/// Checkers per side (R1).
pub const CHECKERS: u8 = 15;
/// The bar's index in one side's numbering.
pub const BAR: u8 = 25;

const LOW_NIBBLE_BITS: u128 = 0x1111_1111_1111_1111_1111_1111_1111_1111;
/// Nibbles 1..=25 (points and bar).
const BOARD_MASK: u128 = ((1u128 << 104) - 1) & !0xF;

/// One side's checkers on its 24 points and its bar, 4 bits a point.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug, PartialOrd, Ord)]
pub struct Checkers(u128);

impl Checkers {
    /// No checker on the board (all borne off).
    pub const EMPTY: Checkers = Checkers(0);

    /// The standard start (R1): 2 on the 24-point, 5 on the 13, 3 on the 8, 5 on the 6.
    pub const START: Checkers = Checkers(
        (2u128 << (4 * 24)) | (5u128 << (4 * 13)) | (3u128 << (4 * 8)) | (5u128 << (4 * 6)),
    );

    /// Builds from raw bits; the caller guarantees nibble 0 and nibbles above 25 are zero and
    /// the total is at most 15.
    #[inline]
    pub(crate) const fn from_bits_unchecked(bits: u128) -> Checkers {
        Checkers(bits)
    }

    /// The packed bits (nibble `p` = count on point `p`, nibble 25 = bar).
    #[inline]
    pub const fn bits(self) -> u128 {
        self.0
    }

    /// Builds from counts for points 1..=24 (`counts[0]` = point 1) and the bar (`counts[24]`),
    /// or `None` if any count exceeds 15 (totals are checked by [`crate::Position`]).
    #[inline]
    pub fn from_counts(counts: &[u8; 25]) -> Option<Checkers> {
        // Eight counts at a time in a word (batch validation packs millions of rows).
        let word = |k: usize| {
            let bytes: [u8; 8] = counts[8 * k..8 * k + 8].try_into().expect("8 counts");
            u64::from_le_bytes(bytes)
        };
        let (low, middle, high, bar) = (word(0), word(1), word(2), counts[24]);
        // A count above CHECKERS = 15 is the only kind with a bit above its low nibble.
        const _: () = assert!(CHECKERS == 0xF);
        if (low | middle | high | u64::from(bar)) & 0xF0F0_F0F0_F0F0_F0F0 != 0 {
            return None;
        }
        Some(Checkers(
            (u128::from(pack_nibbles(low)) << 4)
                | (u128::from(pack_nibbles(middle)) << 36)
                | (u128::from(pack_nibbles(high)) << 68)
                | (u128::from(bar) << (4 * BAR as u32)),
        ))
    }

    /// Counts in the `from_counts` layout: points 1..=24 then the bar.
    pub fn to_counts(self) -> [u8; 25] {
        let mut counts = [0u8; 25];
        for (i, c) in counts.iter_mut().enumerate() {
            *c = self.count(i as u8 + 1);
        }
        counts
    }

    /// The number of checkers on `point` (1..=24, or 25 for the bar). A larger `point`
    /// panics in debug builds and reads another point's count in release builds: this sits
    /// on the move generator's hot path, so callers keep to the range.
    #[inline]
    pub const fn count(self, point: u8) -> u8 {
        debug_assert!(point <= BAR, "a point is from 1 to 24, or 25 for the bar");
        ((self.0 >> (4 * point as u32)) & 0xF) as u8
    }

    /// Checkers on the bar.
    #[inline]
    pub const fn bar(self) -> u8 {
        self.count(BAR)
    }

    /// Checkers on the points and the bar.
    #[inline]
    pub const fn on_board(self) -> u8 {
        // Sum nibbles in parallel: pairs into bytes, then a multiply folds the bytes.
        let x = self.0;
        let bytes = (x & 0x0F0F_0F0F_0F0F_0F0F_0F0F_0F0F_0F0F_0F0F)
            + ((x >> 4) & 0x0F0F_0F0F_0F0F_0F0F_0F0F_0F0F_0F0F_0F0F);
        let lo = (bytes as u64).wrapping_mul(0x0101_0101_0101_0101) >> 56;
        let hi = ((bytes >> 64) as u64).wrapping_mul(0x0101_0101_0101_0101) >> 56;
        (lo + hi) as u8
    }

    /// Checkers borne off.
    #[inline]
    pub const fn off(self) -> u8 {
        CHECKERS - self.on_board()
    }

    /// Pip count: the sum over checkers of their distance to bearing off (the bar counts 25).
    pub fn pips(self) -> u32 {
        (1..=BAR).map(|p| p as u32 * self.count(p) as u32).sum()
    }

    /// Points (and bar) holding at least one checker.
    #[inline]
    pub fn occupied(self) -> PointSet {
        PointSet(compress_nibble_flags(nonzero_flags(self.0)))
    }

    /// Points holding two or more checkers (made points, R7).
    #[inline]
    pub fn made(self) -> PointSet {
        PointSet(compress_nibble_flags(at_least_two_flags(self.0)) & 0x1FF_FFFE)
    }

    /// Points holding exactly one checker (blots, R6).
    #[inline]
    pub fn blots(self) -> PointSet {
        let x = self.0;
        PointSet(compress_nibble_flags(x & LOW_NIBBLE_BITS & !at_least_two_flags(x)) & 0x1FF_FFFE)
    }

    /// Whether every checker still on the board is on the home points 1..=6 (R13).
    #[inline]
    pub const fn all_home(self) -> bool {
        self.0 & !0x0FFF_FFFF == 0
    }

    /// Adds `n` checkers to `point`; the caller keeps counts within 15.
    #[inline]
    pub(crate) const fn plus(self, point: u8, n: u8) -> Checkers {
        Checkers(self.0 + ((n as u128) << (4 * point as u32)))
    }

    /// Removes `n` checkers from `point`; the caller knows they are there.
    #[inline]
    pub(crate) const fn minus(self, point: u8, n: u8) -> Checkers {
        Checkers(self.0 - ((n as u128) << (4 * point as u32)))
    }
}

/// Eight byte counts, each below 16, packed into eight nibbles (byte k into nibble k).
#[inline]
const fn pack_nibbles(x: u64) -> u64 {
    let x = (x | (x >> 4)) & 0x00FF_00FF_00FF_00FF; // byte 2j: counts 2j and 2j + 1
    let x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF;
    (x | (x >> 16)) & 0xFFFF_FFFF
}

/// Bit `4p` set where nibble `p` is nonzero.
#[inline]
const fn nonzero_flags(x: u128) -> u128 {
    (x | (x >> 1) | (x >> 2) | (x >> 3)) & LOW_NIBBLE_BITS
}

/// Bit `4p` set where nibble `p` is at least two.
#[inline]
const fn at_least_two_flags(x: u128) -> u128 {
    ((x >> 1) | (x >> 2) | (x >> 3)) & LOW_NIBBLE_BITS
}

/// Gathers flags at bits `4p` (p < 32) into bits `p` of a u32.
#[inline]
pub(crate) const fn compress_nibble_flags(x: u128) -> u32 {
    let x = (x | (x >> 3)) & 0x0303_0303_0303_0303_0303_0303_0303_0303;
    let x = (x | (x >> 6)) & 0x000F_000F_000F_000F_000F_000F_000F_000F;
    let x = (x | (x >> 12)) & 0x0000_00FF_0000_00FF_0000_00FF_0000_00FF;
    let x = (x | (x >> 24)) & 0x0000_0000_0000_FFFF_0000_0000_0000_FFFF;
    let x = (x | (x >> 48)) & 0xFFFF_FFFF;
    x as u32
}

const _: () = assert!(BOARD_MASK & 0xF == 0);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_has_fifteen_and_167_pips() {
        assert_eq!(Checkers::START.on_board(), 15);
        assert_eq!(Checkers::START.off(), 0);
        assert_eq!(Checkers::START.pips(), 167);
    }

    #[test]
    fn from_counts_packs_like_a_plain_loop() {
        let reference = |counts: &[u8; 25]| -> Option<u128> {
            let mut bits = 0u128;
            for (i, &c) in counts.iter().enumerate() {
                if c > CHECKERS {
                    return None;
                }
                bits |= u128::from(c) << (4 * (i + 1));
            }
            Some(bits)
        };
        let mut rng = crate::rng::GameRng::new(5, 0);
        let mut rejected = 0;
        for _ in 0..20_000 {
            let mut counts = [0u8; 25];
            for c in &mut counts {
                // Mostly small counts, now and then one of 16 or more on any point.
                *c = if rng.below(100) == 0 {
                    16 + rng.below(240) as u8
                } else {
                    rng.below(16) as u8
                };
            }
            let got = Checkers::from_counts(&counts).map(Checkers::bits);
            assert_eq!(got, reference(&counts), "{counts:?}");
            rejected += usize::from(got.is_none());
        }
        assert!(rejected > 1000, "{rejected}");
    }

    #[test]
    fn masks_match_counts() {
        let mut counts = [0u8; 25];
        counts[0] = 1; // point 1: blot
        counts[5] = 5; // point 6: made
        counts[23] = 2; // point 24: made
        counts[24] = 1; // bar
        let c = Checkers::from_counts(&counts).unwrap();
        assert_eq!(
            c.occupied(),
            PointSet((1 << 1) | (1 << 6) | (1 << 24) | (1 << 25))
        );
        assert_eq!(c.made(), PointSet((1 << 6) | (1 << 24)));
        assert_eq!(c.blots(), PointSet(1 << 1));
        assert_eq!(c.to_counts(), counts);
    }

    #[test]
    fn all_home_is_points_one_to_six() {
        let mut counts = [0u8; 25];
        counts[5] = 15;
        assert!(Checkers::from_counts(&counts).unwrap().all_home());
        counts[6] = 1;
        counts[5] = 14;
        assert!(!Checkers::from_counts(&counts).unwrap().all_home());
    }
}
