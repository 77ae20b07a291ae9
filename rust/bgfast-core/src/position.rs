//! A validated position, always seen from the side to move.

use core::fmt;

use crate::checkers::{Checkers, BAR, CHECKERS};
use crate::outcome::{Outcome, Side, WinKind};
use crate::pointset::PointSet;

/// One violation found while validating raw counts. Every violation is reported at once.
///
/// Counts are held as `i128`, wide enough for any count of any integer type a caller may
/// hold (`u64` and `i64` included), so a violation always reports the value as given.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Violation {
    /// A count is below zero.
    NegativeCount {
        /// Whose count.
        side: Side,
        /// The point (1..=24) or 25 for the bar, in that side's numbering.
        point: u8,
        /// The count given.
        count: i128,
    },
    /// A side has more than 15 checkers on the points and bar (R1).
    TooManyCheckers {
        /// Whose checkers.
        side: Side,
        /// How many were given (the sum of its non-negative counts).
        count: i128,
    },
    /// Both sides have checkers on one point (R6, R7: a point holds one side's checkers).
    SharedPoint {
        /// The point in the mover's numbering.
        point: u8,
    },
    /// Both sides have borne off all their checkers (R15: the game ends at the first).
    BothFinished,
    /// Both sides have checkers on the bar and both home boards are closed (R12): neither
    /// side can ever enter, so no game reaches this position and none could go on from it
    /// (GNU Backgammon's `CheckPosition` refuses it too).
    BothBarredAgainstClosedBoards,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Violation::NegativeCount { side, point, count } => {
                let place = if point == BAR {
                    "bar".to_string()
                } else {
                    format!("point {point}")
                };
                write!(f, "{side} has a negative count {count} on the {place}")
            }
            Violation::TooManyCheckers { side, count } => {
                write!(
                    f,
                    "R1: {side} has {count} checkers on the board, more than 15"
                )
            }
            Violation::SharedPoint { point } => write!(
                f,
                "R6: both sides have checkers on the mover's point {point} (the opponent's {})",
                25 - point
            ),
            Violation::BothFinished => {
                write!(f, "R15: both sides have borne off all 15 checkers")
            }
            Violation::BothBarredAgainstClosedBoards => write!(
                f,
                "R12: both sides have checkers on the bar against closed home boards, so \
                 neither can ever enter (no game reaches this position)"
            ),
        }
    }
}

/// Why raw counts do not make a position: every violation found.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PositionError {
    /// The violations, in the order found.
    pub violations: Vec<Violation>,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid position: ")?;
        for (i, v) in self.violations.iter().enumerate() {
            if i > 0 {
                write!(f, "; ")?;
            }
            write!(f, "{v}")?;
        }
        Ok(())
    }
}

impl std::error::Error for PositionError {}

/// A legal arrangement of both sides' checkers, seen from the side to move.
///
/// Each side is in its own numbering (it moves from 24 toward 1, R1). Equal positions have
/// equal bits, so `==` and `Hash` compare checkers and side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    mover: Checkers,
    opponent: Checkers,
}

impl Default for Position {
    fn default() -> Self {
        Position::START
    }
}

impl Position {
    /// The standard start (R1), either side to move.
    pub const START: Position = Position {
        mover: Checkers::START,
        opponent: Checkers::START,
    };

