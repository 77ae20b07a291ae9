//! The forward-pass kernels, written once against [`Simd`] and compiled into each build
//! through the `*_avx512`, `*_avx2` and `*_portable` entry points. Everything between an
//! entry point and the vector instructions is `#[inline(always)]`, so that it is compiled
//! with the entry point's target features. Generic helpers of the standard library that
//! take closures (`core::array::from_fn`, iterator adapters) are not, and would compile
//! vector code without the features (intrinsics become calls): the vector paths use plain
//! loops.

use bgfast_core::{Checkers, MoveList, Position};

use super::simd::{self, Block, Portable, Simd, LANES};
#[cfg(target_arch = "x86_64")]
use super::simd::{Avx2, Avx512};
use super::{
    FastNet, First, Hidden, Last, Part, Scratch, Slot, BATCH, DELTA_BUFFER, DELTA_MASK, SLOTS,
};
use crate::eval::Probabilities;
use crate::net::mlp::{Activation, Head};

/// Bit `4k` of every nibble `k` of a word.
const LOW_NIBBLES: u64 = 0x1111_1111_1111_1111;

/// Bit `4k` set for every nonzero nibble `k` of `x`.
#[inline(always)]
fn nonzero_nibbles(x: u64) -> u64 {
    (x | x >> 1 | x >> 2 | x >> 3) & LOW_NIBBLES
}

/// Deltas: columns (first blocks in [`First::cols`]) and their factors.
#[derive(Clone, Copy)]
struct Deltas<'a> {
    cols: &'a [u32],
    scales: &'a [f32],
}

/// Appends the deltas of a batch's positions to the scratch's buffers, one after another.
struct Writer<'a> {
    cols: &'a mut [u32; DELTA_BUFFER],
    scales: &'a mut [f32; DELTA_BUFFER],
    n: usize,
}

impl<'a> Writer<'a> {
    /// An empty writer over the scratch's buffers.
    #[inline(always)]
    fn new(cols: &'a mut [u32; DELTA_BUFFER], scales: &'a mut [f32; DELTA_BUFFER]) -> Writer<'a> {
        Writer { cols, scales, n: 0 }
    }

    /// A slot going from `old` to `new` checkers: its entry of the slot kind's table, four
    /// deltas written without a branch, the nonzero ones kept.
    #[inline(always)]
    fn change(&mut self, first: &First, slot: Slot, old: u8, new: u8) {
        let (col, table) = match slot {
            Slot::None => return,
            Slot::Linear(col) => (col, &first.linear),
            Slot::Units(col) => (col, &first.units),
        };
        let step = &table.0[16 * (old as usize & 15) + (new as usize & 15)];
        // The mask never changes n (at most BATCH * MAX_DELTAS) but proves the writes in
        // bounds.
        let n = self.n & DELTA_MASK;
        for k in 0..4 {
            self.cols[n + k] = col + step.off[k];
            self.scales[n + k] = step.scale[k];
        }
        self.n = n + step.len as usize;
    }

    /// Every slot of one side, from nothing.
    #[inline(always)]
    fn side(&mut self, first: &First, slots: &[Slot; SLOTS], side: Checkers) {
        let off = side.off();
        if off > 0 {
            self.change(first, slots[0], 0, off);
        }
        let bits = side.bits();
        for (half, word) in [(0, bits as u64), (16, (bits >> 64) as u64)] {
            let mut m = nonzero_nibbles(word);
            while m != 0 {
                let k = m.trailing_zeros();
                let n = ((word >> k) & 0xF) as u8;
                self.change(first, slots[half + (k / 4) as usize], 0, n);
                m &= m - 1;
            }
        }
    }

    /// The slots of one side that differ between `old` and `new`.
    #[inline(always)]
    fn side_change(&mut self, first: &First, slots: &[Slot; SLOTS], old: Checkers, new: Checkers) {
        let (a, b) = (old.off(), new.off());
        if a != b {
            self.change(first, slots[0], a, b);
        }
        let (ob, nb) = (old.bits(), new.bits());
        let halves = [
            (0, ob as u64, nb as u64),
            (16, (ob >> 64) as u64, (nb >> 64) as u64),
        ];
        for (half, o, n) in halves {
            let mut m = nonzero_nibbles(o ^ n);
            while m != 0 {
                let k = m.trailing_zeros();
                let (a, b) = (((o >> k) & 0xF) as u8, ((n >> k) & 0xF) as u8);
                self.change(first, slots[half + (k / 4) as usize], a, b);
                m &= m - 1;
            }
        }
    }

    /// The deltas of `pos` from the first layer's bias.
    #[inline(always)]
    fn position(&mut self, first: &First, pos: &Position) {
        self.side(first, &first.slots[0], pos.mover());
        self.side(first, &first.slots[1], pos.opponent());
    }

    /// The deltas from `parent` to `pos`.
    #[inline(always)]
    fn step(&mut self, first: &First, parent: &Position, pos: &Position) {
        self.side_change(first, &first.slots[0], parent.mover(), pos.mover());
        self.side_change(first, &first.slots[1], parent.opponent(), pos.opponent());
    }
}

