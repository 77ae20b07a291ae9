//! The perfect-hash index of one side's bear-off positions, numbered exactly as GNU
//! Backgammon's `PositionBearoff` numbers them, so indexes are interchangeable with its files.
//!
//! The numbering: positions are ordered by the number of checkers (0 first), then, within one
//! count, by the sorted list of the checkers' points read as a word (ace first). It is the
//! combinatorial number system applied to the "stars and bars" picture of the counts: with
//! `S_k` the number of checkers on points `k+1..=6` (suffix sums, `k = 0` for the ace),
//!
//! ```text
//! index = sum over k in 0..6 of C(5 - k + S_k, 6 - k)
//! ```
//!
//! which makes the index a sum of six table entries, one per suffix sum.

use core::fmt;

/// Points in a home board.
pub const POINTS: usize = 6;
/// The most checkers a side has (R1).
pub const MAX_CHECKERS: u8 = 15;
/// Positions of 0..=15 checkers on 6 points: C(21, 6).
pub const ONE_SIDED_POSITIONS: usize = 54_264;

/// Binomial coefficients C(n, r) for n < 22, r <= 6; C(n, r) = 0 when r > n.
const BINOM: [[u32; 7]; 22] = {
    let mut t = [[0u32; 7]; 22];
    let mut n = 0;
    while n < 22 {
        t[n][0] = 1;
        let mut r = 1;
        while r < 7 {
            t[n][r] = if n == 0 {
                0
            } else {
                t[n - 1][r - 1] + t[n - 1][r]
            };
            r += 1;
        }
        n += 1;
    }
    t
};

/// `TERM[k][s]` = C(5 - k + s, 6 - k): the index contribution of point `k + 1` (ace = 0)
/// when `s` checkers stand on that point and above.
const TERM: [[u32; 16]; POINTS] = {
    let mut t = [[0u32; 16]; POINTS];
    let mut k = 0;
    while k < POINTS {
        let mut s = 0;
        while s < 16 {
            t[k][s] = BINOM[5 - k + s][6 - k];
            s += 1;
        }
        k += 1;
    }
    t
};

/// The number of positions with at most `checkers` checkers on 6 points: C(checkers + 6, 6).
#[inline]
pub const fn positions_up_to(checkers: u8) -> usize {
    BINOM[checkers as usize + 6][6] as usize
}

/// Why counts are not a bear-off position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BearoffError {
    /// More checkers on the six home points than the table covers.
    TooManyCheckers {
        /// Checkers given.
        count: u32,
        /// The most the table covers (15 for the one-sided table, 6 for the two-sided).
        max: u8,
    },
    /// An index below 0 or at or past the number of positions.
    IndexOutOfRange {
        /// The index given.
        index: i128,
        /// The number of positions (valid indexes are `0..positions`).
        positions: usize,
    },
    /// Both sides have no checker left: not a position (R15: the first to bear off all
    /// 15 checkers has won, so the other still has some).
    BothBorneOff,
    /// A position with a checker outside the home board (R13: not a bear-off position).
    NotHome {
        /// Which side, as "mover" or "opponent".
        side: &'static str,
    },
}

impl fmt::Display for BearoffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            // Past 15 the counts break the setup rule; up to it they are a position the
            // table is too small for.
            BearoffError::TooManyCheckers { count, max: 15 } => write!(
                f,
                "R1: {count} checkers on one side's home points; a side has at most 15"
            ),
            BearoffError::TooManyCheckers { count, max } => write!(
                f,
                "{count} checkers on one side's home points; this bear-off table covers \
                 at most {max} a side"
            ),
            BearoffError::IndexOutOfRange { index, positions } => {
                f.write_str(&index_out_of_range(&index, positions))
            }
            BearoffError::BothBorneOff => write!(
                f,
                "R15: both sides have borne off all their checkers; the game ended when the \
                 first did, so this is not a position"
            ),
            BearoffError::NotHome { side } => write!(
                f,
                "R13: the {side} has a checker outside the home board (or on the bar): \
                 not a bear-off position"
            ),
        }
    }
}

impl std::error::Error for BearoffError {}

/// The message of [`BearoffError::IndexOutOfRange`], for any index as written (bindings
/// whose integers do not fit an `i128` use it directly).
pub fn index_out_of_range(index: &dyn fmt::Display, positions: usize) -> String {
    format!(
        "bear-off index {index} out of range: valid indexes are 0 to {}",
        positions.saturating_sub(1)
    )
}

/// One side's checkers on its six home points, `counts()[0]` on the ace point; at most 15
/// in all (any number already borne off).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub struct HomeBoard([u8; POINTS]);

impl HomeBoard {
    /// No checker left: all borne off.
    pub const EMPTY: HomeBoard = HomeBoard([0; POINTS]);

    /// Validates counts (ace first): at most [`MAX_CHECKERS`] in total.
    pub fn new(counts: [u8; POINTS]) -> Result<HomeBoard, BearoffError> {
        let total: u32 = counts.iter().map(|&c| c as u32).sum();
        if total > MAX_CHECKERS as u32 {
            return Err(BearoffError::TooManyCheckers {
                count: total,
                max: MAX_CHECKERS,
            });
        }
        Ok(HomeBoard(counts))
    }

    /// Builds without validation; the caller guarantees the total is at most 15.
    #[inline]
    #[cfg(test)]
    pub(crate) const fn new_unchecked(counts: [u8; POINTS]) -> HomeBoard {
        HomeBoard(counts)
    }