    /// Validates counts for the mover and the opponent, each in its own numbering: index
    /// 0..=23 is that side's point 1..=24 and index 24 its bar. Reports every violation.
    ///
    /// Counts may be of any integer type that converts to `i128` without loss (`i8` to
    /// `i64`, `u8` to `u64`; not `usize` or `isize`, which Rust does not convert so: cast
    /// them to `u64` or `i64`). Each is widened before any arithmetic, so no count, however
    /// large, wraps into a valid-looking one.
    pub fn from_counts<C>(mover: &[C; 25], opponent: &[C; 25]) -> Result<Position, PositionError>
    where
        C: Copy + Into<i128>,
    {
        let mover: [i128; 25] = mover.map(Into::into);
        let opponent: [i128; 25] = opponent.map(Into::into);
        let on_board = |c: &[i128; 25]| {
            c.iter()
                .map(|&x| x.max(0))
                .fold(0i128, i128::saturating_add)
        };
        let mut violations = Vec::new();
        for (side, counts) in [(Side::Mover, &mover), (Side::Opponent, &opponent)] {
            for (i, &c) in counts.iter().enumerate() {
                if c < 0 {
                    violations.push(Violation::NegativeCount {
                        side,
                        point: i as u8 + 1,
                        count: c,
                    });
                }
            }
            // 25 counts below 2^64 each cannot overflow an i128, but `C` may be i128
            // itself: a wrapped sum of huge counts could look like 15 or fewer.
            let total = on_board(counts);
            if total > i128::from(CHECKERS) {
                violations.push(Violation::TooManyCheckers { side, count: total });
            }
        }
        for p in 1..=24usize {
            if mover[p - 1] > 0 && opponent[24 - p] > 0 {
                violations.push(Violation::SharedPoint { point: p as u8 });
            }
        }
        if on_board(&mover) == 0 && on_board(&opponent) == 0 {
            violations.push(Violation::BothFinished);
        }
        let barred_against_closed = |own: &[i128; 25], other: &[i128; 25]| {
            own[BAR as usize - 1] > 0 && other[..6].iter().all(|&c| c >= 2)
        };
        if barred_against_closed(&mover, &opponent) && barred_against_closed(&opponent, &mover) {
            violations.push(Violation::BothBarredAgainstClosedBoards);
        }
        if !violations.is_empty() {
            return Err(PositionError { violations });
        }
        // Every count is now in 0..=15 (none negative, each side's sum at most 15).
        let pack = |c: &[i128; 25]| {
            let counts: [u8; 25] = c.map(|x| x as u8);
            Checkers::from_counts(&counts).expect("every count checked to be in 0..=15")
        };
        Ok(Position {
            mover: pack(&mover),
            opponent: pack(&opponent),
        })
    }

    /// [`Position::from_counts`] for counts held as bytes, as in the `(2, 25)` uint8 layout
    /// of the batch arrays: the same rules and, for invalid counts, the same errors. A valid
    /// position is packed and checked on its packed form (a few word operations), which
    /// makes validating a large batch cheap next to generating its moves.
    pub fn from_count_bytes(
        mover: &[u8; 25],
        opponent: &[u8; 25],
    ) -> Result<Position, PositionError> {
        let packed = Checkers::from_counts(mover).zip(Checkers::from_counts(opponent));
        if let Some((m, o)) = packed {
            let (on_m, on_o) = (m.on_board(), o.on_board());
            let shared = m.occupied().and(o.occupied().mirrored());
            if on_m <= CHECKERS
                && on_o <= CHECKERS
                && shared.is_empty()
                && on_m + on_o > 0
                && !both_barred_against_closed_boards(m, o)
            {
                return Ok(Position {
                    mover: m,
                    opponent: o,
                });
            }
        }
        // Invalid: the general constructor lists every violation.
        Position::from_counts(mover, opponent)
    }

    /// Builds from two packed sides that the caller knows are valid together.
    #[inline]
    pub(crate) const fn from_sides_unchecked(mover: Checkers, opponent: Checkers) -> Position {
        Position { mover, opponent }
    }

    /// The side to move's checkers, in its own numbering.
    #[inline]
    pub const fn mover(&self) -> Checkers {
        self.mover
    }

    /// The other side's checkers, in its own numbering.
    #[inline]
    pub const fn opponent(&self) -> Checkers {
        self.opponent
    }

    /// The same checkers with the other side to move (the turn passes).
    #[inline]
    #[must_use]
    pub const fn flipped(&self) -> Position {
        Position {
            mover: self.opponent,
            opponent: self.mover,
        }
    }

    /// Counts in the `(2, 25)` layout: row 0 the mover, row 1 the opponent.
    pub fn to_counts(&self) -> [[u8; 25]; 2] {
        [self.mover.to_counts(), self.opponent.to_counts()]
    }

    /// Pip counts of the mover and the opponent.
    pub fn pips(&self) -> (u32, u32) {
        (self.mover.pips(), self.opponent.pips())
    }

    /// Whether contact is broken: no checker of either side can ever meet the other's again.
    pub fn is_race(&self) -> bool {
        // The mover's rearmost checker (highest point, bar = 25) must have passed the
        // opponent's rearmost one, which stands on the mover's point 25 - q.
        let mover_back = self.mover.occupied().highest();
        let opp_back = self.opponent.occupied().highest();
        match (mover_back, opp_back) {
            (Some(m), Some(o)) => m < 25 - o,
            _ => true,
        }
    }

