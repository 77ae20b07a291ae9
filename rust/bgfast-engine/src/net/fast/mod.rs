//! The fast forward passes: SIMD chosen at run time, sparse and incremental first layers.
//!
//! **First layer.** Every input of both encodings is a function of one (side, point)
//! count or of one side's checkers off, so the first layer's pre-activation is its bias
//! plus, for each occupied slot, a few columns of the weight matrix: a wildbg slot with `n`
//! checkers adds column 0 (`n = 1`), column 1 (`n = 2`) or column 2 plus `n - 3` times
//! column 3 (`n >= 3`); a board slot adds `n` times its column; checkers off add `off`
//! times theirs. The weights are kept transposed, one contiguous column of the (padded)
//! hidden width per input, so a position costs a handful of column additions instead of a
//! dense product. A delta is one such addition: a column and its factor; a slot going from
//! `a` to `b` checkers gives at most four, read from a table built with the net ([`Trans`]).
//!
//! **Candidates.** The results of one roll, seen by the side that moves next, differ from
//! the roll's origin seen by that side in a few slots: the mover's checkers moved (and
//! borne off), blots hit onto the bar. [`kernels`] computes the origin's pre-activation
//! once and gives each result only its changed slots (old count out, new count in), one
//! step from the parent, never a chain, so rounding never accumulates. Results whose phase
//! picks the other part (contact to race) are computed in full; finished games are exact.
//!
//! **Batches.** One position's work is a chain of dependent steps (deltas, sums,
//! activation, head, softmax) that alone leaves most of a core idle, so positions and
//! results go in batches of [`BATCH`]: the deltas of the batch first, then its logits, then
//! its probabilities, each loop's iterations independent of each other.
//!
//! **The rest** is dense: the first layer's sums stay in registers for as many blocks as the
//! build holds ([`simd::Simd::GROUP`]: a wildbg contact layer in one pass with AVX-512), are
//! activated there and feed the head's dot products directly when the part has one hidden
//! layer. Deeper parts (wildbg's larger nets: 300, 250 and 200 units) write each position's
//! first layer into its row of the scratch and take the later layers over the batch, in
//! tiles of up to eight positions that share each load of a weight block (the weights
//! outgrow the first-level cache; one position at a time would stream them once each).
//! The head is five dot products reduced together (a softmax head's sixth logit is
//! subtracted from all six when the net is compiled), then a softmax or five sigmoids with
//! the vectorized `exp`. Activations use [`simd`]'s `tanh` (absolute error
//! below 4e-7) and logistic function. Sums run in another order than the reference's and
//! the SIMD builds fuse multiply-adds, so results agree with
//! [`super::Net::evaluate_reference`] to float32 rounding, not bit for bit; each build is
//! deterministic, and a position's result never depends on the batch, the thread or, in
//! `best` and `rank`, on the other candidates.
//!
//! **Builds.** AVX-512 when the CPU has AVX-512F (and AVX2 and FMA), else AVX2+FMA when it
//! has both, else the portable code; `BGFAST_ISA=baseline` holds the portable code (see
//! [`bgfast_core::isa`], whose choice [`build`] takes).

mod kernels;
mod simd;

use bgfast_core::{MoveList, Position};

use super::inputs::{Inputs, Phase};
use super::mlp::{try_filled, Activation, Dense, Head, Mlp, NetError};
use crate::eval::Probabilities;
use simd::{Block, LANES};

/// The deltas of one slot going from some count to another: up to four (column offset from
/// the slot's first column, factor) pairs, zero factors dropped, padded with zeros to four.
#[derive(Clone, Copy, Debug, Default)]
struct Step {
    off: [u32; 4],
    scale: [f32; 4],
    len: u32,
}

/// The [`Step`] of every change of a slot's count, `16 old + new` for `old` to `new`: an
/// array, not a vector, so that an index made of two nibbles needs no bounds check.
#[derive(Clone, Debug)]
struct Trans(Box<[Step; 256]>);

