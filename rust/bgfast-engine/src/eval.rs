//! What an evaluator says about a position, and the evaluators' common interface.
//!
//! Probabilities are GNU Backgammon's five, for the side to move in the evaluated position,
//! about to roll: win, win a gammon, win a backgammon, lose a gammon, lose a backgammon.
//! Gammons include backgammons, so `win >= win_gammon >= win_backgammon`.

use bgfast_core::{Position, Side, WinKind};

use crate::pubeval;

/// GNU Backgammon's five probabilities for the side to move (gammons include backgammons).
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct Probabilities {
    /// Wins of any kind.
    pub win: f32,
    /// Gammon and backgammon wins.
    pub win_gammon: f32,
    /// Backgammon wins.
    pub win_backgammon: f32,
    /// Gammon and backgammon losses.
    pub lose_gammon: f32,
    /// Backgammon losses.
    pub lose_backgammon: f32,
}

impl Probabilities {
    /// From six exclusive outcomes in wildbg's order: win single, win gammon, win
    /// backgammon, lose single, lose gammon, lose backgammon. The sums are kept at most 1:
    /// a softmax's outputs add up to 1 only to within rounding, and a sure win summed to
    /// 1.0000001.
    #[inline]
    pub fn from_outcomes(p: [f32; 6]) -> Probabilities {
        Probabilities {
            win: (p[0] + p[1] + p[2]).min(1.0),
            win_gammon: (p[1] + p[2]).min(1.0),
            win_backgammon: p[2],
            lose_gammon: (p[4] + p[5]).min(1.0),
            lose_backgammon: p[5],
        }
    }

    /// In gnubg's order: win, win gammon, win backgammon, lose gammon, lose backgammon.
    #[inline]
    pub const fn to_array(self) -> [f32; 5] {
        [
            self.win,
            self.win_gammon,
            self.win_backgammon,
            self.lose_gammon,
            self.lose_backgammon,
        ]
    }

    /// From gnubg's order (the inverse of [`Probabilities::to_array`]).
    #[inline]
    pub const fn from_array(p: [f32; 5]) -> Probabilities {
        Probabilities {
            win: p[0],
            win_gammon: p[1],
            win_backgammon: p[2],
            lose_gammon: p[3],
            lose_backgammon: p[4],
        }
    }

    /// From five independent estimates in gnubg's order (a net's five sigmoids), made
    /// consistent as GNU Backgammon's `SanityCheck` makes its nets' outputs: a gammon is a
    /// win too and a backgammon a gammon (R16), so `win_gammon <= win`, `win_backgammon <=
    /// win_gammon`, `lose_gammon <= 1 - win` and `lose_backgammon <= lose_gammon`. Without
    /// it a net could say a gammon is likelier than a win, and every equity, cube decision
    /// and error rate built on the five would follow it.
    #[inline]
    pub fn from_estimates(p: [f32; 5]) -> Probabilities {
        let [win, win_gammon, win_backgammon, lose_gammon, lose_backgammon] = p;
        let win_gammon = win_gammon.min(win);
        let lose_gammon = lose_gammon.min(1.0 - win);
        Probabilities {
            win,
            win_gammon,
            win_backgammon: win_backgammon.min(win_gammon),
            lose_gammon,
            lose_backgammon: lose_backgammon.min(lose_gammon),
        }
    }

    /// Cubeless equity in points per game (R16): `2 win - 1 + wg + wbg - lg - lbg`.
    #[inline]
    pub fn equity(&self) -> f32 {
        2.0 * self.win - 1.0 + self.win_gammon + self.win_backgammon
            - self.lose_gammon
            - self.lose_backgammon
    }

    /// The same chances seen by the other side.
    #[inline]
    pub fn flipped(&self) -> Probabilities {
        Probabilities {
            win: 1.0 - self.win,
            win_gammon: self.lose_gammon,
            win_backgammon: self.lose_backgammon,
            lose_gammon: self.win_gammon,
            lose_backgammon: self.win_backgammon,
        }
    }

    /// The exact value of a finished game (R15, R16), `None` while it goes on.
    pub fn game_over(pos: &Position) -> Option<Probabilities> {
        let outcome = pos.outcome()?;
        let gammon = (outcome.kind >= WinKind::Gammon) as u8 as f32;
        let backgammon = (outcome.kind == WinKind::Backgammon) as u8 as f32;
        let won = Probabilities {
            win: 1.0,
            win_gammon: gammon,
            win_backgammon: backgammon,
            lose_gammon: 0.0,
            lose_backgammon: 0.0,
        };
        Some(match outcome.winner {
            Side::Mover => won,
            Side::Opponent => won.flipped(),
        })
    }
}

/// Anything that scores positions: many positions in, probabilities out.
///
/// Each position is seen from its side to move, about to roll. Implementations must give a
/// position the same probabilities whatever else is in the batch, so results do not depend
/// on how work is split.
pub trait Evaluator: Sync {
    /// Writes the probabilities of `positions[i]` into `out[i]`.
    ///
    /// Panics if `out` is shorter than `positions`.
    fn evaluate(&self, positions: &[Position], out: &mut [Probabilities]);

    /// The probabilities of one position.
    fn evaluate_one(&self, position: &Position) -> Probabilities {
        let mut out = [Probabilities::default()];
        self.evaluate(core::slice::from_ref(position), &mut out);
        out[0]
    }
}

