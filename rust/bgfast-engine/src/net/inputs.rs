//! Input encodings of a net: how a position becomes the floats of its first layer.
//!
//! `wildbg` is the encoding of wildbg's nets (carsten-wenderdel/wildbg, `inputs.rs`). One
//! side's `n` checkers on a point give four units: `n = 1 -> (1, 0, 0, 0)`,
//! `n = 2 -> (0, 1, 0, 0)`, `n >= 3 -> (0, 0, 1, n - 3)`, none -> zeros.
//!
//! | net | index | meaning |
//! |---|---|---|
//! | contact (202) | `0`, `1` | the mover's and the opponent's checkers off (counts) |
//! | | `2..6` | the mover's bar |
//! | | `6 + 4(p-1) ..`, `p = 1..=24` | the mover's point `p` (its own numbering) |
//! | | `102..106` | the opponent's bar |
//! | | `106 + 4(p-1) ..`, `p = 1..=24` | the opponent's checkers on the point the mover calls `p` |
//! | race (186) | `0`, `1` | checkers off, as above |
//! | | `2 + 4(p-1) ..`, `p = 1..=23` | the mover's point `p` |
//! | | `94 + 4(p-2) ..`, `p = 2..=24` | the opponent's checkers on the point the mover calls `p` |
//!
//! In a race no checker is on a bar, the mover has none on its 24-point and the opponent
//! none on the mover's 1-point, so the race encoding leaves those out.
//!
//! `board` is the raw `(2, 25)` counts as floats, row 0 the mover: index `p - 1` its point
//! `p`, 24 its bar; then the opponent in its own numbering. Any net trained elsewhere on the
//! plain board can be plugged in with it; it is the same for contact and race nets.

use bgfast_core::{Checkers, Position, BAR};

/// Which of a net's two parts a position is scored by.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Phase {
    /// Contact is possible.
    Contact,
    /// Contact is broken (`Position::is_race`).
    Race,
}

impl Phase {
    /// The phase of `pos`.
    #[inline]
    pub fn of(pos: &Position) -> Phase {
        if pos.is_race() {
            Phase::Race
        } else {
            Phase::Contact
        }
    }

    /// `"contact"` or `"race"`.
    pub const fn name(self) -> &'static str {
        match self {
            Phase::Contact => "contact",
            Phase::Race => "race",
        }
    }
}

/// An input encoding.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Inputs {
    /// wildbg's 202 contact and 186 race inputs.
    Wildbg,
    /// The raw `(2, 25)` counts: 50 inputs.
    Board,
}

/// Contact inputs of the wildbg encoding.
pub const WILDBG_CONTACT: usize = 202;
/// Race inputs of the wildbg encoding.
pub const WILDBG_RACE: usize = 186;
/// Inputs of the board encoding.
pub const BOARD: usize = 50;

/// The four units of `n` checkers on one point (wildbg's table).
#[inline]
pub const fn units(n: u8) -> [f32; 4] {
    match n {
        0 => [0.0; 4],
        1 => [1.0, 0.0, 0.0, 0.0],
        2 => [0.0, 1.0, 0.0, 0.0],
        _ => [0.0, 0.0, 1.0, (n - 3) as f32],
    }
}

impl Inputs {
    /// Every encoding, for listing.
    pub const ALL: [Inputs; 2] = [Inputs::Wildbg, Inputs::Board];

    /// The encoding named `name` (`"wildbg"` or `"board"`).
    pub fn from_name(name: &str) -> Option<Inputs> {
        Inputs::ALL.into_iter().find(|i| i.name() == name)
    }