impl Trans {
    /// For a slot whose inputs are `inputs(n)` for `n` checkers, columns `stride` blocks
    /// apart.
    fn new<const K: usize>(stride: u32, inputs: impl Fn(u8) -> [f32; K]) -> Trans {
        let mut steps = Box::new([Step::default(); 256]);
        for old in 0..16u8 {
            for new in 0..16u8 {
                let step = &mut steps[16 * old as usize + new as usize];
                let (a, b) = (inputs(old), inputs(new));
                for k in 0..K {
                    let d = b[k] - a[k];
                    if d != 0.0 {
                        let n = step.len as usize;
                        step.off[n] = k as u32 * stride;
                        step.scale[n] = d;
                        step.len += 1;
                    }
                }
            }
        }
        Trans(steps)
    }
}

/// How one (side, point) count or one side's off count feeds the first layer.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Slot {
    /// Not an input (a point the race encoding leaves out).
    None,
    /// `n` times one column (the board encoding, checkers off); the column's first block.
    Linear(u32),
    /// wildbg's four units; the first block of the first of four consecutive columns.
    Units(u32),
}

/// Slots per side: index 0 the checkers off, 1..=24 the side's points, 25 its bar.
const SLOTS: usize = 26;

/// A part's first layer, transposed and padded to whole blocks.
#[derive(Clone, Debug)]
struct First {
    /// Blocks of the output (the padded width; padded lanes have zero weights and bias).
    blocks: usize,
    bias: Vec<Block>,
    /// Column `i` (input `i`) is `cols[i * blocks..(i + 1) * blocks]`.
    cols: Vec<Block>,
    activation: Activation,
    /// `[side][slot]`: side 0 the evaluated position's mover, 1 its opponent.
    slots: [[Slot; SLOTS]; 2],
    /// The deltas of a [`Slot::Units`] and of a [`Slot::Linear`] slot.
    units: Trans,
    linear: Trans,
}

/// A hidden layer after the first: weights by output block, then input.
#[derive(Clone, Debug)]
struct Hidden {
    inputs: usize,
    blocks: usize,
    bias: Vec<Block>,
    /// Output block `o`, input `i`: `weights[o * inputs + i]`.
    weights: Vec<Block>,
    activation: Activation,
}

/// The last layer as five rows (see [`Last::new`]): `rows[o * in_blocks + b]` is output
/// `o`'s weights on input block `b` (zero beyond the inputs).
#[derive(Clone, Debug)]
struct Last {
    in_blocks: usize,
    rows: Vec<Block>,
    bias: [f32; LANES],
}

/// One part (contact or race), compiled.
#[derive(Clone, Debug)]
struct Part {
    first: First,
    hidden: Vec<Hidden>,
    /// `None` when the first layer is the last one (its output is the head's input).
    last: Option<Last>,
    head: Head,
    /// The widest layer in blocks (scratch size).
    widest: usize,
}

/// A net compiled for the fast passes.
#[derive(Clone, Debug)]
pub(crate) struct FastNet {
    contact: Part,
    race: Option<Part>,
}

fn blocks_of(width: usize) -> usize {
    width.div_ceil(LANES)
}

impl First {
    fn new(
        layer: &Dense,
        activation: Activation,
        slots: [[Slot; SLOTS]; 2],
    ) -> Result<First, NetError> {
        let (inputs, outputs) = (layer.inputs(), layer.outputs());
        let blocks = blocks_of(outputs);
        let mut bias = try_filled(blocks, Block::default())?;
        let mut cols = try_filled(inputs * blocks, Block::default())?;
        for (o, row) in layer.weights().chunks_exact(inputs).enumerate() {
            bias[o / LANES].0[o % LANES] = layer.bias()[o];
            for (i, w) in row.iter().enumerate() {
                cols[i * blocks + o / LANES].0[o % LANES] = *w;
            }
        }
        // Slots hold the first block of their column.
        let slots = slots.map(|side| {
            side.map(|slot| match slot {
                Slot::None => Slot::None,
                Slot::Linear(i) => Slot::Linear(i * blocks as u32),
                Slot::Units(i) => Slot::Units(i * blocks as u32),
            })
        });
        let stride = blocks as u32;
        Ok(First {
            blocks,
            bias,
            cols,
            activation,
            slots,
            units: Trans::new(stride, |n| super::inputs::units(n.min(15))),
            linear: Trans::new(stride, |n| [n as f32]),
        })
    }
}

