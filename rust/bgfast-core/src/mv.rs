//! A move: up to four checker steps, each from one point to another (R4, R5).

use crate::checkers::BAR;

/// The `to` of a step that bears a checker off.
pub const OFF: u8 = 0;

/// One checker moved by one die, in the mover's numbering: `from` is 1..=24 or 25 (the bar),
/// `to` is 1..=24 or 0 (borne off). `hit` is set when it lands on an opposing blot (R11).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Step {
    /// Where the checker starts: 1..=24, or 25 for the bar.
    pub from: u8,
    /// Where it lands: 1..=24, or 0 when borne off.
    pub to: u8,
    /// Whether it hits a blot where it lands.
    pub hit: bool,
}

impl Step {
    /// Whether the checker enters from the bar.
    pub const fn is_entry(self) -> bool {
        self.from == BAR
    }

    /// Whether the checker is borne off.
    pub const fn is_bear_off(self) -> bool {
        self.to == OFF
    }
}

/// The steps of one play, in the order played: 0 (no legal play) to 4 (a double).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Move {
    steps: [Step; 4],
    len: u8,
}

impl Move {
    /// The empty move: the roll cannot be played and the turn passes (R10).
    pub const PASS: Move = Move {
        steps: [Step {
            from: 0,
            to: 0,
            hit: false,
        }; 4],
        len: 0,
    };

    /// A move from its steps; `None` for more than four.
    pub fn from_steps(steps: &[Step]) -> Option<Move> {
        if steps.len() > 4 {
            return None;
        }
        let mut m = Move::PASS;
        for &s in steps {
            m.push(s);
        }
        Some(m)
    }

    #[inline]
    pub(crate) fn push(&mut self, step: Step) {
        self.steps[self.len as usize] = step;
        self.len += 1;
    }

    #[inline]
    pub(crate) fn pop(&mut self) {
        self.len -= 1;
    }

    /// The steps in the order played.
    #[inline]
    pub fn steps(&self) -> &[Step] {
        &self.steps[..self.len as usize]
    }

    /// Whether no checker moves.
    #[inline]
    pub const fn is_pass(&self) -> bool {
        self.len == 0
    }
}
