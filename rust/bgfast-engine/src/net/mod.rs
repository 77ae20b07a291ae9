//! Neural-net evaluation: a contact part, an optional race part, an input encoding.
//!
//! A [`Net`] scores a position by the part of its phase: the race part exactly when contact
//! is broken ([`Position::is_race`]), the contact part otherwise (and for races too when the
//! net has no race part); a finished game is scored exactly, never by a part.
//!
//! To choose a play, a net evaluates every distinct result of the roll with the opponent to
//! move and plays the one that is worst for the opponent (wildbg's rule); equal results go
//! to the first in move-generation order, so the choice is deterministic.

mod fast;
pub mod file;
pub mod inputs;
pub mod mlp;
pub mod onnx;

use bgfast_core::{MoveList, Position};

use crate::eval::{Evaluator, Probabilities};
use crate::playout::Policy;
use bgfast_core::rng::GameRng;
pub use inputs::{Inputs, Phase};
pub use mlp::{Activation, Dense, Head, Mlp, NetError};

/// A net: its encoding, a contact part and an optional race part.
#[derive(Clone, PartialEq, Debug)]
pub struct Net {
    inputs: Inputs,
    contact: Mlp,
    race: Option<Mlp>,
}

impl Net {
    /// A net from its parts, checked against the encoding's widths.
    pub fn new(inputs: Inputs, contact: Mlp, race: Option<Mlp>) -> Result<Net, NetError> {
        let check = |part: &Mlp, phase: Phase| {
            let width = inputs.width(phase);
            if part.inputs() == width {
                Ok(())
            } else {
                Err(NetError::Parts(format!(
                    "the {} net takes {} inputs, but the {:?} encoding gives {width} for {} \
                     positions",
                    phase.name(),
                    part.inputs(),
                    inputs.name(),
                    phase.name()
                )))
            }
        };
        check(&contact, Phase::Contact)?;
        if let Some(race) = &race {
            check(race, Phase::Race)?;
        }
        Ok(Net {
            inputs,
            contact,
            race,
        })
    }

    /// The input encoding.
    pub fn inputs(&self) -> Inputs {
        self.inputs
    }

    /// The contact part.
    pub fn contact(&self) -> &Mlp {
        &self.contact
    }

    /// The race part, if any.
    pub fn race(&self) -> Option<&Mlp> {
        self.race.as_ref()
    }

    /// The part that scores `pos` and the phase of its encoding.
    #[inline]
    pub fn part(&self, pos: &Position) -> (&Mlp, Phase) {
        match (&self.race, Phase::of(pos)) {
            (Some(race), Phase::Race) => (race, Phase::Race),
            _ => (&self.contact, Phase::Contact),
        }
    }

    /// The probabilities of `pos` by the reference forward pass (plain scalar code, the
    /// specification the fast paths are tested against).
    pub fn evaluate_reference(&self, pos: &Position) -> Probabilities {
        if let Some(p) = Probabilities::game_over(pos) {
            return p;
        }
        let (part, phase) = self.part(pos);
        let mut x = vec![0.0; self.inputs.width(phase)];
        self.inputs.encode(pos, phase, &mut x);
        part.forward_reference(&x)
    }

    /// Every result of `list` with its probabilities for the side that moves (the list's
    /// origin), best first by cubeless equity, equal equities in list order: `(index into
    /// the list, probabilities)`.
    pub fn rank(&self, list: &MoveList) -> Vec<(usize, Probabilities)> {
        let mut ranked: Vec<(usize, Probabilities)> = (0..list.len())
            .map(|i| (i, self.evaluate_one(&list.result(i)).flipped()))
            .collect();
        // A stable sort keeps equal equities in list order.
        ranked.sort_by(|a, b| b.1.equity().total_cmp(&a.1.equity()));
        ranked
    }

    /// The index of the result that is worst for the opponent (the first of equals).
    pub fn best(&self, list: &MoveList) -> usize {
        let mut best = 0;
        let mut lowest = f32::INFINITY;
        for i in 0..list.len() {
            let e = self.evaluate_one(&list.result(i)).equity();
            if e < lowest {
                lowest = e;
                best = i;
            }
        }
        best
    }
}

impl Evaluator for Net {
    fn evaluate(&self, positions: &[Position], out: &mut [Probabilities]) {
        for (p, o) in positions.iter().zip(&mut out[..positions.len()]) {
            *o = self.evaluate_reference(p);
        }
    }
}

/// A net as a checker-play policy: the play [`Net::best`] picks.
#[derive(Clone, Debug)]
pub struct NetPolicy<'a> {
    net: &'a Net,
}

impl<'a> NetPolicy<'a> {
    /// A player of `net`.
    pub fn new(net: &'a Net) -> NetPolicy<'a> {
        NetPolicy { net }
    }
}

impl Policy for NetPolicy<'_> {
    fn choose(&mut self, list: &MoveList, _rng: &mut GameRng) -> usize {
        self.net.best(list)
    }
}