impl Hidden {
    fn new(layer: &Dense) -> Result<Hidden, NetError> {
        let (inputs, outputs) = (layer.inputs(), layer.outputs());
        let blocks = blocks_of(outputs);
        let mut bias = try_filled(blocks, Block::default())?;
        let mut weights = try_filled(blocks * inputs, Block::default())?;
        for (o, row) in layer.weights().chunks_exact(inputs).enumerate() {
            bias[o / LANES].0[o % LANES] = layer.bias()[o];
            for (i, w) in row.iter().enumerate() {
                weights[(o / LANES) * inputs + i].0[o % LANES] = *w;
            }
        }
        Ok(Hidden {
            inputs,
            blocks,
            bias,
            weights,
            activation: layer.activation(),
        })
    }
}

impl Last {
    /// A softmax over six outcomes is unchanged when one number is taken from all six
    /// logits: the sixth is taken from each, so that its row drops out and five dot
    /// products remain, as for gnubg's five sigmoids (the sixth logit is then 0).
    fn new(layer: &Dense, head: Head) -> Result<Last, NetError> {
        let (inputs, outputs) = (layer.inputs(), layer.outputs());
        let in_blocks = blocks_of(inputs);
        let weights: Vec<&[f32]> = layer.weights().chunks_exact(inputs).collect();
        let rebased = |o: usize, i: usize| match head {
            Head::Outcomes => weights[o][i] - weights[5][i],
            Head::Gnubg => weights[o][i],
        };
        let mut rows = try_filled(5 * in_blocks, Block::default())?;
        for o in 0..5 {
            for i in 0..inputs {
                rows[o * in_blocks + i / LANES].0[i % LANES] = rebased(o, i);
            }
        }
        let mut bias = [0.0; LANES];
        bias[..outputs].copy_from_slice(layer.bias());
        if head == Head::Outcomes {
            let sixth = bias[5];
            for b in &mut bias[..6] {
                *b -= sixth;
            }
        }
        Ok(Last {
            in_blocks,
            rows,
            bias,
        })
    }
}

/// The slots of an encoding for the part of `phase` (input indices, see `inputs.rs`).
fn slots(inputs: Inputs, phase: Phase) -> [[Slot; SLOTS]; 2] {
    let mut slots = [[Slot::None; SLOTS]; 2];
    match (inputs, phase) {
        (Inputs::Wildbg, Phase::Contact) => {
            slots[0][0] = Slot::Linear(0);
            slots[1][0] = Slot::Linear(1);
            slots[0][25] = Slot::Units(2);
            slots[1][25] = Slot::Units(102);
            for p in 1..=24u32 {
                slots[0][p as usize] = Slot::Units(6 + 4 * (p - 1));
                // The opponent's point q is the mover's 25 - q.
                let q = 25 - p;
                slots[1][q as usize] = Slot::Units(106 + 4 * (p - 1));
            }
        }
        (Inputs::Wildbg, Phase::Race) => {
            slots[0][0] = Slot::Linear(0);
            slots[1][0] = Slot::Linear(1);
            for p in 1..=23u32 {
                slots[0][p as usize] = Slot::Units(2 + 4 * (p - 1));
            }
            for p in 2..=24u32 {
                slots[1][25 - p as usize] = Slot::Units(94 + 4 * (p - 2));
            }
        }
        (Inputs::Board, _) => {
            for n in 1..=25u32 {
                slots[0][n as usize] = Slot::Linear(n - 1);
                slots[1][n as usize] = Slot::Linear(25 + n - 1);
            }
        }
    }
    slots
}

impl Part {
    fn new(mlp: &Mlp, inputs: Inputs, phase: Phase) -> Result<Part, NetError> {
        let layers = mlp.layers();
        let (first, rest) = layers.split_first().expect("an Mlp has a layer");
        let slots = slots(inputs, phase);
        let (first, hidden, last) = match rest.split_last() {
            // One layer: it is the head; its activation is the head's, applied at the end.
            None => (
                First::new(first, Activation::Identity, slots)?,
                vec![],
                None,
            ),
            Some((last, hidden)) => (
                First::new(first, first.activation(), slots)?,
                hidden.iter().map(Hidden::new).collect::<Result<_, _>>()?,
                Some(Last::new(last, mlp.head())?),
            ),
        };
        let widest = hidden
            .iter()
            .map(|h| h.blocks)
            .fold(first.blocks, usize::max);
        Ok(Part {
            first,
            hidden,
            last,
            head: mlp.head(),
            widest,
        })
    }
}

