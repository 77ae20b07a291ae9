//! Neural-net evaluation: a contact part, an optional race part, an input encoding.
//!
//! A [`Net`] scores a position by the part of its phase: the race part exactly when contact
//! is broken ([`Position::is_race`]), the contact part otherwise (and for races too when the
//! net has no race part); a finished game is scored exactly, never by a part.
//!
//! To choose a play, a net evaluates every distinct result of the roll with the opponent to
//! move and plays the one that is worst for the opponent (wildbg's rule); equal results go
//! to the first in move-generation order, so the choice is deterministic.
//!
//! [`Evaluator::evaluate`], [`Net::best`] and [`Net::rank`] run the fast passes (sparse,
//! incremental first layers, AVX-512, AVX2+FMA or portable code chosen at run time,
//! [`isa_name`]), which agree with [`Net::evaluate_reference`] to float32 rounding.

mod fast;
pub mod file;
pub mod inputs;
pub mod mlp;
pub mod onnx;

use std::cell::RefCell;
use std::sync::Arc;

use bgfast_core::{MoveList, Position};
use rayon::prelude::*;

use crate::eval::{Evaluator, Probabilities};
use crate::playout::Policy;
use bgfast_core::rng::GameRng;
pub use fast::{isa_name, Scratch};
pub use inputs::{Inputs, Phase};
pub use mlp::{Activation, Dense, Head, Mlp, NetError};

/// A net: its encoding, a contact part and an optional race part.
///
/// Build it with [`Net::new`], which also compiles the parts for the fast passes.
#[derive(Clone)]
pub struct Net {
    inputs: Inputs,
    contact: Mlp,
    race: Option<Mlp>,
    /// The parts compiled for the fast passes (derived from the three fields above).
    fast: Arc<fast::FastNet>,
}

impl PartialEq for Net {
    fn eq(&self, other: &Net) -> bool {
        // The compiled parts follow from these.
        (self.inputs, &self.contact, &self.race) == (other.inputs, &other.contact, &other.race)
    }
}

impl core::fmt::Debug for Net {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Net")
            .field("inputs", &self.inputs)
            .field("contact", &self.contact)
            .field("race", &self.race)
            .finish_non_exhaustive()
    }
}

thread_local! {
    /// The scratch of the calls that bring none ([`Net::best`], [`Evaluator::evaluate`]...).
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::new());
}

/// Runs `f` with this thread's scratch, or a fresh one if a call on this thread holds it or
/// the thread is exiting: C code may evaluate from a thread-key destructor, which runs after
/// the thread's Rust thread-locals are destroyed (`with` would panic there).
fn with_scratch<T>(f: impl FnOnce(&mut Scratch) -> T) -> T {
    let mut f = Some(f);
    let kept = SCRATCH.try_with(|cell| {
        let mut scratch = cell.try_borrow_mut().ok()?;
        f.take().map(|f| f(&mut scratch))
    });
    match (kept, f) {
        (Ok(Some(value)), _) => value,
        (_, Some(f)) => f(&mut Scratch::new()),
        (_, None) => unreachable!("f ran exactly when it returned a value"),
    }
}

/// No input of either encoding exceeds this (a count of checkers).
const LARGEST_INPUT: f64 = 15.0;

/// Largest a layer's sums may grow: far below `f32::MAX`, so that no sum overflows to an
/// infinity (whose differences are NaN) in any evaluation pass.
const LARGEST_SUM: f64 = 1e30;

/// Refuses a part whose weights could make a sum overflow float32 on some position: each
/// layer's sums are at most its biases plus its weights' magnitudes times the largest
/// input, which a squashing activation brings back to 1.
fn bounded(part: &Mlp, phase: Phase) -> Result<(), NetError> {
    let mut largest_input = LARGEST_INPUT;
    for (k, layer) in part.layers().iter().enumerate() {
        let rows = layer.weights().chunks_exact(layer.inputs());
        let largest_sum = rows
            .zip(layer.bias())
            .map(|(row, &b)| {
                let weights: f64 = row.iter().map(|&w| f64::from(w).abs()).sum();
                f64::from(b).abs() + weights * largest_input
            })
            .fold(0.0, f64::max);
        if largest_sum > LARGEST_SUM {
            return Err(NetError::Parts(format!(
                "the {} net's layer {k} can sum to {largest_sum:.1e}, past the {LARGEST_SUM:.0e} \
                 float32 evaluation allows: its weights are too large",
                phase.name()
            )));
        }
        largest_input = match layer.activation() {
            Activation::Identity | Activation::Relu => largest_sum,
            Activation::Tanh
            | Activation::Sigmoid
            | Activation::HardSigmoid
            | Activation::Softmax => 1.0,
        };
    }
    Ok(())
}

