//! Exact sums of a rollout's per-game results, so no thread count or shard layout can
//! change a single bit of the answer.
//!
//! A truncated, exactly-scored or variance-reduced game gives a real number, not an integer
//! count, and floating-point addition depends on its order. So every per-game value is
//! added as a 256-bit fixed-point number with 128 fraction bits ([`Wide`]): exact for every
//! value a rollout produces (any `f64` from 2^-75 to 2^127 in magnitude converts without
//! rounding), and integer addition is associative. Squares and cross products (for
//! standard errors) are the `f64` products, rounded once per game, then added exactly.

/// Fraction bits of a [`Wide`].
pub const FRACTION_BITS: u32 = 128;

/// A 256-bit two's-complement fixed-point number with [`FRACTION_BITS`] fraction bits:
/// four 64-bit limbs, least significant first.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Wide([u64; 4]);

impl Wide {
    /// Zero.
    pub const ZERO: Wide = Wide([0; 4]);

    /// `v` in fixed point. Exact when `|v| >= 2^-75` (or zero), truncated towards zero
    /// below; `v` must be finite with `|v| < 2^127` (rollout values are below 2^17).
    pub fn from_f64(v: f64) -> Wide {
        debug_assert!(v.is_finite() && v.abs() < 2f64.powi(127), "{v}");
        if v == 0.0 || !v.is_finite() {
            return Wide::ZERO;
        }
        let bits = v.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as i32;
        let fraction = bits & ((1u64 << 52) - 1);
        // v = mantissa * 2^power
        let (mantissa, power) = if exponent == 0 {
            (fraction, -1074)
        } else {
            (fraction | (1u64 << 52), exponent - 1075)
        };
        // The bit of the fixed-point number where the mantissa's lowest bit lands.
        let at = power + FRACTION_BITS as i32;
        let mut limbs = [0u64; 4];
        if at >= 0 {
            let at = at as u32;
            let (limb, shift) = ((at / 64) as usize, at % 64);
            if limb < 4 {
                limbs[limb] = mantissa << shift;
            }
            if shift > 0 && limb + 1 < 4 {
                limbs[limb + 1] = mantissa >> (64 - shift);
            }
        } else if at > -64 {
            limbs[0] = mantissa >> (-at) as u32;
        }
        let w = Wide(limbs);
        if bits >> 63 == 1 {
            w.negated()
        } else {
            w
        }
    }

    /// `-self`.
    pub fn negated(self) -> Wide {
        let mut out = [0u64; 4];
        let mut carry = 1u64;
        for (o, &l) in out.iter_mut().zip(&self.0) {
            let (sum, c) = (!l).overflowing_add(carry);
            *o = sum;
            carry = c as u64;
        }
        Wide(out)
    }

    /// `self + other` in place (wrapping past 2^255, which rollouts never reach).
    #[inline]
    fn accumulate(&mut self, other: Wide) {
        let mut carry = false;
        for (a, &b) in self.0.iter_mut().zip(&other.0) {
            let (s1, c1) = a.overflowing_add(b);
            let (s2, c2) = s1.overflowing_add(carry as u64);
            *a = s2;
            carry = c1 || c2;
        }
    }

    /// The number as a signed high half and an unsigned low half: the value is
    /// `(high * 2^128 + low) / 2^128` (what the Python layer rebuilds as an int).
    pub fn halves(self) -> (i128, u128) {
        let low = u128::from(self.0[0]) | (u128::from(self.0[1]) << 64);
        let high = (u128::from(self.0[2]) | (u128::from(self.0[3]) << 64)) as i128;
        (high, low)
    }

    /// From [`Wide::halves`].
    pub fn from_halves(high: i128, low: u128) -> Wide {
        let high = high as u128;
        Wide([
            low as u64,
            (low >> 64) as u64,
            high as u64,
            (high >> 64) as u64,
        ])
    }

    /// The sign and the magnitude.
    fn split(self) -> (bool, Wide) {
        let negative = (self.0[3] >> 63) == 1;
        (negative, if negative { self.negated() } else { self })
    }

    /// The limbs read as an unsigned 256-bit number, divided by `n` (`n >= 1`), truncated,
    /// and whether a remainder was left.
    fn unsigned_divided(mut self, n: u64) -> (Wide, bool) {
        let mut remainder = 0u128;
        for limb in self.0.iter_mut().rev() {
            let dividend = (remainder << 64) | u128::from(*limb);
            *limb = (dividend / u128::from(n)) as u64;
            remainder = dividend % u128::from(n);
        }
        (self, remainder != 0)
    }

    /// `self / n` (`n >= 1`) as the nearest `f64` (ties to even): the exact quotient
    /// correctly rounded, as Python's `float(Fraction(sum, n))` gives it.
    pub fn quotient_to_f64(self, n: u64) -> f64 {
        let (negative, mut magnitude) = self.split();
        // Shift whole limbs up until the top one holds bits, so that the quotient keeps
        // more than the 53 bits an f64 needs; the shift is undone by the scale. (From here
        // the limbs are an unsigned number: the top bit is no sign.)
        let mut shifted = 0;
        while magnitude.0[3] == 0 && magnitude != Wide::ZERO {
            magnitude.0.rotate_right(1);
            shifted += 1;
        }
        let (quotient, inexact) = magnitude.unsigned_divided(n);
        let v = quotient.magnitude_to_f64(inexact, -64 * shifted);
        if negative {
            -v
        } else {
            v
        }
    }

