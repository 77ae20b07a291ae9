//! The forward-pass kernels, written once against [`Simd`] and compiled into each build
//! through the `*_avx2` and `*_portable` entry points. Everything between an entry point and
//! the vector instructions is `#[inline(always)]`, so that it is compiled with the entry
//! point's target features.

use bgfast_core::{Checkers, MoveList, Position};

#[cfg(target_arch = "x86_64")]
use super::simd::Avx2;
use super::simd::{self, Block, Portable, Simd, LANES};
use super::{Delta, FastNet, First, Hidden, Last, Part, Scratch, Slot};
use crate::eval::Probabilities;
use crate::net::mlp::{Activation, Head};

/// Bit `4k` of every nibble `k`.
const LOW_NIBBLES: u128 = 0x1111_1111_1111_1111_1111_1111_1111_1111;

/// Bit `4k` set for every nonzero nibble `k` of `x`.
#[inline(always)]
fn nonzero_nibbles(x: u128) -> u128 {
    (x | x >> 1 | x >> 2 | x >> 3) & LOW_NIBBLES
}

/// Appends deltas to a buffer of [`super::MAX_DELTAS`].
struct Deltas<'a> {
    buf: &'a mut [Delta],
    n: usize,
    /// Blocks per column: wildbg's four columns of a slot are this far apart.
    stride: u32,
}

impl Deltas<'_> {
    #[inline(always)]
    fn push(&mut self, col: u32, scale: f32) {
        self.buf[self.n] = Delta { col, scale };
        self.n += 1;
    }

    /// `sign` times the units of `n` checkers on the slot whose first column is `col`.
    #[inline(always)]
    fn units(&mut self, col: u32, n: u8, sign: f32) {
        match n {
            0 => {}
            1 => self.push(col, sign),
            2 => self.push(col + self.stride, sign),
            _ => {
                self.push(col + 2 * self.stride, sign);
                if n > 3 {
                    self.push(col + 3 * self.stride, sign * (n - 3) as f32);
                }
            }
        }
    }

    /// A slot going from `old` to `new` checkers (`old != new`).
    #[inline(always)]
    fn change(&mut self, slot: Slot, old: u8, new: u8) {
        match slot {
            Slot::None => {}
            Slot::Linear(col) => self.push(col, new as f32 - old as f32),
            Slot::Units(col) if old >= 3 && new >= 3 => {
                self.push(col + 3 * self.stride, new as f32 - old as f32)
            }
            Slot::Units(col) => {
                self.units(col, old, -1.0);
                self.units(col, new, 1.0);
            }
        }
    }

    /// Every slot of one side, from nothing.
    #[inline(always)]
    fn side(&mut self, slots: &[Slot; super::SLOTS], side: Checkers) {
        let off = side.off();
        if off > 0 {
            self.change(slots[0], 0, off);
        }
        let bits = side.bits();
        let mut m = nonzero_nibbles(bits);
        while m != 0 {
            let k = m.trailing_zeros();
            self.change(slots[(k / 4) as usize], 0, ((bits >> k) & 0xF) as u8);
            m &= m - 1;
        }
    }

    /// The slots of one side that differ between `old` and `new`.
    #[inline(always)]
    fn side_change(&mut self, slots: &[Slot; super::SLOTS], old: Checkers, new: Checkers) {
        let (a, b) = (old.off(), new.off());
        if a != b {
            self.change(slots[0], a, b);
        }
        let (ob, nb) = (old.bits(), new.bits());
        let mut m = nonzero_nibbles(ob ^ nb);
        while m != 0 {
            let k = m.trailing_zeros();
            let (a, b) = (((ob >> k) & 0xF) as u8, ((nb >> k) & 0xF) as u8);
            self.change(slots[(k / 4) as usize], a, b);
            m &= m - 1;
        }
    }
}

/// The deltas of `pos` from the first layer's bias; returns how many.
#[inline(always)]
fn full(first: &First, pos: &Position, buf: &mut [Delta]) -> usize {
    let mut d = Deltas {
        buf,
        n: 0,
        stride: first.blocks as u32,
    };
    d.side(&first.slots[0], pos.mover());
    d.side(&first.slots[1], pos.opponent());
    d.n
}