    /// The counts, ace point first.
    #[inline]
    pub const fn counts(self) -> [u8; POINTS] {
        self.0
    }

    /// Checkers on the board.
    #[inline]
    pub fn checkers(self) -> u8 {
        self.0.iter().sum()
    }

    /// Pip count.
    #[inline]
    pub fn pips(self) -> u32 {
        self.0
            .iter()
            .enumerate()
            .map(|(i, &c)| (i as u32 + 1) * c as u32)
            .sum()
    }

    /// The GNU Backgammon bear-off index (`PositionBearoff` with 6 points).
    #[inline]
    pub fn index(self) -> u32 {
        index_unchecked(&self.0)
    }

    /// The position with GNU Backgammon bear-off index `index` (`PositionFromBearoff`).
    pub fn from_index(index: u32) -> Result<HomeBoard, BearoffError> {
        if index as usize >= ONE_SIDED_POSITIONS {
            return Err(BearoffError::IndexOutOfRange {
                index: index.into(),
                positions: ONE_SIDED_POSITIONS,
            });
        }
        Ok(HomeBoard(position_unchecked(index)))
    }
}

/// The bear-off index of counts (ace first) whose total the caller guarantees is at most 15.
/// Six table lookups; no branch on the counts.
#[inline]
pub fn index_unchecked(counts: &[u8; POINTS]) -> u32 {
    let mut s = 0usize;
    let mut index = 0u32;
    // Suffix sums from the 6-point down to the ace.
    for k in (0..POINTS).rev() {
        s += counts[k] as usize;
        index += TERM[k][s & 15];
    }
    index
}

/// The counts (ace first) of bear-off index `index`, which the caller guarantees is below
/// [`ONE_SIDED_POSITIONS`]. Unranks the combinatorial number system: each suffix sum is the
/// largest `s` whose term fits in what is left of the index.
pub fn position_unchecked(index: u32) -> [u8; POINTS] {
    let mut rest = index;
    let mut suffix = [0u8; POINTS + 1];
    for k in 0..POINTS {
        // The largest s in 0..=15 with TERM[k][s] <= rest; s is also at most the previous
        // suffix sum, which the number system guarantees.
        let mut s = 0usize;
        while s < 15 && TERM[k][s + 1] <= rest {
            s += 1;
        }
        rest -= TERM[k][s];
        suffix[k] = s as u8;
    }
    let mut counts = [0u8; POINTS];
    for k in 0..POINTS {
        counts[k] = suffix[k] - suffix[k + 1];
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_indexes_follow_gnubg() {
        // Values printed by GNU Backgammon's gnubg_nn.bearoff_id_2_pos.
        assert_eq!(HomeBoard::EMPTY.index(), 0);
        assert_eq!(index_unchecked(&[1, 0, 0, 0, 0, 0]), 1);
        assert_eq!(index_unchecked(&[0, 0, 0, 0, 0, 1]), 6);
        assert_eq!(index_unchecked(&[2, 0, 0, 0, 0, 0]), 7);
        assert_eq!(index_unchecked(&[1, 1, 0, 0, 0, 0]), 8);
        assert_eq!(index_unchecked(&[0, 2, 0, 0, 0, 0]), 13);
        assert_eq!(index_unchecked(&[0, 0, 0, 0, 0, 2]), 27);
        assert_eq!(index_unchecked(&[3, 0, 0, 0, 0, 0]), 28);
        assert_eq!(index_unchecked(&[1, 0, 2, 0, 0, 0]), 39);
        assert_eq!(
            index_unchecked(&[0, 0, 0, 0, 0, 15]) as usize,
            ONE_SIDED_POSITIONS - 1
        );
    }

    #[test]
    fn index_is_a_bijection_ordered_by_checker_count() {
        let mut seen = vec![false; ONE_SIDED_POSITIONS];
        let mut previous_count = 0;
        for i in 0..ONE_SIDED_POSITIONS as u32 {
            let counts = position_unchecked(i);
            let board = HomeBoard::new(counts).unwrap();
            assert_eq!(board.index(), i);
            assert!(!seen[i as usize]);
            seen[i as usize] = true;
            assert!(board.checkers() >= previous_count);
            previous_count = board.checkers();
            assert!(i as usize >= positions_up_to(board.checkers()) - positions_up_to_prev(board));
        }
        assert_eq!(positions_up_to(6), 924);
        assert_eq!(positions_up_to(15), ONE_SIDED_POSITIONS);
    }

    fn positions_up_to_prev(board: HomeBoard) -> usize {
        // Positions with exactly this many checkers.
        let n = board.checkers();
        positions_up_to(n) - if n == 0 { 0 } else { positions_up_to(n - 1) }
    }

    #[test]
    fn rejects_bad_input() {
        assert_eq!(
            HomeBoard::new([3, 3, 3, 3, 3, 1]),
            Err(BearoffError::TooManyCheckers { count: 16, max: 15 })
        );
        let e = HomeBoard::from_index(54_264).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bear-off index 54264 out of range: valid indexes are 0 to 54263"
        );
        let e = BearoffError::IndexOutOfRange {
            index: -1,
            positions: 924,
        };
        assert_eq!(
            e.to_string(),
            "bear-off index -1 out of range: valid indexes are 0 to 923"
        );
        assert_eq!(
            HomeBoard::from_index(54_263).unwrap().counts(),
            [0, 0, 0, 0, 0, 15]
        );
    }
}