    /// The nearest `f64` to the number (ties to even; exact when it came from one `f64`).
    pub fn to_f64(self) -> f64 {
        let (negative, magnitude) = self.split();
        let v = magnitude.magnitude_to_f64(false, 0);
        if negative {
            -v
        } else {
            v
        }
    }

    /// This non-negative number times `2**scale`, plus a little more than nothing if
    /// `sticky` (bits below its last one were cut off: they only break ties, and the
    /// caller keeps more bits than an f64's 53 whenever it sets it), as the nearest `f64`.
    fn magnitude_to_f64(self, sticky: bool, scale: i32) -> f64 {
        let limbs = self.0;
        let Some(top) = limbs.iter().rposition(|&l| l != 0) else {
            return 0.0;
        };
        // The top two limbs (or the one) hold the leading bits; any bit below them, or the
        // sticky bit, only breaks a tie between two f64s, whose place lies 11 or more bits
        // above bit 0 of these when they hold 64 bits or more: fold them into bit 0.
        let (high, below, low_limb) = if top == 0 {
            (u128::from(limbs[0]), false, 0)
        } else {
            let high = (u128::from(limbs[top]) << 64) | u128::from(limbs[top - 1]);
            (high, limbs[..top - 1].iter().any(|&l| l != 0), top - 1)
        };
        let bits = high | u128::from(below || sticky);
        bits as f64 * 2f64.powi(64 * low_limb as i32 - FRACTION_BITS as i32 + scale)
    }
}

impl core::ops::AddAssign for Wide {
    #[inline]
    fn add_assign(&mut self, other: Wide) {
        self.accumulate(other);
    }
}

impl core::ops::Add for Wide {
    type Output = Wide;

    #[inline]
    fn add(mut self, other: Wide) -> Wide {
        self += other;
        self
    }
}

/// The sum and the sum of squares of one quantity over games.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Sums {
    /// The sum of the values.
    pub sum: Wide,
    /// The sum of their squares (each square rounded to `f64` first).
    pub squares: Wide,
}

impl Sums {
    /// Adds one game's value.
    #[inline]
    pub fn record(&mut self, v: f64) {
        self.sum += Wide::from_f64(v);
        self.squares += Wide::from_f64(v * v);
    }

    /// The mean over `n` values, and its standard error (NaN below two values), in `f64`.
    pub fn mean_and_stderr(&self, n: u64) -> (f64, f64) {
        if n == 0 {
            return (f64::NAN, f64::NAN);
        }
        let n_f = n as f64;
        let mean = self.sum.quotient_to_f64(n);
        if n < 2 {
            return (mean, f64::NAN);
        }
        let variance = (self.squares.to_f64() / n_f - mean * mean).max(0.0) * n_f / (n_f - 1.0);
        (mean, (variance / n_f).sqrt())
    }
}

impl core::ops::Add for Sums {
    type Output = Sums;

    fn add(self, other: Sums) -> Sums {
        Sums {
            sum: self.sum + other.sum,
            squares: self.squares + other.squares,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotients_are_correctly_rounded() {
        // An f64 sum (one the fixed point holds exactly) divided by an n that f64 holds
        // exactly: IEEE division rounds the exact quotient correctly, so it is the
        // reference.
        let sums = [
            8.0,
            -8.0,
            1.0,
            0.7, // a limb with its top bit set, shifted to the top: no sign
            -0.7,
            1.25 * 2f64.powi(-100),
            3.0 * 2f64.powi(-128),
            0.1,
            12345.678,
            -7e12,
        ];
        for &sum in &sums {
            for n in [1u64, 3, 7, 10, 300, 1296, 99_991, 1 << 40, (1 << 53) - 1] {
                let got = Wide::from_f64(sum).quotient_to_f64(n);
                assert_eq!(got, sum / n as f64, "{sum} / {n}");
            }
        }
        assert_eq!(Wide::ZERO.quotient_to_f64(5), 0.0);
        for &v in &sums {
            assert_eq!(Wide::from_f64(v).to_f64(), v);
        }
    }

    #[test]
    fn conversion_is_exact_and_sums_are_order_free() {
        let values = [0.1f64, -2.75, 1e-20, 3.0, -0.333_333_333, 98304.0, 1.5e-9];
        let mut forward = Wide::ZERO;
        let mut backward = Wide::ZERO;
        for &v in &values {
            forward += Wide::from_f64(v);
        }
        for &v in values.iter().rev() {
            backward += Wide::from_f64(v);
        }
        assert_eq!(forward, backward);
        for &v in &values {
            assert_eq!(Wide::from_f64(v).to_f64(), v, "{v}");
            assert_eq!(Wide::from_f64(-v), Wide::from_f64(v).negated());
        }
        let (h, l) = Wide::from_f64(-1.25).halves();
        assert_eq!(Wide::from_halves(h, l), Wide::from_f64(-1.25));
        assert_eq!(h, -2); // -1.25 = -2 * 2^128 + 0.75 * 2^128
    }

    #[test]
    fn constant_values_have_no_spread() {
        let mut s = Sums::default();
        for _ in 0..1000 {
            s.record(0.123_456_789);
        }
        let (mean, se) = s.mean_and_stderr(1000);
        assert_eq!(mean, 0.123_456_789);
        assert_eq!(se, 0.0);
    }
}