/// The scratch's delta buffers as arrays, so that masked indices need no bounds checks.
#[inline(always)]
fn delta_buffers<'a>(
    cols: &'a mut [u32],
    scales: &'a mut [f32],
) -> (&'a mut [u32; DELTA_BUFFER], &'a mut [f32; DELTA_BUFFER]) {
    const FITTED: &str = "Scratch::fit sizes the delta buffers";
    (
        cols.first_chunk_mut().expect(FITTED),
        scales.first_chunk_mut().expect(FITTED),
    )
}

/// The deltas written from `start` to `end`.
#[inline(always)]
fn deltas<'a>(
    cols: &'a [u32; DELTA_BUFFER],
    scales: &'a [f32; DELTA_BUFFER],
    start: usize,
    end: usize,
) -> Deltas<'a> {
    Deltas {
        cols: &cols[start..end],
        scales: &scales[start..end],
    }
}

/// `f` applied to each of `v`, the activation chosen once for the group.
#[inline(always)]
fn activate<S: Simd, const G: usize>(s: S, activation: Activation, v: &mut [S::V; G]) {
    match activation {
        Activation::Tanh => {
            for x in v.iter_mut() {
                *x = simd::tanh(s, *x);
            }
        }
        Activation::Sigmoid => {
            for x in v.iter_mut() {
                *x = simd::sigmoid(s, *x);
            }
        }
        Activation::Relu => {
            for x in v.iter_mut() {
                *x = s.max(*x, s.splat(0.0));
            }
        }
        Activation::HardSigmoid => {
            let (alpha, half) = (s.splat(Activation::HARD_SIGMOID_ALPHA), s.splat(0.5));
            for x in v.iter_mut() {
                let y = s.fma(*x, alpha, half);
                *x = s.min(s.max(y, s.splat(0.0)), s.splat(1.0));
            }
        }
        // Softmax is only ever a head, applied in `finish`.
        Activation::Identity | Activation::Softmax => {}
    }
}

/// `base + deltas` on blocks `b0..b0 + G`: a delta costs one load and one multiply-add per
/// block.
#[inline(always)]
fn pre_activation<S: Simd, const G: usize>(
    s: S,
    cols: &[Block],
    base: &[Block],
    deltas: Deltas<'_>,
    b0: usize,
) -> [S::V; G] {
    let base = &base[b0..b0 + G];
    let zero = s.splat(0.0);
    let mut a0 = [zero; G];
    for k in 0..G {
        a0[k] = s.load(&base[k]);
    }
    let (dc, ds) = (deltas.cols, &deltas.scales[..deltas.cols.len()]);
    if G >= 4 {
        // Enough independent sums to keep the multiply-add units busy.
        for (&col, &scale) in dc.iter().zip(ds) {
            let start = col as usize + b0;
            let (c, f) = (&cols[start..start + G], s.splat(scale));
            for k in 0..G {
                a0[k] = s.fma(f, s.load(&c[k]), a0[k]);
            }
        }
        return a0;
    }
    // A short group would wait on each sum's previous multiply-add: a second set of partial
    // sums, fed every other delta, doubles the chains in flight.
    let mut a1 = [zero; G];
    let mut i = 0;
    while i + 2 <= dc.len() {
        let (start0, start1) = (dc[i] as usize + b0, dc[i + 1] as usize + b0);
        let (c0, c1) = (&cols[start0..start0 + G], &cols[start1..start1 + G]);
        let (s0, s1) = (s.splat(ds[i]), s.splat(ds[i + 1]));
        for k in 0..G {
            a0[k] = s.fma(s0, s.load(&c0[k]), a0[k]);
            a1[k] = s.fma(s1, s.load(&c1[k]), a1[k]);
        }
        i += 2;
    }
    if i < dc.len() {
        let start = dc[i] as usize + b0;
        let (c0, s0) = (&cols[start..start + G], s.splat(ds[i]));
        for k in 0..G {
            a0[k] = s.fma(s0, s.load(&c0[k]), a0[k]);
        }
    }
    for k in 0..G {
        a0[k] = s.add(a0[k], a1[k]);
    }
    a0
}

