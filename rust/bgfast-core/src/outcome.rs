//! Who won, and by how much (R15, R16).

use core::fmt;

/// A side, relative to the position: the one to move, or the other.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Side {
    /// The side to move.
    Mover,
    /// The side not to move.
    Opponent,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Mover => "the side to move",
            Side::Opponent => "the opponent",
        })
    }
}

/// How a game was won (R16).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum WinKind {
    /// The loser had borne off a checker: one cube value.
    Single = 1,
    /// The loser had borne off none: twice.
    Gammon = 2,
    /// A gammon with a loser's checker on the bar or in the winner's home board: three times.
    Backgammon = 3,
}

impl WinKind {
    /// The multiplier of the cube value (R16, backgammons counting triple).
    pub const fn points(self) -> u32 {
        self as u32
    }
}

/// The end of a game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Outcome {
    /// Who bore off all 15 checkers.
    pub winner: Side,
    /// Single, gammon or backgammon.
    pub kind: WinKind,
}