/// Positions per unit of work in [`Net::evaluate_parallel`].
const PARALLEL_CHUNK: usize = 512;

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
        bounded(&contact, Phase::Contact)?;
        if let Some(race) = &race {
            check(race, Phase::Race)?;
            bounded(race, Phase::Race)?;
        }
        let fast = Arc::new(fast::FastNet::new(inputs, &contact, race.as_ref())?);
        Ok(Net {
            inputs,
            contact,
            race,
            fast,
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
    ///
    /// The order is by the opponent's equity in each result, lowest first (the key
    /// [`Net::best`] minimizes), so `rank(list)[0].0 == best(list)`.
    pub fn rank(&self, list: &MoveList) -> Vec<(usize, Probabilities)> {
        with_scratch(|scratch| {
            let scores = self.fast.score_results(list, scratch);
            let mut ranked: Vec<(usize, f32, Probabilities)> = scores
                .iter()
                .enumerate()
                .map(|(i, p)| (i, p.equity(), p.flipped()))
                .collect();
            // A stable sort keeps equal equities in list order.
            ranked.sort_by(|a, b| a.1.total_cmp(&b.1));
            ranked.into_iter().map(|(i, _, p)| (i, p)).collect()
        })
    }

    /// The index of the result that is worst for the opponent (the first of equals);
    /// `None` when `list` is empty (the game is over: no play to make).
    pub fn best(&self, list: &MoveList) -> Option<usize> {
        with_scratch(|scratch| self.best_with(list, scratch))
    }

    /// [`Net::best`] with the caller's scratch (no thread-local look-up).
    pub fn best_with(&self, list: &MoveList, scratch: &mut Scratch) -> Option<usize> {
        let mut best = None;
        let mut lowest = f32::INFINITY;
        for (i, p) in self.fast.score_results(list, scratch).iter().enumerate() {
            let e = p.equity();
            if best.is_none() || e < lowest {
                lowest = e;
                best = Some(i);
            }
        }
        best
    }

    /// The probabilities of every result of `list` for the side to move in that result
    /// (the opponent of the list's origin, about to roll), in list order, written over
    /// `out` (cleared first; it allocates only to grow). Finished games are exact. This is
    /// what [`Net::best`] and [`Net::rank`] rank, for callers that want the numbers.
    pub fn score_results(&self, list: &MoveList, out: &mut Vec<Probabilities>) {
        with_scratch(|scratch| {
            out.clear();
            out.extend_from_slice(self.fast.score_results(list, scratch));
        })
    }

    /// [`Net::score_results`] with the caller's scratch: the probabilities of every result of
    /// `list` for its side to move, in list order, borrowed from `scratch` until its next use.
    pub fn score_results_with<'s>(
        &self,
        list: &MoveList,
        scratch: &'s mut Scratch,
    ) -> &'s [Probabilities] {
        self.fast.score_results(list, scratch)
    }

    /// The probabilities of one position with the caller's scratch.
    pub fn evaluate_one_with(&self, pos: &Position, scratch: &mut Scratch) -> Probabilities {
        let mut out = [Probabilities::default()];
        self.fast
            .evaluate(core::slice::from_ref(pos), &mut out, scratch);
        out[0]
    }

    /// [`Evaluator::evaluate`] with the caller's scratch (no thread-local look-up).
    ///
    /// Panics if `out` is shorter than `positions`.
    pub fn evaluate_with(
        &self,
        positions: &[Position],
        out: &mut [Probabilities],
        scratch: &mut Scratch,
    ) {
        self.fast.evaluate(positions, out, scratch);
    }

    /// [`Evaluator::evaluate`] on `threads` threads of the process's shared pools
    /// ([`bgfast_core::threads`], never rayon's global pool); 1 (or a batch too small to
    /// split) runs on this thread. Each position's probabilities are the same for any
    /// thread count. If the pool cannot be had (more than
    /// [`bgfast_core::threads::MAX_THREADS`] included), it runs on this thread: the
    /// answer is the same.
    ///
    /// Panics if `out` is shorter than `positions`.
    pub fn evaluate_parallel(
        &self,
        positions: &[Position],
        out: &mut [Probabilities],
        threads: usize,
    ) {
        let out = &mut out[..positions.len()];
        if threads <= 1 || positions.len() <= PARALLEL_CHUNK {
            return self.evaluate(positions, out);
        }
        let work = |out: &mut [Probabilities]| {
            positions
                .par_chunks(PARALLEL_CHUNK)
                .zip(out.par_chunks_mut(PARALLEL_CHUNK))
                .for_each(|(p, o)| self.evaluate(p, o));
        };
        if bgfast_core::threads::install(threads, || work(out)).is_err() {
            self.evaluate(positions, out);
        }
    }
}

impl Evaluator for Net {
    fn evaluate(&self, positions: &[Position], out: &mut [Probabilities]) {
        with_scratch(|scratch| self.fast.evaluate(positions, out, scratch));
    }
}

/// A net as a checker-play policy: the play [`Net::best`] picks. It keeps its own
/// scratch, so playing allocates nothing after the first move.
#[derive(Clone, Debug)]
pub struct NetPolicy<'a> {
    net: &'a Net,
    scratch: Scratch,
}

impl<'a> NetPolicy<'a> {
    /// A player of `net`.
    pub fn new(net: &'a Net) -> NetPolicy<'a> {
        NetPolicy {
            net,
            scratch: Scratch::new(),
        }
    }
}

impl Policy for NetPolicy<'_> {
    fn choose(&mut self, list: &MoveList, _rng: &mut GameRng) -> usize {
        self.net
            .best_with(list, &mut self.scratch)
            .expect("a policy is asked to choose among two results or more")
    }
}
