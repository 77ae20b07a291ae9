//! Tesauro's pubeval: the public linear evaluator that is the field's benchmark opponent.
//!
//! Implemented from Gerald Tesauro's published description and weights (`pubeval.c`, 1993,
//! posted to rec.games.backgammon "as a public service to the backgammon programming
//! community"; the same weights ship in GNU Backgammon's `pub_eval.c`). A position is scored
//! for its row-0 side ("the computer" in Tesauro's text), with 122 inputs:
//!
//! | inputs | meaning |
//! |---|---|
//! | `5*k .. 5*k+5`, `k = 0..24` | the point `24 - k` in row 0's numbering (`k = 0` is its 24-point): `[opponent blot, own n == 1, own n >= 2, own n == 3, (n - 3) / 2 if own n >= 4]` |
//! | `120` | the opponent's checkers on the bar / 2 |
//! | `121` | row 0's checkers off / 15 |
//!
//! Race weights apply when contact is broken, contact weights otherwise. A side with all 15
//! checkers off scores 99999999 (it has won). Row 0's own checkers on the bar have no input.
//!
//! Scores are computed as GNU Backgammon computes them (input scalings folded into the
//! weights, per-point sums in `f32`, from the 24-point down), so they equal its
//! `pub_eval_score` to the bit.

use bgfast_core::{Checkers, MoveList, Position};

/// The number of pubeval inputs.
pub const INPUTS: usize = 122;

/// The score given to a position whose row-0 side has borne off all 15 checkers: Tesauro's
/// `99999999.`, which is 1e8 once stored in an `f32`.
pub const WON: f32 = 100_000_000.0;

const RACE: [f64; INPUTS] = [
    0.00000, -0.17160, 0.27010, 0.29906, -0.08471, 0.00000, -1.40375, -1.05121, 0.07217, -0.01351,
    0.00000, -1.29506, -2.16183, 0.13246, -1.03508, 0.00000, -2.29847, -2.34631, 0.17253, 0.08302,
    0.00000, -1.27266, -2.87401, -0.07456, -0.34240, 0.00000, -1.34640, -2.46556, -0.13022,
    -0.01591, 0.00000, 0.27448, 0.60015, 0.48302, 0.25236, 0.00000, 0.39521, 0.68178, 0.05281,
    0.09266, 0.00000, 0.24855, -0.06844, -0.37646, 0.05685, 0.00000, 0.17405, 0.00430, 0.74427,
    0.00576, 0.00000, 0.12392, 0.31202, -0.91035, -0.16270, 0.00000, 0.01418, -0.10839, -0.02781,
    -0.88035, 0.00000, 1.07274, 2.00366, 1.16242, 0.22520, 0.00000, 0.85631, 1.06349, 1.49549,
    0.18966, 0.00000, 0.37183, -0.50352, -0.14818, 0.12039, 0.00000, 0.13681, 0.13978, 1.11245,
    -0.12707, 0.00000, -0.22082, 0.20178, -0.06285, -0.52728, 0.00000, -0.13597, -0.19412,
    -0.09308, -1.26062, 0.00000, 3.05454, 5.16874, 1.50680, 5.35000, 0.00000, 2.19605, 3.85390,
    0.88296, 2.30052, 0.00000, 0.92321, 1.08744, -0.11696, -0.78560, 0.00000, -0.09795, -0.83050,
    -1.09167, -4.94251, 0.00000, -1.00316, -3.66465, -2.56906, -9.67677, 0.00000, -2.77982,
    -7.26713, -3.40177, -12.32252, 0.00000, 3.42040,
];

