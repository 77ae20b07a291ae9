//! Feature encodings of positions for learning programs, written into caller-owned buffers.
//!
//! `tesauro198` is TD-Gammon's input layout (Tesauro 1992, as in gym-backgammon's
//! `get_board_features`, with row 0 of the position as its "white"):
//!
//! | index | meaning |
//! |---|---|
//! | `4*i .. 4*i+4`, `i = 0..24` | row 0's checkers on its point `i + 1`: `[n >= 1, n >= 2, n >= 3, (n - 3) / 2 if n > 3]` |
//! | `96`, `97` | row 0's checkers on the bar / 2, borne off / 15 |
//! | `98 + 4*i ..`, `i = 0..24` | row 1's checkers on row 1's point `24 - i` (the same square as row 0's point `i + 1`), same four units |
//! | `194`, `195` | row 1's bar / 2, off / 15 |
//! | `196`, `197` | `[1, 0]` when row 0 is on roll, `[0, 1]` when row 1 is |
//!
//! `pubeval` is the 122-input encoding of [`crate::pubeval`], row 0 scored.
//!
//! `wildbg` (202), `wildbg-race` (186) and `board` (50) are the input encodings of nets
//! ([`crate::net::inputs`]): position evaluators, which score a position for its side to
//! move about to roll. `wildbg-race` leaves out what a race cannot hold (bars, the mover's
//! 24-point, the opponent's checkers on the mover's 1-point).

use crate::net::{Inputs, Phase};
use crate::pubeval;
use bgfast_core::{Checkers, Position};

/// A feature encoding.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Scheme {
    /// TD-Gammon's 198 inputs.
    Tesauro198,
    /// Tesauro's pubeval's 122 inputs.
    Pubeval,
    /// wildbg's 202 contact inputs.
    Wildbg,
    /// wildbg's 186 race inputs.
    WildbgRace,
    /// The raw `(2, 25)` counts as 50 floats.
    Board,
}

impl Scheme {
    /// Every scheme, for listing.
    pub const ALL: [Scheme; 5] = [
        Scheme::Tesauro198,
        Scheme::Pubeval,
        Scheme::Wildbg,
        Scheme::WildbgRace,
        Scheme::Board,
    ];

    /// The scheme named `name` (`"tesauro198"`, `"pubeval"`, `"wildbg"`, `"wildbg-race"`
    /// or `"board"`).
    pub fn from_name(name: &str) -> Option<Scheme> {
        Scheme::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The scheme's name.
    pub const fn name(self) -> &'static str {
        match self {
            Scheme::Tesauro198 => "tesauro198",
            Scheme::Pubeval => "pubeval",
            Scheme::Wildbg => "wildbg",
            Scheme::WildbgRace => "wildbg-race",
            Scheme::Board => "board",
        }
    }

    /// The number of features per position.
    pub const fn width(self) -> usize {
        match self {
            Scheme::Tesauro198 => 198,
            Scheme::Pubeval => pubeval::INPUTS,
            Scheme::Wildbg => Inputs::Wildbg.width(Phase::Contact),
            Scheme::WildbgRace => Inputs::Wildbg.width(Phase::Race),
            Scheme::Board => Inputs::Board.width(Phase::Contact),
        }
    }

    /// Whether this is a position evaluator's encoding (`wildbg`, `wildbg-race`, `board`):
    /// a candidate result is then encoded as it stands, with the opponent on roll, as such
    /// a net expects. The other schemes encode a candidate as the player who chose it sees
    /// it (row 0 the chooser).
    pub const fn evaluates_side_to_move(self) -> bool {
        matches!(self, Scheme::Wildbg | Scheme::WildbgRace | Scheme::Board)
    }

    /// Writes the features of candidate results (each with the opponent of the player
    /// choosing on roll) into `out` row by row; `out.len()` must be `candidates.len() *
    /// self.width()`. A candidate is seen by the player choosing (row 0 the chooser), or,
    /// for a position evaluator's scheme ([`Scheme::evaluates_side_to_move`]), as it
    /// stands: the opponent to move.
    pub fn encode_candidates(self, candidates: &[Position], out: &mut [f32]) {
        let width = self.width();
        assert_eq!(out.len(), candidates.len() * width, "feature buffer size");
        for (c, row) in candidates.iter().zip(out.chunks_exact_mut(width)) {
            if self.evaluates_side_to_move() {
                self.encode(c, true, row);
            } else {
                self.encode(&c.flipped(), false, row);
            }
        }
    }

    /// Writes the features of `pos` into `out[..self.width()]`. `row0_on_roll` says who is on
    /// roll (only `tesauro198` encodes it): `true` for a position seen from the side to move,
    /// `false` for a result seen by the player who just moved.
    ///
    /// Panics if `out` is shorter than [`Scheme::width`].
    #[inline]
    pub fn encode(self, pos: &Position, row0_on_roll: bool, out: &mut [f32]) {
        match self {
            Scheme::Tesauro198 => tesauro198(pos, row0_on_roll, out),
            Scheme::Pubeval => pubeval::inputs(pos, out),
            Scheme::Wildbg => Inputs::Wildbg.encode(pos, Phase::Contact, out),
            Scheme::WildbgRace => Inputs::Wildbg.encode(pos, Phase::Race, out),
            Scheme::Board => Inputs::Board.encode(pos, Phase::Contact, out),
        }
    }
}

fn side_units(side: Checkers, point_of: impl Fn(usize) -> u8, out: &mut [f32]) {
    for i in 0..24 {
        let n = side.count(point_of(i));
        let x = &mut out[4 * i..4 * i + 4];
        x[0] = (n >= 1) as u8 as f32;
        x[1] = (n >= 2) as u8 as f32;
        x[2] = (n >= 3) as u8 as f32;
        x[3] = if n > 3 { (n as f32 - 3.0) / 2.0 } else { 0.0 };
    }
    out[96] = side.bar() as f32 / 2.0;
    out[97] = side.off() as f32 / 15.0;
}

/// TD-Gammon's 198 inputs of `pos` into `out[..198]` (layout in the module docs).
pub fn tesauro198(pos: &Position, row0_on_roll: bool, out: &mut [f32]) {
    let out = &mut out[..198];
    side_units(pos.mover(), |i| i as u8 + 1, &mut out[..98]);
    side_units(pos.opponent(), |i| 24 - i as u8, &mut out[98..196]);
    out[196] = row0_on_roll as u8 as f32;
    out[197] = !row0_on_roll as u8 as f32;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_units() {
        let mut x = [9.0f32; 198];
        tesauro198(&Position::START, true, &mut x);
        // Row 0: 5 on its 6-point -> [1, 1, 1, 1].
        assert_eq!(&x[20..24], &[1.0, 1.0, 1.0, 1.0]);
        // Row 1's 24-point (2 checkers) is row 0's 1-point: block i = 0.
        assert_eq!(&x[98..102], &[1.0, 1.0, 0.0, 0.0]);
        assert_eq!(&x[194..198], &[0.0, 0.0, 1.0, 0.0]);
        assert_eq!(x.iter().sum::<f32>(), 2.0 * (2.0 + 4.0 + 3.0 + 4.0) + 1.0);
    }
}