/// Runs `$body` with `$N` a constant equal to `$n`, one of the listed literals (values past
/// them run as the last): each size compiled with its own loop bounds and registers.
macro_rules! with_const {
    ($n:expr, $N:ident => $body:expr; $($k:literal)*; $last:literal) => {
        match $n {
            $($k => {
                const $N: usize = $k;
                $body
            })*
            _ => {
                const $N: usize = $last;
                $body
            }
        }
    };
}

/// Runs `$body` with `$G` a constant equal to `$g`, from 1 to 12 (larger values run as 12):
/// the group sizes a pass can have, each compiled with its sums in registers.
macro_rules! with_group_size {
    ($g:expr, $G:ident => $body:expr) => {
        with_const!($g, $G => $body; 1 2 3 4 5 6 7 8 9 10 11; 12)
    };
}

/// Runs `$body` with `$P` a constant equal to `$p`, the rows of a hidden layer's tile, from
/// 1 to 8.
macro_rules! with_tile_size {
    ($p:expr, $P:ident => $body:expr) => {
        with_const!($p, $P => $body; 1 2 3 4 5 6 7; 8)
    };
}

/// The blocks of a pass over a layer of `blocks` blocks (the last pass takes what is left):
/// the fewest passes of at most `S::GROUP` blocks. Wide groups split the layer evenly (13
/// blocks in a build of 12 as 7 and 6, not 12 and a pass that reads every delta again for
/// one block); narrow ones take `S::GROUP` a pass, without a division on the hot path.
#[inline(always)]
fn pass_blocks<S: Simd>(blocks: usize) -> usize {
    if blocks <= S::GROUP {
        blocks
    } else if S::GROUP < 8 {
        S::GROUP
    } else {
        blocks.div_ceil(blocks.div_ceil(S::GROUP))
    }
}

/// `out = f(base + sum of deltas)` on the first layer's blocks.
#[inline(always)]
fn first_layer<S: Simd>(
    s: S,
    first: &First,
    base: &[Block],
    deltas: Deltas<'_>,
    activation: Activation,
    out: &mut [Block],
) {
    let blocks = first.blocks;
    let size = pass_blocks::<S>(blocks);
    let mut b0 = 0;
    while b0 < blocks {
        let g = size.min(blocks - b0);
        // The minimum tells the compiler which sizes this build never reaches.
        with_group_size!(g.min(S::GROUP), G => {
            group::<S, G>(s, &first.cols, base, deltas, activation, out, b0)
        });
        b0 += g;
    }
}

/// [`first_layer`] on blocks `b0..b0 + G`.
#[inline(always)]
fn group<S: Simd, const G: usize>(
    s: S,
    cols: &[Block],
    base: &[Block],
    deltas: Deltas<'_>,
    activation: Activation,
    out: &mut [Block],
    b0: usize,
) {
    let mut sums = pre_activation::<S, G>(s, cols, base, deltas, b0);
    activate(s, activation, &mut sums);
    let out = &mut out[b0..b0 + G];
    for k in 0..G {
        s.store(&mut out[k], sums[k]);
    }
}