    /// `None` while the game goes on; else who won and how (R15, R16).
    pub fn outcome(&self) -> Option<Outcome> {
        let (winner, loser) = if self.opponent.on_board() == 0 {
            (Side::Opponent, self.mover)
        } else if self.mover.on_board() == 0 {
            (Side::Mover, self.opponent)
        } else {
            return None;
        };
        let kind = if loser.off() > 0 {
            WinKind::Single
        } else if loser.bar() > 0 || (19..=24).any(|p| loser.count(p) > 0) {
            // The winner's home board is the loser's points 19..=24.
            WinKind::Backgammon
        } else {
            WinKind::Gammon
        };
        Some(Outcome { winner, kind })
    }
}

/// Whether both sides are on the bar against the other's closed home board (R12).
#[inline]
fn both_barred_against_closed_boards(mover: Checkers, opponent: Checkers) -> bool {
    let closed = |side: Checkers| side.made().and(PointSet::HOME) == PointSet::HOME;
    mover.bar() > 0 && opponent.bar() > 0 && closed(mover) && closed(opponent)
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", crate::codec::gnubg_id::encode(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pairs: &[(usize, i32)]) -> [i32; 25] {
        let mut c = [0; 25];
        for &(p, n) in pairs {
            c[p - 1] = n;
        }
        c
    }

    #[test]
    fn i128_counts_whose_sum_wraps_are_too_many_not_a_panic() {
        // Two counts of i128::MAX and one of 2 summed (wrapping) to 0: no violation was
        // found, and packing the 255-byte count panicked (an overflow panic in debug).
        let mut mover = [0i128; 25];
        (mover[0], mover[1], mover[2]) = (i128::MAX, i128::MAX, 2);
        let mut opponent = [0i128; 25];
        opponent[5] = 15;
        let e = Position::from_counts(&mover, &opponent).unwrap_err();
        assert!(e.violations.contains(&Violation::TooManyCheckers {
            side: Side::Mover,
            count: i128::MAX,
        }));
        // Huge counts on both sides: R1 for each, never R15's "both finished".
        let e = Position::from_counts(&mover, &mover).unwrap_err();
        assert!(!e.violations.contains(&Violation::BothFinished), "{e}");
    }

    #[test]
    fn start_round_trips() {
        let c = Position::START.to_counts();
        let widen = |r: [u8; 25]| r.map(i32::from);
        assert_eq!(
            Position::from_counts(&widen(c[0]), &widen(c[1])),
            Ok(Position::START)
        );
    }

    #[test]
    fn count_bytes_agree_with_counts_r1_r6_r15() {
        // Random boards around the edges of the rules: up to 16 checkers a side scattered
        // over points and bar, so some have too many (R1), some share a point (R6), a few
        // have both sides borne off (R15); the same position or the same violations.
        let mut rng = crate::rng::GameRng::new(11, 0);
        let (mut valid, mut invalid) = (0, 0);
        for _ in 0..20_000 {
            let mut sides = [[0u8; 25]; 2];
            for side in &mut sides {
                for _ in 0..rng.below(17) {
                    side[rng.below(25) as usize] += 1;
                }
            }
            let [mover, opponent] = sides;
            let bytes = Position::from_count_bytes(&mover, &opponent);
            let wide = Position::from_counts(&mover.map(i32::from), &opponent.map(i32::from));
            assert_eq!(bytes, wide, "{mover:?} {opponent:?}");
            if bytes.is_ok() {
                valid += 1;
            } else {
                invalid += 1;
            }
        }
        assert!(
            valid > 1000 && invalid > 1000,
            "{valid} valid, {invalid} invalid"
        );
        let [mover, opponent] = Position::START.to_counts();
        assert_eq!(
            Position::from_count_bytes(&mover, &opponent),
            Ok(Position::START)
        );
        assert!(Position::from_count_bytes(&[0; 25], &[0; 25]).is_err());
    }

    #[test]
    fn reports_every_violation() {
        let mover = counts(&[(1, 16), (2, -1)]);
        let opponent = counts(&[(24, 2)]);
        let err = Position::from_counts(&mover, &opponent).unwrap_err();
        assert_eq!(err.violations.len(), 3, "{err}");
    }

    #[test]
    fn huge_counts_are_reported_as_given_never_wrapped_r1() {
        // i32 sums used to wrap: 2^31 - 1 and 1 panicked when packing, and three counts
        // summing to 2^32 + 15 were accepted as another position.
        let mut mover = counts(&[(1, i32::MAX), (2, 1)]);
        let err = Position::from_counts(&mover, &[0; 25]).unwrap_err();
        assert!(err.violations.contains(&Violation::TooManyCheckers {
            side: Side::Mover,
            count: 1 << 31,
        }));
        mover = counts(&[(2, i32::MAX - 254), (3, i32::MAX - 254), (4, 525)]);
        let start = Position::START.to_counts()[1].map(i32::from);
        let err = Position::from_counts(&mover, &start).unwrap_err();
        assert!(err.violations.contains(&Violation::TooManyCheckers {
            side: Side::Mover,
            count: 2 * (i128::from(i32::MAX) - 254) + 525,
        }));
        // 64-bit counts keep their value: 2^32 + 5 is not 5.
        let mut wide = [0u64; 25];
        wide[5] = (1 << 32) + 5;
        let err = Position::from_counts(&wide, &[0u64; 25]).unwrap_err();
        assert_eq!(
            err.violations,
            vec![Violation::TooManyCheckers {
                side: Side::Mover,
                count: (1 << 32) + 5
            }]
        );
        let mut signed = [0i64; 25];
        signed[0] = i64::MIN;
        signed[1] = u32::MAX as i64 + 16;
        let err = Position::from_counts(&signed, &[0i64; 25]).unwrap_err();
        assert!(err.to_string().contains(&i64::MIN.to_string()), "{err}");
        let mut max = [u64::MAX; 25];
        max[24] = 0;
        assert!(Position::from_counts(&max, &max).is_err());
    }

    #[test]
    fn both_barred_against_closed_boards_is_refused_r12() {
        // 27YBA0DbtgEDQA, which GNU Backgammon's CheckPosition rejects: each side has two
        // on each home point and one on the bar; neither can ever enter.
        let side = counts(&[(1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (6, 2), (25, 1)]);
        let err = Position::from_counts(&side, &side).unwrap_err();
        assert_eq!(
            err.violations,
            vec![Violation::BothBarredAgainstClosedBoards]
        );
        assert!(
            err.to_string().starts_with("invalid position: R12"),
            "{err}"
        );
        let bytes = side.map(|c| c as u8);
        assert_eq!(Position::from_count_bytes(&bytes, &bytes), Err(err.clone()));
        assert_eq!(
            crate::codec::gnubg_id::decode("27YBA0DbtgEDQA"),
            Err(crate::codec::gnubg_id::IdError::Invalid(err))
        );
        // One side free to move, or one board open: the game goes on.
        let mut open = side;
        open[5] = 1;
        assert!(Position::from_counts(&open, &side).is_ok());
        let mut entered = side;
        entered[24] = 0;
        assert!(Position::from_counts(&entered, &side).is_ok());
        assert!(Position::from_count_bytes(&entered.map(|c| c as u8), &bytes).is_ok());
    }

    #[test]
    fn race_and_contact() {
        assert!(!Position::START.is_race());
        let pos = Position::from_counts(&counts(&[(6, 15)]), &counts(&[(6, 15)])).unwrap();
        assert!(pos.is_race());
        let pos = Position::from_counts(&counts(&[(20, 15)]), &counts(&[(6, 15)])).unwrap();
        assert!(!pos.is_race());
    }

    #[test]
    fn outcome_kinds_r16() {
        let none = [0; 25];
        let single = Position::from_counts(&counts(&[(1, 1)]), &none).unwrap();
        assert_eq!(
            single.outcome(),
            Some(Outcome {
                winner: Side::Opponent,
                kind: WinKind::Single
            })
        );
        let gammon = Position::from_counts(&counts(&[(1, 15)]), &none).unwrap();
        assert_eq!(gammon.outcome().unwrap().kind, WinKind::Gammon);
        let bg = Position::from_counts(&counts(&[(1, 14), (19, 1)]), &none).unwrap();
        assert_eq!(bg.outcome().unwrap().kind, WinKind::Backgammon);
        assert_eq!(Position::START.outcome(), None);
    }
}