const CONTACT: [f64; INPUTS] = [
    0.25696, -0.66937, -1.66135, -2.02487, -2.53398, -0.16092, -1.11725, -1.06654, -0.92830,
    -1.99558, -1.10388, -0.80802, 0.09856, -0.62086, -1.27999, -0.59220, -0.73667, 0.89032,
    -0.38933, -1.59847, -1.50197, -0.60966, 1.56166, -0.47389, -1.80390, -0.83425, -0.97741,
    -1.41371, 0.24500, 0.10970, -1.36476, -1.05572, 1.15420, 0.11069, -0.38319, -0.74816, -0.59244,
    0.81116, -0.39511, 0.11424, -0.73169, -0.56074, 1.09792, 0.15977, 0.13786, -1.18435, -0.43363,
    1.06169, -0.21329, 0.04798, -0.94373, -0.22982, 1.22737, -0.13099, -0.06295, -0.75882,
    -0.13658, 1.78389, 0.30416, 0.36797, -0.69851, 0.13003, 1.23070, 0.40868, -0.21081, -0.64073,
    0.31061, 1.59554, 0.65718, 0.25429, -0.80789, 0.08240, 1.78964, 0.54304, 0.41174, -1.06161,
    0.07851, 2.01451, 0.49786, 0.91936, -0.90750, 0.05941, 1.83120, 0.58722, 1.28777, -0.83711,
    -0.33248, 2.64983, 0.52698, 0.82132, -0.58897, -1.18223, 3.35809, 0.62017, 0.57353, -0.07276,
    -0.36214, 4.37655, 0.45481, 0.21746, 0.10504, -0.61977, 3.54001, 0.04612, -0.18108, 0.63211,
    -0.87046, 2.47673, -0.48016, -1.27157, 0.86505, -1.11342, 1.24612, -0.82385, -2.77082, 1.23606,
    -1.59529, 0.10438, -1.30206, -4.11520, 5.62596, -2.75800,
];

/// Tesauro's weights for a race (`true`) or a contact position, as published.
#[inline]
pub const fn weights(race: bool) -> &'static [f64; INPUTS] {
    if race {
        &RACE
    } else {
        &CONTACT
    }
}

/// Writes the 122 pubeval inputs of `pos` (row 0 scored) into `out[..122]`.
///
/// Panics if `out` is shorter than [`INPUTS`].
pub fn inputs(pos: &Position, out: &mut [f32]) {
    let out = &mut out[..INPUTS];
    out.fill(0.0);
    let (own, opp) = (pos.mover(), pos.opponent());
    for k in 0..24u8 {
        let point = 24 - k;
        let n = own.count(point);
        let x = &mut out[5 * k as usize..5 * k as usize + 5];
        if n == 0 {
            // The opponent's checkers on our `point` stand on its point `25 - point`.
            if opp.count(25 - point) == 1 {
                x[0] = 1.0;
            }
        } else if n == 1 {
            x[1] = 1.0;
        } else {
            x[2] = 1.0;
            if n == 3 {
                x[3] = 1.0;
            }
            if n >= 4 {
                x[4] = (n as f32 - 3.0) / 2.0;
            }
        }
    }
    out[120] = opp.bar() as f32 / 2.0;
    out[121] = own.off() as f32 / 15.0;
}

/// One set of weights folded per point, in `f32`, the way GNU Backgammon evaluates pubeval:
/// the `/ 2` and `/ 15` input scalings folded into the weights in double precision, then
/// per point the sum of the weights its count switches on.
#[derive(Clone, Debug)]
pub struct Table {
    /// `own[p][n]`: row 0 has `n >= 1` checkers on its point `p` (1..=24); `own[p][0]`:
    /// an opponent blot there (the only other point that scores), so the sum never branches.
    own: [[f32; 16]; 25],
    bar: f32,
    off: f32,
}

impl Table {
    /// The table for race or contact weights.
    pub fn new(race: bool) -> Table {
        let w = weights(race);
        let w32 = |i: usize| w[i] as f32;
        let mut own = [[0.0f32; 16]; 25];
        for (p, row) in own.iter_mut().enumerate().skip(1) {
            let b = 5 * (24 - p);
            let four = (w[b + 4] / 2.0) as f32;
            for (n, slot) in row.iter_mut().enumerate() {
                *slot = match n {
                    0 => w32(b),
                    1 => w32(b + 1),
                    2 => w32(b + 2),
                    3 => w32(b + 2) + w32(b + 3),
                    n => w32(b + 2) + four * (n as f32 - 3.0),
                };
            }
        }
        Table {
            own,
            bar: (w[120] / 2.0) as f32,
            off: (w[121] / 15.0) as f32,
        }
    }

    /// The score of row 0 with checkers `own` against `opp` (each in its own numbering),
    /// summed from row 0's 24-point down to its 1-point, as GNU Backgammon does.
    #[inline]
    pub fn score(&self, own: Checkers, opp: Checkers) -> f32 {
        // An opponent blot on its point q is on our point 25 - q: reverse the bits.
        self.score_parts(own, opp.bar(), opp.blots().bits().reverse_bits() >> 6)
    }