impl FastNet {
    /// Compiles the parts of a net (already checked against the encoding);
    /// [`NetError::OutOfMemory`] if there is no memory for the compiled weights.
    pub(crate) fn new(
        inputs: Inputs,
        contact: &Mlp,
        race: Option<&Mlp>,
    ) -> Result<FastNet, NetError> {
        Ok(FastNet {
            contact: Part::new(contact, inputs, Phase::Contact)?,
            race: race
                .map(|r| Part::new(r, inputs, Phase::Race))
                .transpose()?,
        })
    }

    /// The part that scores `pos` (as [`super::Net::part`]).
    #[inline(always)]
    fn part(&self, pos: &Position) -> &Part {
        match &self.race {
            Some(race) if pos.is_race() => race,
            _ => &self.contact,
        }
    }

    fn widest(&self) -> usize {
        self.race
            .as_ref()
            .map_or(0, |r| r.widest)
            .max(self.contact.widest)
    }
}

/// Positions or results whose deltas are written before any of their sums are taken (see
/// `kernels::finish_batch`).
const BATCH: usize = 16;
/// Most deltas one position or one result can need: every slot of both sides, four columns
/// each.
const MAX_DELTAS: usize = 2 * SLOTS * 4;
/// The length of the delta buffers: a power of two above a batch's deltas, so that writes
/// index with a mask instead of a bounds check (the mask never changes an index), and the
/// four entries a slot's write may reach past it.
const DELTA_MASK: usize = 4095;
const DELTA_BUFFER: usize = DELTA_MASK + 1 + 4;
const _: () = assert!(BATCH * MAX_DELTAS <= DELTA_MASK);

/// Reusable buffers for the fast passes: grown to a net's widths on first use, never
/// shrunk, so that evaluating and choosing plays allocates nothing after the first call.
/// One scratch serves any net.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    /// Two layers' outputs for a batch, ping-pong: [`BATCH`] rows of the widest layer.
    a: Vec<Block>,
    b: Vec<Block>,
    /// The pre-activation of a roll's origin, as the next mover sees it.
    parent: Vec<Block>,
    /// The deltas of a batch: columns (first blocks) and factors ([`DELTA_BUFFER`] each
    /// once fitted).
    cols: Vec<u32>,
    scales: Vec<f32>,
    /// One result's probabilities per result of a list.
    probs: Vec<Probabilities>,
}

impl Scratch {
    /// An empty scratch; it grows on first use.
    pub fn new() -> Scratch {
        Scratch::default()
    }

    fn fit(&mut self, net: &FastNet) {
        let widest = net.widest();
        for (buf, len) in [
            (&mut self.a, BATCH * widest),
            (&mut self.b, BATCH * widest),
            (&mut self.parent, widest),
        ] {
            if buf.len() < len {
                buf.resize(len, Block::default());
            }
        }
        self.cols.resize(DELTA_BUFFER, 0);
        self.scales.resize(DELTA_BUFFER, 0.0);
    }
}

/// The builds of the kernels, slowest first (off x86-64, the portable one alone).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Build {
    /// Plain arrays (SSE2 on x86-64).
    Portable,
    /// AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512F (with AVX2 and FMA).
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

/// Whether the CPU has the AVX-512 build's instructions.
#[cfg(target_arch = "x86_64")]
fn avx512_detected() -> bool {
    std::is_x86_feature_detected!("avx512f") && avx2_detected()
}

/// Whether the CPU has the AVX2+FMA build's instructions.
#[cfg(target_arch = "x86_64")]
fn avx2_detected() -> bool {
    std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
}