/// The deltas from `parent` to `pos`; returns how many.
#[inline(always)]
fn change(first: &First, parent: &Position, pos: &Position, buf: &mut [Delta]) -> usize {
    let mut d = Deltas {
        buf,
        n: 0,
        stride: first.blocks as u32,
    };
    d.side_change(&first.slots[0], parent.mover(), pos.mover());
    d.side_change(&first.slots[1], parent.opponent(), pos.opponent());
    d.n
}

#[inline(always)]
fn activate<S: Simd>(s: S, activation: Activation, v: S::V) -> S::V {
    match activation {
        Activation::Tanh => simd::tanh(s, v),
        Activation::Sigmoid => simd::sigmoid(s, v),
        Activation::Relu => s.max(v, s.splat(0.0)),
        // Softmax is only ever a head, applied in `finish`.
        Activation::Identity | Activation::Softmax => v,
    }
}

/// Blocks of the first layer kept in registers while the deltas stream past.
const GROUP: usize = 4;

/// `out = f(base + sum of deltas)` on the first layer's blocks.
#[inline(always)]
fn first_layer<S: Simd>(
    s: S,
    first: &First,
    base: &[Block],
    deltas: &[Delta],
    activation: Activation,
    out: &mut [Block],
) {
    let blocks = first.blocks;
    let mut b = 0;
    while b + GROUP <= blocks {
        group::<S, GROUP>(s, &first.cols, base, deltas, activation, out, b);
        b += GROUP;
    }
    match blocks - b {
        1 => group::<S, 1>(s, &first.cols, base, deltas, activation, out, b),
        2 => group::<S, 2>(s, &first.cols, base, deltas, activation, out, b),
        3 => group::<S, 3>(s, &first.cols, base, deltas, activation, out, b),
        _ => {}
    }
}

/// [`first_layer`] on blocks `b0..b0 + G`.
#[inline(always)]
fn group<S: Simd, const G: usize>(
    s: S,
    cols: &[Block],
    base: &[Block],
    deltas: &[Delta],
    activation: Activation,
    out: &mut [Block],
    b0: usize,
) {
    let base = &base[b0..b0 + G];
    let mut acc: [S::V; G] = core::array::from_fn(|k| s.load(&base[k]));
    for d in deltas {
        let scale = s.splat(d.scale);
        let start = d.col as usize + b0;
        let col = &cols[start..start + G];
        for k in 0..G {
            acc[k] = s.fma(scale, s.load(&col[k]), acc[k]);
        }
    }
    let out = &mut out[b0..b0 + G];
    for k in 0..G {
        s.store(&mut out[k], activate(s, activation, acc[k]));
    }
}

/// The floats of `blocks`.
#[inline(always)]
fn flat(blocks: &[Block]) -> &[f32] {
    // SAFETY: `Block` is `repr(C)` around `[f32; LANES]` (alignment only adds to the start,
    // and 32 bytes hold eight floats exactly), so `blocks` is `blocks.len() * LANES`
    // initialized floats in a row, borrowed for the same lifetime.
    unsafe { core::slice::from_raw_parts(blocks.as_ptr().cast::<f32>(), blocks.len() * LANES) }
}

/// A hidden layer after the first: `out = f(W x + b)`.
#[inline(always)]
fn hidden<S: Simd>(s: S, layer: &Hidden, x: &[Block], out: &mut [Block]) {
    let x = &flat(x)[..layer.inputs];
    for (o, out) in out[..layer.blocks].iter_mut().enumerate() {
        let w = &layer.weights[o * layer.inputs..(o + 1) * layer.inputs];
        let zero = s.splat(0.0);
        let mut acc = [s.load(&layer.bias[o]), zero, zero, zero];
        let (x4, xr) = x.split_at(x.len() / 4 * 4);
        let (w4, wr) = w.split_at(x4.len());
        for (xs, ws) in x4.chunks_exact(4).zip(w4.chunks_exact(4)) {
            for k in 0..4 {
                acc[k] = s.fma(s.splat(xs[k]), s.load(&ws[k]), acc[k]);
            }
        }
        for (xi, wi) in xr.iter().zip(wr) {
            acc[0] = s.fma(s.splat(*xi), s.load(wi), acc[0]);
        }
        let sum = s.add(s.add(acc[0], acc[1]), s.add(acc[2], acc[3]));
        s.store(out, activate(s, layer.activation, sum));
    }
}

