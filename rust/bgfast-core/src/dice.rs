//! Dice: a die that cannot be 7, and a roll that knows whether it is a double.

use core::fmt;

/// One die, always 1..=6.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Die(u8);

impl Die {
    /// The die showing `pips`, or `None` outside 1..=6.
    #[inline]
    pub const fn new(pips: u8) -> Option<Die> {
        if pips >= 1 && pips <= 6 {
            Some(Die(pips))
        } else {
            None
        }
    }

    /// The number of pips shown.
    #[inline]
    pub const fn pips(self) -> u8 {
        self.0
    }
}

/// A roll of two dice, stored highest first so that 3-1 and 1-3 are one value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Dice {
    high: Die,
    low: Die,
}

impl Dice {
    /// The 21 distinct rolls: the 15 non-doubles (each 2/36 likely) then the 6 doubles (1/36).
    pub const ALL_21: [Dice; 21] = {
        let mut all = [Dice {
            high: Die(1),
            low: Die(1),
        }; 21];
        let mut i = 0;
        let mut high = 2;
        while high <= 6 {
            let mut low = 1;
            while low < high {
                all[i] = Dice {
                    high: Die(high),
                    low: Die(low),
                };
                i += 1;
                low += 1;
            }
            high += 1;
        }
        let mut d = 1;
        while d <= 6 {
            all[i] = Dice {
                high: Die(d),
                low: Die(d),
            };
            i += 1;
            d += 1;
        }
        all
    };

    /// A roll from two dice in either order.
    #[inline]
    pub const fn new(a: Die, b: Die) -> Dice {
        if a.0 >= b.0 {
            Dice { high: a, low: b }
        } else {
            Dice { high: b, low: a }
        }
    }

    /// A roll from two pip counts, or `None` if either is outside 1..=6.
    #[inline]
    pub const fn from_pips(a: u8, b: u8) -> Option<Dice> {
        match (Die::new(a), Die::new(b)) {
            (Some(a), Some(b)) => Some(Dice::new(a, b)),
            _ => None,
        }
    }

    /// The higher die (either die for a double).
    #[inline]
    pub const fn high(self) -> Die {
        self.high
    }

    /// The lower die (either die for a double).
    #[inline]
    pub const fn low(self) -> Die {
        self.low
    }

    /// Whether both dice show the same number (played four times, R5).
    #[inline]
    pub const fn is_double(self) -> bool {
        self.high.0 == self.low.0
    }

    /// How many of the 36 equally likely ordered rolls give this roll: 1 for a double, else 2.
    #[inline]
    pub const fn weight(self) -> u32 {
        if self.is_double() {
            1
        } else {
            2
        }
    }
}

impl fmt::Display for Dice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.high.0, self.low.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn die_rejects_out_of_range() {
        assert!(Die::new(0).is_none());
        assert!(Die::new(7).is_none());
        assert_eq!(Die::new(6).map(Die::pips), Some(6));
    }

    #[test]
    fn all_21_rolls_are_distinct_and_weigh_36() {
        let mut seen = std::collections::HashSet::new();
        for d in Dice::ALL_21 {
            assert!(seen.insert(d));
        }
        assert_eq!(Dice::ALL_21.iter().map(|d| d.weight()).sum::<u32>(), 36);
    }
}