/// The build that runs: the best the CPU has, unless `BGFAST_ISA=baseline` (see
/// [`bgfast_core::isa`], whose choice this takes). Never one the CPU lacks, which the
/// `unsafe` dispatch to the kernels relies on.
#[inline(always)]
fn build() -> Build {
    #[cfg(target_arch = "x86_64")]
    {
        fn detect() -> u8 {
            if avx512_detected() {
                2
            } else {
                avx2_detected() as u8
            }
        }
        // The process's level is decided by the first caller of the public `net_level`,
        // with that caller's detection. Capping it by this CPU's own detection (cached: a
        // few loads) means no safe code elsewhere can make this run instructions the CPU
        // lacks.
        match bgfast_core::isa::net_level(detect).min(detect()) {
            0 => Build::Portable,
            1 => Build::Avx2,
            _ => Build::Avx512,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    Build::Portable
}

/// The net build that runs: `"AVX-512"`, `"AVX2+FMA"`, or `"x86-64 baseline"`
/// (`"portable"` off x86-64).
pub fn isa_name() -> &'static str {
    match build() {
        #[cfg(target_arch = "x86_64")]
        Build::Avx512 => "AVX-512",
        #[cfg(target_arch = "x86_64")]
        Build::Avx2 => "AVX2+FMA",
        Build::Portable if cfg!(target_arch = "x86_64") => "x86-64 baseline",
        Build::Portable => "portable",
    }
}

impl FastNet {
    /// Writes the probabilities of `positions[i]` into `out[i]`.
    pub(crate) fn evaluate(
        &self,
        positions: &[Position],
        out: &mut [Probabilities],
        scratch: &mut Scratch,
    ) {
        let out = &mut out[..positions.len()];
        scratch.fit(self);
        match build() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: build() detected AVX-512F, AVX2 and FMA.
            Build::Avx512 => unsafe { kernels::evaluate_avx512(self, positions, out, scratch) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: build() detected AVX2 and FMA.
            Build::Avx2 => unsafe { kernels::evaluate_avx2(self, positions, out, scratch) },
            _ => kernels::evaluate_portable(self, positions, out, scratch),
        }
    }

    /// The probabilities of every result of `list` for its side to move (the opponent of the
    /// list's origin), in list order, into `scratch`'s buffer; returns them.
    pub(crate) fn score_results<'s>(
        &self,
        list: &MoveList,
        scratch: &'s mut Scratch,
    ) -> &'s [Probabilities] {
        scratch.fit(self);
        let mut probs = core::mem::take(&mut scratch.probs);
        probs.clear();
        probs.resize(list.len(), Probabilities::default());
        self.score_into(list, &mut probs, scratch);
        scratch.probs = probs;
        &scratch.probs
    }

    fn score_into(&self, list: &MoveList, out: &mut [Probabilities], scratch: &mut Scratch) {
        match build() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: build() detected AVX-512F, AVX2 and FMA.
            Build::Avx512 => unsafe { kernels::score_avx512(self, list, out, scratch) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: build() detected AVX2 and FMA.
            Build::Avx2 => unsafe { kernels::score_avx2(self, list, out, scratch) },
            _ => kernels::score_portable(self, list, out, scratch),
        }
    }
}

#[cfg(test)]
mod tests {
    //! Every build this CPU has against the reference pass: `tests/net_fast.rs` checks the
    //! build the CPU chooses and the forced baseline, so on an AVX-512 machine the AVX2 build
    //! would otherwise go untested.

    use super::*;
    use crate::net::Net;
    use bgfast_core::rng::GameRng;

    type Evaluate = fn(&FastNet, &[Position], &mut [Probabilities], &mut Scratch);
    type Score = fn(&FastNet, &MoveList, &mut [Probabilities], &mut Scratch);