/// The last layer's `N` outputs (before the head's activation), the rest of the lanes 0.
#[inline(always)]
fn last<S: Simd, const N: usize>(s: S, layer: &Last, x: &[Block]) -> S::V {
    let ib = layer.in_blocks;
    let x = &x[..ib];
    let rows: [&[Block]; N] = core::array::from_fn(|o| &layer.rows[o * ib..(o + 1) * ib]);
    let zero = s.splat(0.0);
    let mut acc = [zero; N];
    for (b, xb) in x.iter().enumerate() {
        let xv = s.load(xb);
        for o in 0..N {
            acc[o] = s.fma(xv, s.load(&rows[o][b]), acc[o]);
        }
    }
    let mut all = [zero; 8];
    all[..N].copy_from_slice(&acc);
    s.add(s.reduce8(all), s.load(&Block(layer.bias)))
}

/// The head's activation on the last layer's outputs.
#[inline(always)]
fn finish<S: Simd>(s: S, head: Head, z: S::V) -> Probabilities {
    let mut out = Block::default();
    match head {
        Head::Outcomes => {
            let mut logits = Block::default();
            s.store(&mut logits, z);
            let max = logits.0[..6]
                .iter()
                .copied()
                .fold(f32::NEG_INFINITY, f32::max);
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
            Probabilities::from_array([p[0], p[1], p[2], p[3], p[4]])
        }
    }
}

/// The probabilities from the first layer's pre-activation `base + deltas`.
#[inline(always)]
fn forward<S: Simd>(
    s: S,
    part: &Part,
    base: &[Block],
    deltas: &[Delta],
    a: &mut [Block],
    b: &mut [Block],
) -> Probabilities {
    first_layer(s, &part.first, base, deltas, part.first.activation, a);
    let (mut x, mut y) = (a, b);
    for layer in &part.hidden {
        hidden(s, layer, x, y);
        core::mem::swap(&mut x, &mut y);
    }
    let z = match (&part.last, part.head) {
        (Some(last), Head::Outcomes) => self::last::<S, 6>(s, last, x),
        (Some(last), Head::Gnubg) => self::last::<S, 5>(s, last, x),
        (None, _) => s.load(&x[0]),
    };
    finish(s, part.head, z)
}

#[inline(always)]
fn evaluate<S: Simd>(
    s: S,
    net: &FastNet,
    positions: &[Position],
    out: &mut [Probabilities],
    scratch: &mut Scratch,
) {
    let Scratch { a, b, deltas, .. } = scratch;
    for (pos, o) in positions.iter().zip(out) {
        if let Some(p) = Probabilities::game_over(pos) {
            *o = p;
            continue;
        }
        let part = net.part(pos);
        let n = full(&part.first, pos, deltas);
        *o = forward(s, part, &part.first.bias, &deltas[..n], a, b);
    }
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
        deltas,
        ..
    } = scratch;
    // The origin as the next mover sees it: each result is this with the mover's checkers
    // moved and the blots it hit on the bar.
    let origin = list.origin().flipped();
    let origin_part = net.part(&origin);
    let n = full(&origin_part.first, &origin, deltas);
    let first = &origin_part.first;
    first_layer(
        s,
        first,
        &first.bias,
        &deltas[..n],
        Activation::Identity,
        parent,
    );
    for (i, o) in out[..list.len()].iter_mut().enumerate() {
        let pos = list.result(i);
        if let Some(p) = Probabilities::game_over(&pos) {
            *o = p;
            continue;
        }
        let part = net.part(&pos);
        *o = if core::ptr::eq(part, origin_part) {
            let n = change(&part.first, &origin, &pos, deltas);
            forward(s, part, parent, &deltas[..n], a, b)
        } else {
            // Contact broken by this play: the race part from scratch.
            let n = full(&part.first, &pos, deltas);
            forward(s, part, &part.first.bias, &deltas[..n], a, b)
        };
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
