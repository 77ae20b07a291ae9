//! A set of points as a 32-bit mask: bit `p` is the point numbered `p` in one side's own
//! numbering (1..=24), bit 25 its bar. Move generation works on these instead of loops.

/// A set of points (bit `p` = point `p`, 25 = bar) in one side's numbering.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct PointSet(pub(crate) u32);

impl PointSet {
    /// No point.
    pub const EMPTY: PointSet = PointSet(0);
    /// Points 1..=6: the home board (R1).
    pub const HOME: PointSet = PointSet(0b111_1110);

    /// The raw mask.
    #[inline]
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The set holding only `point` (0..=31; the move generator keeps to 1..=25). A larger
    /// `point` panics in debug builds and stands for `point % 32` in release builds.
    #[inline]
    pub const fn single(point: u8) -> PointSet {
        debug_assert!(point < 32, "a point set holds points 0 to 31");
        PointSet(1 << point)
    }

    /// Whether `point` is in the set (`point` in 0..=31, as for [`PointSet::single`]).
    #[inline]
    pub const fn contains(self, point: u8) -> bool {
        debug_assert!(point < 32, "a point set holds points 0 to 31");
        self.0 & (1 << point) != 0
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many points the set holds.
    #[inline]
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// The highest point in the set, if any.
    #[inline]
    pub const fn highest(self) -> Option<u8> {
        if self.0 == 0 {
            None
        } else {
            Some(31 - self.0.leading_zeros() as u8)
        }
    }

    /// The points in both sets.
    #[inline]
    #[must_use]
    pub const fn and(self, other: PointSet) -> PointSet {
        PointSet(self.0 & other.0)
    }

    /// The points of `self` not in `other`.
    #[inline]
    #[must_use]
    pub const fn without(self, other: PointSet) -> PointSet {
        PointSet(self.0 & !other.0)
    }

    /// The same points seen from the other side: point `p` becomes `25 - p` (1..=24 only).
    #[inline]
    #[must_use]
    pub const fn mirrored(self) -> PointSet {
        PointSet((self.0 & 0x1FF_FFFE).reverse_bits() >> 6)
    }
}

impl Iterator for PointSet {
    type Item = u8;

    /// Points from the lowest up.
    #[inline]
    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            return None;
        }
        let p = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirrored_maps_p_to_25_minus_p() {
        for p in 1..=24u8 {
            assert_eq!(PointSet::single(p).mirrored(), PointSet::single(25 - p));
        }
    }

    #[test]
    fn iterates_low_to_high() {
        let s = PointSet(0b1010_0010);
        assert_eq!(s.collect::<Vec<_>>(), vec![1, 5, 7]);
        assert_eq!(s.highest(), Some(7));
    }
}