    /// The encoding's name.
    pub const fn name(self) -> &'static str {
        match self {
            Inputs::Wildbg => "wildbg",
            Inputs::Board => "board",
        }
    }

    /// The number of inputs for positions of `phase`.
    pub const fn width(self, phase: Phase) -> usize {
        match (self, phase) {
            (Inputs::Wildbg, Phase::Contact) => WILDBG_CONTACT,
            (Inputs::Wildbg, Phase::Race) => WILDBG_RACE,
            (Inputs::Board, _) => BOARD,
        }
    }

    /// Writes the inputs of `pos` for the part of `phase` into `out[..self.width(phase)]`.
    /// The race encoding of a position that is not a race drops the checkers it cannot
    /// hold (see the module docs); callers pick the phase with [`Phase::of`].
    ///
    /// Panics if `out` is shorter than [`Inputs::width`].
    #[inline]
    pub fn encode(self, pos: &Position, phase: Phase, out: &mut [f32]) {
        let out = &mut out[..self.width(phase)];
        match (self, phase) {
            (Inputs::Wildbg, Phase::Contact) => wildbg_contact(pos, out),
            (Inputs::Wildbg, Phase::Race) => wildbg_race(pos, out),
            (Inputs::Board, _) => board(pos, out),
        }
    }
}

/// The opponent's count on the point the mover calls `p` (1..=24); 25 is the opponent's bar.
#[inline]
fn opponent_at(opponent: Checkers, p: u8) -> u8 {
    if p == BAR {
        opponent.bar()
    } else {
        opponent.count(25 - p)
    }
}

fn wildbg_contact(pos: &Position, out: &mut [f32]) {
    let (mover, opponent) = (pos.mover(), pos.opponent());
    out[0] = mover.off() as f32;
    out[1] = opponent.off() as f32;
    out[2..6].copy_from_slice(&units(mover.bar()));
    for p in 1..=24u8 {
        let i = 6 + 4 * (p as usize - 1);
        out[i..i + 4].copy_from_slice(&units(mover.count(p)));
    }
    out[102..106].copy_from_slice(&units(opponent.bar()));
    for p in 1..=24u8 {
        let i = 106 + 4 * (p as usize - 1);
        out[i..i + 4].copy_from_slice(&units(opponent_at(opponent, p)));
    }
}

fn wildbg_race(pos: &Position, out: &mut [f32]) {
    let (mover, opponent) = (pos.mover(), pos.opponent());
    out[0] = mover.off() as f32;
    out[1] = opponent.off() as f32;
    for p in 1..=23u8 {
        let i = 2 + 4 * (p as usize - 1);
        out[i..i + 4].copy_from_slice(&units(mover.count(p)));
    }
    for p in 2..=24u8 {
        let i = 94 + 4 * (p as usize - 2);
        out[i..i + 4].copy_from_slice(&units(opponent_at(opponent, p)));
    }
}

fn board(pos: &Position, out: &mut [f32]) {
    let counts = pos.to_counts();
    for (o, c) in out.iter_mut().zip(counts.iter().flatten()) {
        *o = *c as f32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_in_wildbg_contact_inputs() {
        let mut x = [9.0f32; WILDBG_CONTACT];
        Inputs::Wildbg.encode(&Position::START, Phase::Contact, &mut x);
        assert_eq!(&x[..6], &[0.0; 6]);
        // The mover's 6-point holds 5: (0, 0, 1, 2).
        assert_eq!(&x[6 + 20..6 + 24], &[0.0, 0.0, 1.0, 2.0]);
        // The opponent's 24-point is the mover's 1-point, right after the opponent's bar.
        assert_eq!(&x[106..110], &[0.0, 1.0, 0.0, 0.0]);
        // Each side: 2 + 5 + 3 + 5 on four points -> 1 + (1+2) + (1+0) + (1+2) units.
        assert_eq!(x.iter().sum::<f32>(), 2.0 * 8.0);
    }

    #[test]
    fn names_round_trip() {
        for i in Inputs::ALL {
            assert_eq!(Inputs::from_name(i.name()), Some(i));
        }
        assert_eq!(Inputs::from_name("tesauro198"), None);
    }
}