/// A part of one hidden layer (wildbg's): the first layer, its activation and the last
/// layer's `N` dot products in one pass over the hidden blocks, nothing stored between.
#[inline(always)]
fn fused<S: Simd, const N: usize>(
    s: S,
    first: &First,
    last: &Last,
    base: &[Block],
    deltas: Deltas<'_>,
) -> S::V {
    let blocks = first.blocks;
    let mut rows: [&[Block]; N] = [&[]; N];
    for (o, row) in rows.iter_mut().enumerate() {
        *row = &last.rows[o * blocks..(o + 1) * blocks];
    }
    let mut head = [s.acc_zero(); N];
    let size = pass_blocks::<S>(blocks);
    let mut b0 = 0;
    while b0 < blocks {
        let g = size.min(blocks - b0);
        // The minimum tells the compiler which sizes this build never reaches.
        with_group_size!(g.min(S::GROUP), G => {
            fused_group::<S, G, N>(s, first, &rows, base, deltas, b0, &mut head)
        });
        b0 += g;
    }
    let mut all = [s.acc_zero(); 8];
    all[..N].copy_from_slice(&head);
    s.add(s.reduce8(all), s.load(&Block(last.bias)))
}

/// [`fused`] on hidden blocks `b0..b0 + G`.
#[inline(always)]
fn fused_group<S: Simd, const G: usize, const N: usize>(
    s: S,
    first: &First,
    rows: &[&[Block]; N],
    base: &[Block],
    deltas: Deltas<'_>,
    b0: usize,
    head: &mut [S::Acc; N],
) {
    let mut h = pre_activation::<S, G>(s, &first.cols, base, deltas, b0);
    activate(s, first.activation, &mut h);
    for k in 0..G {
        for o in 0..N {
            head[o] = s.acc_fma(h[k], s.load(&rows[o][b0 + k]), head[o]);
        }
    }
}

/// The floats of `blocks`.
#[inline(always)]
fn flat(blocks: &[Block]) -> &[f32] {
    // SAFETY: `Block` is `repr(C)` around `[f32; LANES]` (alignment only adds to the start,
    // and 64 bytes hold sixteen floats exactly), so `blocks` is `blocks.len() * LANES`
    // initialized floats in a row, borrowed for the same lifetime.
    unsafe { core::slice::from_raw_parts(blocks.as_ptr().cast::<f32>(), blocks.len() * LANES) }
}

/// Most positions a hidden layer's tile multiplies by one load of each weight block: the
/// accumulators of the tile fill half the build's registers (eight blocks with AVX-512,
/// four with AVX2, whose block is two registers).
#[inline(always)]
fn tile_size<S: Simd>() -> usize {
    if S::GROUP >= 8 {
        8
    } else {
        4
    }
}

/// A hidden layer after the first, `y = f(W x + b)`, for the batch's rows `rows` (row `k`
/// of `x` and `y` is blocks `k * stride..`).
///
/// A layer's weights (300 by 250 floats in wildbg's larger nets) outgrow the first-level
/// cache, so the batch goes through in tiles of positions that share each weight load.
/// Every output block of a row is its bias plus the products of its inputs added in input
/// order, one chain per row, whatever the tile: a row's result never depends on the others.
#[inline(always)]
fn hidden<S: Simd>(
    s: S,
    layer: &Hidden,
    rows: &[usize],
    stride: usize,
    x: &[Block],
    y: &mut [Block],
) {
    let mut start = 0;
    while start < rows.len() {
        let n = (rows.len() - start).min(tile_size::<S>());
        let tile = &rows[start..start + n];
        // The minimum tells the compiler which sizes this build never reaches.
        with_tile_size!(n.min(tile_size::<S>()), P => {
            hidden_tile::<S, P>(s, layer, tile, stride, x, y)
        });
        start += n;
    }
}

/// [`hidden`] on the `P` rows of one tile.
#[inline(always)]
fn hidden_tile<S: Simd, const P: usize>(
    s: S,
    layer: &Hidden,
    rows: &[usize],
    stride: usize,
    x: &[Block],
    y: &mut [Block],
) {
    let n = layer.inputs;
    let mut inputs: [&[f32]; P] = [&[]; P];
    for p in 0..P {
        inputs[p] = &flat(&x[rows[p] * stride..(rows[p] + 1) * stride])[..n];
    }
    for o in 0..layer.blocks {
        let w = &layer.weights[o * n..(o + 1) * n];
        let mut acc = [s.load(&layer.bias[o]); P];
        for (i, w) in w.iter().enumerate() {
            let w = s.load(w);
            for p in 0..P {
                acc[p] = s.fma(s.splat(inputs[p][i]), w, acc[p]);
            }
        }
        activate(s, layer.activation, &mut acc);
        for p in 0..P {
            s.store(&mut y[rows[p] * stride + o], acc[p]);
        }
    }
}

