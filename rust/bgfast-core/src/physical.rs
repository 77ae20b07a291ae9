//! Physical play: the checkers moved as a written play says, legal or not (R31).
//!
//! A game recorded at a real table keeps an illegal play as it was made: the opponent may
//! call it before the next roll, and once the next roll is made it stands (R31). Such a
//! play still has to be something a hand can do on a board, so [`Position::play_physically`]
//! refuses only what no hand can do: moving a checker that is not there (R1), putting one
//! down on a point two or more opposing checkers hold (R7), or leaving a position no game
//! reaches (R12). Everything the dice and the rules decide (R4, R5, R8-R14) is left to the
//! referee: [`crate::resolve`] says whether the same text is a legal play.

use crate::checkers::BAR;
use crate::codec::move_text::ParsedMove;
use crate::legality::{check_paths, IllegalMove};
use crate::mv::OFF;
use crate::position::{Position, Violation};

impl Position {
    /// The position after moving the checkers as `parsed` writes them, whatever the dice
    /// and the rules say; the opponent is to move. Each written path is walked point by
    /// point (a checker picked up at its source is put down on every written point, so
    /// `13/10*/7` stops on 10 and `13/7` does not), repeated as often as written; a checker
    /// put down on a lone opposing checker hits it (R11), with or without `*`. A pass moves
    /// nothing.
    ///
    /// Errors: [`IllegalMove::GameOver`] once a side has borne off all 15 (R15),
    /// [`IllegalMove::NoChecker`] for a step from a point with none of the mover's checkers
    /// left (R1), [`IllegalMove::Blocked`] for a checker put down on a point two or more
    /// opposing checkers hold (R7), [`IllegalMove::BothBarred`] for a result no game reaches
    /// (R12), [`IllegalMove::BadPath`] for hand-built paths that name no checker move.
    ///
    /// ```
    /// use bgfast_core::codec::move_text::parse;
    /// use bgfast_core::{resolve, Dice, Position};
    ///
    /// // A 5 was not rolled: illegal, but a hand can move 8/3.
    /// let dice = Dice::from_pips(3, 1).unwrap();
    /// let text = parse("8/3").unwrap();
    /// assert!(resolve(&Position::START, dice, &text).is_err());
    /// let after = Position::START.play_physically(&text).unwrap();
    /// assert_eq!(after.opponent().count(3), 1);
    /// assert!(Position::START.play_physically(&parse("7/4").unwrap()).is_err());
    /// ```
    pub fn play_physically(&self, parsed: &ParsedMove) -> Result<Position, IllegalMove> {
        if self.outcome().is_some() {
            return Err(IllegalMove::GameOver);
        }
        check_paths(parsed)?;
        let [mut mover, mut opponent] = self.to_counts();
        // Index of a point in a side's counts: points 1..=24 at 0..=23, the bar at 24.
        let index = |point: u8| point as usize - 1;
        for path in &parsed.paths {
            for _ in 0..path.repeat {
                let mut at = path.from;
                for stop in &path.stops {
                    if mover[index(at)] == 0 {
                        return Err(IllegalMove::NoChecker { point: at });
                    }
                    mover[index(at)] -= 1;
                    if stop.point != OFF {
                        // The opponent's number for the same point.
                        let theirs = index(BAR - stop.point);
                        match opponent[theirs] {
                            0 => {}
                            1 => {
                                opponent[theirs] = 0;
                                opponent[index(BAR)] += 1;
                            }
                            _ => return Err(IllegalMove::Blocked { point: stop.point }),
                        }
                        mover[index(stop.point)] += 1;
                    }
                    at = stop.point;
                }
            }
        }
        // Checkers only moved, so the counts stay within 15 a side and no point is shared;
        // what the validator can still refuse is a position no game reaches.
        Position::from_count_bytes(&opponent, &mover).map_err(|e| {
            debug_assert!(e
                .violations
                .iter()
                .all(|v| matches!(v, Violation::BothBarredAgainstClosedBoards)));
            IllegalMove::BothBarred
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::codec::move_text::parse;
    use crate::{resolve, Dice, IllegalMove, Position};

    fn position(mover: &[(u8, u8)], opponent: &[(u8, u8)]) -> Position {
        let side = |points: &[(u8, u8)]| {
            let mut counts = [0u8; 25];
            for &(p, n) in points {
                counts[p as usize - 1] = n;
            }
            counts
        };
        Position::from_counts(&side(mover), &side(opponent)).unwrap()
    }

    fn physically(position: &Position, text: &str) -> Result<Position, IllegalMove> {
        position.play_physically(&parse(text).unwrap())
    }

    #[test]
    fn a_legal_play_moves_the_checkers_as_checked_play_does() {
        for (d1, d2) in [(3, 1), (6, 6), (6, 5), (2, 2)] {
            let dice = Dice::from_pips(d1, d2).unwrap();
            for (mv, result) in Position::START.legal_moves(dice).iter() {
                let text = parse(&mv.to_string()).unwrap();
                assert_eq!(Position::START.play_physically(&text), Ok(result), "{mv}");
                assert_eq!(resolve(&Position::START, dice, &text).unwrap().1, result);
            }
        }
    }

    #[test]
    fn plays_the_dice_forbid_are_made_as_written() {
        // R4: four steps on 3-1 are refused by checked play, and made here as written.
        let dice = Dice::from_pips(3, 1).unwrap();
        let text = parse("8/7 7/6 6/5 6/5").unwrap();
        assert_eq!(
            resolve(&Position::START, dice, &text).unwrap_err().rule(),
            "R4"
        );
        let after = Position::START.play_physically(&text).unwrap();
        assert_eq!(after.opponent().count(5), 2);
        assert_eq!(after.opponent().count(8), 2);
        assert_eq!(after.opponent().count(6), 4);
        // R13: bearing off with a checker outside is physically possible.
        let after = physically(&Position::START, "6/off").unwrap();
        assert_eq!(after.opponent().off(), 1);
    }

    #[test]
    fn a_hand_hits_where_it_puts_a_checker_down() {
        let pos = position(&[(13, 2), (6, 13)], &[(16, 1), (1, 14)]); // a blot on my 9
        let hit = physically(&pos, "13/9").unwrap();
        assert_eq!((hit.mover().bar(), hit.opponent().count(9)), (1, 1));
        // A condensed path is not put down on the way; a written stop is.
        let over = physically(&pos, "13/7").unwrap();
        assert_eq!(over.mover().bar(), 0);
        let via = physically(&pos, "13/9*/7").unwrap();
        assert_eq!((via.mover().bar(), via.opponent().count(7)), (1, 1));
        // Repeats move as many checkers.
        let two = physically(&pos, "6/2(2)").unwrap();
        assert_eq!(two.opponent().count(2), 2);
    }

    #[test]
    fn what_no_hand_can_do_is_refused() {
        assert_eq!(
            physically(&Position::START, "7/4"),
            Err(IllegalMove::NoChecker { point: 7 })
        );
        assert_eq!(
            physically(&Position::START, "8/7 7/6 7/5"),
            Err(IllegalMove::NoChecker { point: 7 })
        );
        assert_eq!(
            physically(&Position::START, "bar/20"),
            Err(IllegalMove::NoChecker { point: 25 })
        );
        // The opponent's 24-point (my 1) holds two.
        assert_eq!(
            physically(&Position::START, "13/1"),
            Err(IllegalMove::Blocked { point: 1 })
        );
        let over = position(&[(1, 1)], &[]);
        assert_eq!(physically(&over, "1/off"), Err(IllegalMove::GameOver));
        // R12: hitting (illegally, with a checker of mine on the bar) into my closed board
        // while the opponent's board is closed too.
        let mut mine: Vec<(u8, u8)> = (1..=6).map(|p| (p, 2)).collect();
        mine.extend([(25, 1), (8, 1)]);
        let mut theirs: Vec<(u8, u8)> = (1..=6).map(|p| (p, 2)).collect();
        theirs.push((18, 1)); // my 7-point
        let pos = position(&mine, &theirs);
        assert_eq!(physically(&pos, "8/7"), Err(IllegalMove::BothBarred));
        assert_eq!(IllegalMove::BothBarred.rule(), "R12");
        // A pass moves nothing.
        assert_eq!(
            physically(&Position::START, ""),
            Ok(Position::START.flipped())
        );
    }
}