    /// [`Table::score`] from the opponent's bar count and its blots as our points.
    #[inline]
    fn score_parts(&self, own: Checkers, opp_bar: u8, blots: u32) -> f32 {
        let off = own.off();
        if off == 15 {
            return WON;
        }
        let mut s = self.bar * opp_bar as f32 + self.off * off as f32;
        let own_points = own.occupied().bits() & 0x1FF_FFFE;
        let mut points = own_points | blots;
        // Counts read from 64-bit halves: a variable 128-bit shift costs several instructions.
        let (lo, hi) = (own.bits() as u64, (own.bits() >> 64) as u64);
        while points != 0 {
            let p = 31 - points.leading_zeros() as usize;
            points &= !(1 << p);
            let half = if p < 16 { lo } else { hi };
            let n = (half >> ((4 * p) & 63)) & 0xF;
            s += self.own[p][n as usize];
        }
        s
    }
}

/// The two tables, built once.
#[derive(Clone, Debug)]
pub struct Tables {
    race: Table,
    contact: Table,
}

impl Default for Tables {
    fn default() -> Self {
        Tables::new()
    }
}

impl Tables {
    /// Both tables.
    pub fn new() -> Tables {
        Tables {
            race: Table::new(true),
            contact: Table::new(false),
        }
    }

    /// The pubeval score of `pos` for its row 0 with race or contact weights.
    #[inline]
    pub fn score_with(&self, race: bool, pos: &Position) -> f32 {
        let table = if race { &self.race } else { &self.contact };
        table.score(pos.mover(), pos.opponent())
    }

    /// The index of pubeval's favourite result in `list` (the first of equals), with the
    /// weights chosen by the position before the move, as Tesauro specifies. `list` must not
    /// be empty.
    pub fn best(&self, list: &MoveList) -> usize {
        let origin = list.origin();
        let table = if origin.is_race() {
            &self.race
        } else {
            &self.contact
        };
        // The opponent's checkers move only when hit, and every hit puts one on the bar: a
        // result with the same bar count has the same opponent blots as the origin.
        let bar0 = origin.opponent().bar();
        let blots0 = origin.opponent().blots().bits().reverse_bits() >> 6;
        let mut best = 0;
        let mut best_score = f32::NEG_INFINITY;
        for i in 0..list.len() {
            // The result has the opponent to move: the chooser is its row 1.
            let r = list.result(i);
            let opp = r.mover();
            let bar = opp.bar();
            let blots = if bar == bar0 {
                blots0
            } else {
                opp.blots().bits().reverse_bits() >> 6
            };
            let s = table.score_parts(r.opponent(), bar, blots);
            if s > best_score {
                best_score = s;
                best = i;
            }
        }
        best
    }
}

/// The pubeval score of `pos` for its row-0 side, with the weights chosen by the position
/// itself (race weights when contact is broken), to the bit what GNU Backgammon's
/// `pub_eval_score` gives. Builds the table each call: batch callers keep a [`Tables`].
pub fn score(pos: &Position) -> f32 {
    Table::new(pos.is_race()).score(pos.mover(), pos.opponent())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bgfast_core::codec::gnubg_id;
    use bgfast_core::Dice;

    #[test]
    fn start_position_matches_gnubg() {
        // GNU Backgammon's gnubg_nn.pub_eval_score on the start: 6.840549945831299.
        assert_eq!(score(&Position::START), 6.840_549_945_831_299_f64 as f32);
    }

    #[test]
    fn table_is_the_linear_form_of_the_inputs() {
        let mut list = MoveList::new();
        let tables = Tables::new();
        for id in [
            "4HPwATDgc/ABMA",
            "jGfkASjg8wcBMA",
            "2+4OAADbtgkAAA",
            "AAAAgMPbAQAAAA",
        ] {
            let pos = gnubg_id::decode(id).unwrap();
            for dice in Dice::ALL_21 {
                pos.generate_moves(dice, &mut list);
                for r in list.results() {
                    let me = r.flipped();
                    let mut x = [0.0f32; INPUTS];
                    inputs(&me, &mut x);
                    for race in [false, true] {
                        let w = weights(race);
                        let linear: f64 = (0..INPUTS).map(|i| w[i] * x[i] as f64).sum();
                        let t = tables.score_with(race, &me) as f64;
                        assert!(
                            (t - linear).abs() <= 1e-4 * linear.abs().max(1.0),
                            "{id} {t} {linear}"
                        );
                    }
                }
            }
        }
    }
}