/// The last layer's `N` outputs (before the head's activation), the rest of the lanes 0.
#[inline(always)]
fn last<S: Simd, const N: usize>(s: S, layer: &Last, x: &[Block]) -> S::V {
    let ib = layer.in_blocks;
    let x = &x[..ib];
    let mut rows: [&[Block]; N] = [&[]; N];
    for (o, row) in rows.iter_mut().enumerate() {
        *row = &layer.rows[o * ib..(o + 1) * ib];
    }
    let zero = s.acc_zero();
    // Two partial sums per output (even and odd blocks): twice the chains in flight.
    let (mut even, mut odd) = ([zero; N], [zero; N]);
    let mut b = 0;
    while b + 2 <= ib {
        let (x0, x1) = (s.load(&x[b]), s.load(&x[b + 1]));
        for o in 0..N {
            even[o] = s.acc_fma(x0, s.load(&rows[o][b]), even[o]);
            odd[o] = s.acc_fma(x1, s.load(&rows[o][b + 1]), odd[o]);
        }
        b += 2;
    }
    if b < ib {
        let x0 = s.load(&x[b]);
        for o in 0..N {
            even[o] = s.acc_fma(x0, s.load(&rows[o][b]), even[o]);
        }
    }
    let mut all = [zero; 8];
    for o in 0..N {
        all[o] = s.acc_add(even[o], odd[o]);
    }
    s.add(s.reduce8(all), s.load(&Block(layer.bias)))
}

/// The head's activation on the last layer's outputs.
#[inline(always)]
fn finish<S: Simd>(s: S, head: Head, z: S::V) -> Probabilities {
    let mut out = Block::default();
    match head {
        Head::Outcomes => {
            s.store(&mut out, z);
            let max = out.0[..6].iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let shifted = s.max(s.sub(z, s.splat(max)), s.splat(-87.0));
            let e = simd::exp(s, shifted);
            s.store(&mut out, e);
            let sum = out.0[..6].iter().sum::<f32>();
            s.store(&mut out, s.div(e, s.splat(sum)));
            let p = &out.0;
            Probabilities::from_outcomes([p[0], p[1], p[2], p[3], p[4], p[5]])
        }
        Head::Gnubg => {
            s.store(&mut out, simd::sigmoid(s, z));
            let p = &out.0;
            Probabilities::from_estimates([p[0], p[1], p[2], p[3], p[4]])
        }
    }
}

/// The last layer's outputs (before the head's activation) of a part with no hidden layer
/// after the first, from the first layer's pre-activation `base + deltas`.
#[inline(always)]
fn shallow_logits<S: Simd>(
    s: S,
    part: &Part,
    base: &[Block],
    deltas: Deltas<'_>,
    a: &mut [Block],
) -> S::V {
    // Both heads have five rows (see `Last::new`).
    match &part.last {
        Some(last) => fused::<S, 5>(s, &part.first, last, base, deltas),
        None => {
            first_layer(s, &part.first, base, deltas, Activation::Identity, a);
            s.load(&a[0])
        }
    }
}

/// One position of a batch: the part that scores it (`None` for a finished game, whose
/// exact probabilities are written already), whether its deltas start from the roll's
/// origin (else from the part's bias), and where they are in the scratch's buffers.
#[derive(Clone, Copy)]
struct Item<'n> {
    part: Option<&'n Part>,
    from_parent: bool,
    start: usize,
    end: usize,
}

impl Item<'_> {
    const FINISHED: Item<'static> = Item {
        part: None,
        from_parent: false,
        start: 0,
        end: 0,
    };
}