    /// The builds this CPU can run, by name.
    fn builds() -> Vec<(&'static str, Evaluate, Score)> {
        // Only x86-64 adds builds to the portable one.
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
        let mut builds: Vec<(&'static str, Evaluate, Score)> = vec![(
            "portable",
            kernels::evaluate_portable,
            kernels::score_portable,
        )];
        #[cfg(target_arch = "x86_64")]
        {
            if avx2_detected() {
                // SAFETY (both closures): AVX2 and FMA were just detected.
                builds.push((
                    "AVX2+FMA",
                    |n, p, o, s| unsafe { kernels::evaluate_avx2(n, p, o, s) },
                    |n, l, o, s| unsafe { kernels::score_avx2(n, l, o, s) },
                ));
            }
            if avx512_detected() {
                // SAFETY (both closures): AVX-512F, AVX2 and FMA were just detected.
                builds.push((
                    "AVX-512",
                    |n, p, o, s| unsafe { kernels::evaluate_avx512(n, p, o, s) },
                    |n, l, o, s| unsafe { kernels::score_avx512(n, l, o, s) },
                ));
            }
        }
        builds
    }

    /// Every position of `games` random games from the start.
    fn positions(games: u64) -> Vec<Position> {
        let mut list = MoveList::new();
        let mut out = Vec::new();
        for game in 0..games {
            let mut rng = GameRng::new(77, game);
            let mut pos = Position::START;
            while pos.outcome().is_none() {
                out.push(pos);
                pos.generate_moves(rng.roll(), &mut list);
                pos = list.result(rng.below(list.len() as u32) as usize);
            }
            out.push(pos);
        }
        out
    }

    /// A net of two tanh layers 200 and 37 wide (passes split unevenly in every build) and a
    /// race part of one layer, the head (so a batch of results mixes a deep part and a
    /// shallow one); pseudo-random weights.
    fn wide_net() -> Net {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        let mut layers = Vec::new();
        let shapes = [
            (202, 200, Activation::Tanh, 0.3),
            (200, 37, Activation::Tanh, 0.3),
            (37, 6, Activation::Softmax, 0.6),
        ];
        for (k, (inputs, outputs, activation, scale)) in shapes.into_iter().enumerate() {
            let weights = (0..inputs * outputs).map(|_| next() * scale).collect();
            let bias = (0..outputs).map(|_| next() * 0.2).collect();
            layers.push(Dense::new(k, inputs, outputs, weights, bias, activation).unwrap());
        }
        let race_weights = (0..186 * 6).map(|_| next() * 0.3).collect();
        let race_bias = (0..6).map(|_| next() * 0.2).collect();
        let race = Dense::new(0, 186, 6, race_weights, race_bias, Activation::Softmax).unwrap();
        let race = Mlp::new(vec![race]).unwrap();
        Net::new(Inputs::Wildbg, Mlp::new(layers).unwrap(), Some(race)).unwrap()
    }

    fn max_diff(a: &Probabilities, b: &Probabilities) -> f32 {
        let (a, b) = (a.to_array(), b.to_array());
        (0..5).map(|i| (a[i] - b[i]).abs()).fold(0.0, f32::max)
    }

    #[test]
    fn every_build_matches_the_reference() {
        let positions = positions(12);
        let mut list = MoveList::new();
        let nets = [
            ("wildbg", Net::wildbg().clone()),
            ("wildbg-large", Net::wildbg_large().clone()),
            ("wide", wide_net()),
        ];
        for (net_name, net) in nets {
            for (build, evaluate, score) in builds() {
                let mut scratch = Scratch::new();
                scratch.fit(&net.fast);
                let mut got = vec![Probabilities::default(); positions.len()];
                evaluate(&net.fast, &positions, &mut got, &mut scratch);
                for (pos, p) in positions.iter().zip(&got) {
                    let want = net.evaluate_reference(pos);
                    assert!(
                        max_diff(p, &want) <= 2e-6,
                        "{net_name} {build}: {p:?} {want:?}"
                    );
                }
                for (k, origin) in positions.iter().enumerate().step_by(5) {
                    if origin.outcome().is_some() {
                        continue;
                    }
                    origin.generate_moves(bgfast_core::Dice::ALL_21[k % 21], &mut list);
                    let mut got = vec![Probabilities::default(); list.len()];
                    score(&net.fast, &list, &mut got, &mut scratch);
                    for (i, p) in got.iter().enumerate() {
                        let want = net.evaluate_reference(&list.result(i));
                        assert!(
                            max_diff(p, &want) <= 2e-6,
                            "{net_name} {build}: {p:?} {want:?}"
                        );
                    }
                }
            }
        }
    }
}