/// Exact scoring of finished games; a game still going is reported as an even game with no
/// gammons (this evaluator knows nothing else, so use it only on finished games or as the
/// end of a chain).
#[derive(Clone, Copy, Debug, Default)]
pub struct GameOver;

impl Evaluator for GameOver {
    fn evaluate(&self, positions: &[Position], out: &mut [Probabilities]) {
        let even = Probabilities {
            win: 0.5,
            ..Probabilities::default()
        };
        for (p, o) in positions.iter().zip(&mut out[..positions.len()]) {
            *o = Probabilities::game_over(p).unwrap_or(even);
        }
    }
}

/// Tesauro's pubeval as an evaluator. Pubeval scores a position for the side that has just
/// moved (its score `s` of a play's result is the chooser's), so the side to move's chances
/// are reported as those of the side that moved last turned around: `win = 1 - 1 / (1 +
/// e^-s)`, `s` the opponent's score, with no gammons. That keeps pubeval's order (a chooser
/// taking the result worst for the side to move there plays as [`crate::playout::PubevalPolicy`]
/// does, but for the weights: race or contact by the result here, by the position before
/// the play there) and nothing more. Finished games are scored exactly.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pubeval;

impl Evaluator for Pubeval {
    fn evaluate(&self, positions: &[Position], out: &mut [Probabilities]) {
        for (p, o) in positions.iter().zip(&mut out[..positions.len()]) {
            *o = Probabilities::game_over(p).unwrap_or_else(|| {
                let opponent = pubeval::Table::new(p.is_race()).score(p.opponent(), p.mover());
                Probabilities {
                    win: 1.0 - 1.0 / (1.0 + (-opponent).exp()),
                    ..Probabilities::default()
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pubeval_as_an_evaluator_chooses_as_the_pubeval_policy() {
        use crate::playout::{Policy, PubevalPolicy};
        use bgfast_core::rng::GameRng;
        use bgfast_core::{Dice, MoveList};
        // From positions of pubeval's own games: the result worst for the side to move
        // there (the opponent), by the evaluator, is pubeval's own choice whenever the
        // result is in the same phase (race or contact) as the position before the play.
        let mut rng = GameRng::new(3, 0);
        let mut policy = PubevalPolicy::new();
        let mut list = MoveList::new();
        let (mut compared, mut pos) = (0, Position::START);
        for _ in 0..2_000 {
            let dice = Dice::ALL_21[rng.below(21) as usize];
            pos.generate_moves(dice, &mut list);
            let chosen = policy.choose(&list, &mut rng);
            let results: Vec<Position> = list.results().collect();
            if results.iter().all(|r| r.is_race() == pos.is_race()) {
                let mut chances = vec![Probabilities::default(); results.len()];
                Pubeval.evaluate(&results, &mut chances);
                let worst = (0..results.len())
                    .min_by(|&a, &b| chances[a].equity().total_cmp(&chances[b].equity()))
                    .unwrap();
                assert_eq!(chances[worst].equity(), chances[chosen].equity(), "{pos:?}");
                compared += 1;
            }
            pos = results[chosen];
            if pos.outcome().is_some() {
                pos = Position::START;
            }
        }
        assert!(compared > 1_000, "{compared}");
    }

    #[test]
    fn outcomes_fold_into_gnubgs_five_and_keep_the_equity() {
        let six = [0.1, 0.2, 0.05, 0.3, 0.25, 0.1];
        let p = Probabilities::from_outcomes(six);
        let direct =
            (six[0] + 2.0 * six[1] + 3.0 * six[2]) - (six[3] + 2.0 * six[4] + 3.0 * six[5]);
        assert!((p.equity() - direct).abs() < 1e-6);
        assert!((p.flipped().equity() + direct).abs() < 1e-6);
        assert_eq!(p.flipped().flipped(), p);
    }

    #[test]
    fn rounding_never_takes_a_chance_past_one() {
        // A sure win of the larger nets summed to 1.0000001: outputs that add up to 1
        // but for rounding.
        let (high, low) = (0.999_999_94_f32, 2e-7_f32);
        assert!(high + low > 1.0, "the case needs a sum that rounds past 1");
        let sure = Probabilities::from_outcomes([high, low, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(sure.win, 1.0);
        let gammon = Probabilities::from_outcomes([0.0, high, low, 0.0, 0.0, 0.0]);
        assert_eq!((gammon.win, gammon.win_gammon), (1.0, 1.0));
        let lost = Probabilities::from_outcomes([0.0, 0.0, 0.0, 0.0, high, low]);
        assert_eq!(lost.lose_gammon, 1.0);
    }

    #[test]
    fn finished_games_are_scored_exactly() {
        // The opponent has borne off all 15; the mover has none off and a checker on its
        // 24-point, the winner's home board: a backgammon loss.
        let mut mover = [0u8; 25];
        mover[23] = 15;
        let pos = Position::from_counts(&mover, &[0u8; 25]).unwrap();
        let p = Probabilities::game_over(&pos).unwrap();
        assert_eq!(p.to_array(), [0.0, 0.0, 0.0, 1.0, 1.0]);
        assert_eq!(p.equity(), -3.0);
        assert_eq!(Probabilities::game_over(&Position::START), None);
    }
}