/// A batch's logits, then its probabilities into `out`, from the deltas its items name.
///
/// One position's work is a chain of dependent steps (deltas, sums, activation, head,
/// softmax) that alone leaves most of the core idle; done step by step over a batch, each
/// loop's iterations are independent and overlap.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn finish_batch<S: Simd>(
    s: S,
    items: &[Item<'_>],
    parent: &[Block],
    cols: &[u32; DELTA_BUFFER],
    scales: &[f32; DELTA_BUFFER],
    a: &mut [Block],
    b: &mut [Block],
    out: &mut [Probabilities],
) {
    let mut z = [Block::default(); BATCH];
    // Parts with hidden layers after the first go layer by layer over the whole batch
    // (their first layers into rows of `a`); the others one position at a time.
    let stride = a.len() / BATCH;
    let mut deep: [Option<&Part>; 2] = [None; 2];
    for (k, (item, z)) in items.iter().zip(&mut z).enumerate() {
        if let Some(part) = item.part {
            let base = if item.from_parent {
                parent
            } else {
                &part.first.bias
            };
            let deltas = deltas(cols, scales, item.start, item.end);
            // Each position its own row: a batch may hold both parts.
            let row = &mut a[k * stride..(k + 1) * stride];
            if part.hidden.is_empty() {
                s.store(z, shallow_logits(s, part, base, deltas, row));
            } else {
                first_layer(s, &part.first, base, deltas, part.first.activation, row);
                if !deep.iter().flatten().any(|d| core::ptr::eq(*d, part)) {
                    deep[usize::from(deep[0].is_some())] = Some(part);
                }
            }
        }
    }
    for part in deep.into_iter().flatten() {
        let mut rows = [0usize; BATCH];
        let mut n = 0;
        for (k, item) in items.iter().enumerate() {
            if item.part.is_some_and(|p| core::ptr::eq(p, part)) {
                rows[n] = k;
                n += 1;
            }
        }
        let rows = &rows[..n];
        let (mut x, mut y) = (&mut *a, &mut *b);
        for layer in &part.hidden {
            hidden(s, layer, rows, stride, x, y);
            core::mem::swap(&mut x, &mut y);
        }
        let last = part
            .last
            .as_ref()
            .expect("a part with hidden layers has a last layer");
        for &k in rows {
            s.store(
                &mut z[k],
                self::last::<S, 5>(s, last, &x[k * stride..(k + 1) * stride]),
            );
        }
    }
    for ((item, z), o) in items.iter().zip(&z).zip(out) {
        if let Some(part) = item.part {
            *o = finish(s, part.head, s.load(z));
        }
    }
}

#[inline(always)]
fn evaluate<S: Simd>(
    s: S,
    net: &FastNet,
    positions: &[Position],
    out: &mut [Probabilities],
    scratch: &mut Scratch,
) {
    let Scratch {
        a, b, cols, scales, ..
    } = scratch;
    let (cols, scales) = delta_buffers(cols, scales);
    for (positions, out) in positions.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
        let mut items = [Item::FINISHED; BATCH];
        let mut w = Writer::new(cols, scales);
        for ((pos, o), item) in positions.iter().zip(out.iter_mut()).zip(&mut items) {
            if let Some(p) = Probabilities::game_over(pos) {
                *o = p;
                continue;
            }
            let part = net.part(pos);
            let start = w.n;
            w.position(&part.first, pos);
            *item = Item {
                part: Some(part),
                from_parent: false,
                start,
                end: w.n,
            };
        }
        let items = &items[..positions.len()];
        finish_batch(s, items, &[], cols, scales, a, b, out);
    }
}

/// The highest point (bar 25) holding a checker of `side`, 0 for none.
#[inline(always)]
fn rearmost(side: Checkers) -> u32 {
    // Nibble p is point p; nibble 0 and the bits above the bar are zero.
    127u32.saturating_sub(side.bits().leading_zeros()) / 4
}

/// For a result of a roll from `origin` (seen by the side to move next, as the results
/// are): the rearmost point of the side that moved must be below this for the result to be
/// a race. The side to move keeps its rearmost checker (a blot hit only adds one on its
/// bar, further back) and contact is broken when the two have passed each other
/// (`Position::is_race`), so this is a necessary condition, which `Position::is_race`
/// then decides; it spares that test on most results.
#[inline(always)]
fn race_threshold(origin: &Position) -> u32 {
    25 - rearmost(origin.mover())
}

#[inline(always)]
fn score<S: Simd>(
    s: S,
    net: &FastNet,
    list: &MoveList,
    out: &mut [Probabilities],
    scratch: &mut Scratch,
) {
    let Scratch {
        a,
        b,
        parent,
        cols,
        scales,
        ..
    } = scratch;
    let (cols, scales) = delta_buffers(cols, scales);
    // The origin as the next mover sees it: each result is this with the mover's checkers
    // moved and the blots it hit on the bar.
    let origin = list.origin().flipped();
    let origin_part = net.part(&origin);
    // Only a contact origin of a net with a race part can lead to the other part, and only
    // by a play that takes the mover's rearmost checker past the other side's.
    let may_switch = net.race.is_some() && core::ptr::eq(origin_part, &net.contact);
    let race_before = race_threshold(&origin);
    // A roll moves at most four checkers: only then can the mover bear off its last one.
    let may_finish = origin.opponent().on_board() <= 4;
    let first = &origin_part.first;
    let mut w = Writer::new(cols, scales);
    w.position(first, &origin);
    let written = w.n;
    let origin_deltas = deltas(cols, scales, 0, written);
    first_layer(
        s,
        first,
        &first.bias,
        origin_deltas,
        Activation::Identity,
        parent,
    );
    let out = &mut out[..list.len()];
    for (k, out) in out.chunks_mut(BATCH).enumerate() {
        let mut items = [Item::FINISHED; BATCH];
        let mut w = Writer::new(cols, scales);
        for (j, (o, item)) in out.iter_mut().zip(&mut items).enumerate() {
            let pos = list.result(k * BATCH + j);
            if may_finish {
                if let Some(p) = Probabilities::game_over(&pos) {
                    *o = p;
                    continue;
                }
            }
            let part = if may_switch && rearmost(pos.opponent()) < race_before {
                net.part(&pos)
            } else {
                origin_part
            };
            let start = w.n;
            // A result in the origin's part is one step from it; one whose play broke
            // contact is scored by the race part from scratch.
            let from_parent = core::ptr::eq(part, origin_part);
            if from_parent {
                w.step(&part.first, &origin, &pos);
            } else {
                w.position(&part.first, &pos);
            }
            *item = Item {
                part: Some(part),
                from_parent,
                start,
                end: w.n,
            };
        }
        let items = &items[..out.len()];
        finish_batch(s, items, parent, cols, scales, a, b, out);
    }
}

/// [`evaluate`] in the portable build.
pub(super) fn evaluate_portable(
    net: &FastNet,
    positions: &[Position],
    out: &mut [Probabilities],
    scratch: &mut Scratch,
) {
    evaluate(Portable, net, positions, out, scratch)
}

/// [`score`] in the portable build.
pub(super) fn score_portable(
    net: &FastNet,
    list: &MoveList,
    out: &mut [Probabilities],
    scratch: &mut Scratch,
) {
    score(Portable, net, list, out, scratch)
}

/// [`evaluate`] in the AVX2+FMA build.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,fma")]
pub(super) unsafe fn evaluate_avx2(
    net: &FastNet,
    positions: &[Position],
    out: &mut [Probabilities],
    scratch: &mut Scratch,
) {
    // SAFETY: the caller guarantees AVX2 and FMA.
    let s = unsafe { Avx2::new_unchecked() };
    evaluate(s, net, positions, out, scratch)
}

/// [`score`] in the AVX2+FMA build.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,fma")]
pub(super) unsafe fn score_avx2(
    net: &FastNet,
    list: &MoveList,
    out: &mut [Probabilities],
    scratch: &mut Scratch,
) {
    // SAFETY: the caller guarantees AVX2 and FMA.
    let s = unsafe { Avx2::new_unchecked() };
    score(s, net, list, out, scratch)
}

/// [`evaluate`] in the AVX-512 build.
///
/// # Safety
/// The CPU must have AVX-512F, AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,fma,avx512f")]
pub(super) unsafe fn evaluate_avx512(
    net: &FastNet,
    positions: &[Position],
    out: &mut [Probabilities],
    scratch: &mut Scratch,
) {
    // SAFETY: the caller guarantees AVX-512F, AVX2 and FMA.
    let s = unsafe { Avx512::new_unchecked() };
    evaluate(s, net, positions, out, scratch)
}

/// [`score`] in the AVX-512 build.
///
/// # Safety
/// The CPU must have AVX-512F, AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,fma,avx512f")]
pub(super) unsafe fn score_avx512(
    net: &FastNet,
    list: &MoveList,
    out: &mut [Probabilities],
    scratch: &mut Scratch,
) {
    // SAFETY: the caller guarantees AVX-512F, AVX2 and FMA.
    let s = unsafe { Avx512::new_unchecked() };
    score(s, net, list, out, scratch)
}
