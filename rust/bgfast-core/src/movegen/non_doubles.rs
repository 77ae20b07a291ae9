//! Non-doubles, built constructively in the canonical forms of the module doc: two checkers
//! or one checker moving both dice, with nothing on the bar, one checker on the bar, or a
//! bear-off possible; and the plays of one die when no play uses both (R9).

use super::board::{bits, hit_key, step_delta, Scratch, BAR_BIT, HOME_BITS};
use super::list::{code2, LOW_FIRST};
use super::sink::{push_steps, Sink};
use crate::checkers::{Checkers, BAR};

/// R8 with no checker on the bar and no bear-off: the canonical forms of the module doc.
#[inline(always)]
pub(super) fn both_dice_free<S: Sink>(
    sink: &mut S,
    start: &Scratch,
    blocked: u32,
    two_or_more: u32,
    a: u32,
    b: u32,
) {
    let (own, occupied, blots) = (start.own, start.occupied, start.blots);
    let movable_a = occupied & !(blocked << a) & (!0u32 << (a + 1));
    let movable_b = occupied & !(blocked << b) & (!0u32 << (b + 1));
    let hit_from_b = blots << b;
    // Two checkers: x moves a, y moves b.
    for x in bits(movable_a) {
        let xa = x - a;
        let after_x = (own - step_delta(x, a)) | hit_key(blots & (1 << xa));
        // Not from x - a or onto x (one checker moving twice); from x only if two are there.
        let ys = movable_b & !(1 << xa) & !(1 << (x + b)) & (!(1 << x) | two_or_more);
        push_steps(sink, ys, after_x, b, hit_from_b, |y| code2(x, y, false));
    }
    // One checker moves a + b.
    let ab = a + b;
    let zs = (movable_a | movable_b) & !(blocked << ab) & (!0u32 << (ab + 1));
    for z in bits(zs) {
        let moved =
            (own - step_delta(z, a) - step_delta(z - a, b)) | hit_key(blots & (1 << (z - ab)));
        chain(sink, moved, z, movable_a, movable_b, blots, a, b);
    }
}

/// The one or two results of one checker moving from `z` through `z - a` or `z - b`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn chain<S: Sink>(
    sink: &mut S,
    moved: u128,
    z: u32,
    movable_a: u32,
    movable_b: u32,
    blots: u32,
    a: u32,
    b: u32,
) {
    let via_a = movable_a & (1 << z) != 0;
    let hit_a = blots & (1 << (z - a));
    let hit_b = blots & (1 << (z - b));
    if via_a {
        sink.push(moved | hit_key(hit_a), code2(z, z - a, false));
    }
    // Through z - b: a new result unless the route through z - a hit nothing on the way too.
    if movable_b & (1 << z) != 0 && !(via_a && hit_a == 0 && hit_b == 0) {
        sink.push(moved | hit_key(hit_b), code2(z, z - b, true));
    }
}

/// R8 with exactly one checker on the bar (R12: it enters first); no bear-off is possible.
#[inline(always)]
pub(super) fn both_dice_one_on_bar<S: Sink>(
    sink: &mut S,
    start: &Scratch,
    blocked: u32,
    a: u32,
    b: u32,
) {
    let bar = BAR as u32;
    let (own, blots) = (start.own, start.blots);
    let board = start.occupied & !BAR_BIT;
    let (ea, eb) = (bar - a, bar - b);
    let open_a = if blocked & (1 << ea) == 0 {
        1u32 << bar
    } else {
        0
    };
    let open_b = if blocked & (1 << eb) == 0 {
        1u32 << bar
    } else {
        0
    };
    // Two checkers: the entering one and one already on the board.
    for (second, entry, open, low_first) in [(b, ea, open_a, false), (a, eb, open_b, true)] {
        if open == 0 {
            continue;
        }
        let after = (own - step_delta(bar, bar - entry)) | hit_key(blots & (1 << entry));
        let ys = board & !(blocked << second) & (!0u32 << (second + 1)) & !(1 << entry);
        push_steps(sink, ys, after, second, blots << second, |y| {
            code2(bar, y, low_first)
        });
    }
    // The entering checker moves on with the other die.
    let fin = bar - a - b;
    if blocked & (1 << fin) == 0 && (open_a | open_b) != 0 {
        let moved =
            (own - step_delta(bar, a) - step_delta(bar - a, b)) | hit_key(blots & (1 << fin));
        chain(sink, moved, bar, open_a, open_b, blots, a, b);
    }
}

/// R9: no play uses both dice; the higher die if it can move, else the lower. Distinct
/// sources give distinct results, so no deduplication is needed.
#[inline(always)]
pub(super) fn one_die<S: Sink>(sink: &mut S, start: &Scratch, blocked: u32, high: u32, low: u32) {
    for (die, flag) in [(high, 0), (low, LOW_FIRST)] {
        let sources = start.movable(die, blocked);
        push_steps(sink, sources, start.key(), die, start.blots << die, |f| {
            1 | flag | (f << 4)
        });
        if sources != 0 {
            return;
        }
    }
}

/// R8 for a non-double when a bear-off is possible (at most one checker outside home, none
/// on the bar). The canonical forms of the module doc still list every result, but which
/// single moves are legal now depends on the order (R14: a higher die bears off only the
/// rearmost checker), so each form is checked in both orders through the general
/// [`Scratch::movable`], and a bear-off adds one coincidence: two checkers borne off by
/// `a` and `b` either way round leave the same board.
#[inline(always)]
pub(super) fn both_dice_bear_off<S: Sink>(
    sink: &mut S,
    start: &Scratch,
    blocked: u32,
    a: u32,
    b: u32,
) {
    let movable_a = start.movable(a, blocked);
    let movable_b = start.movable(b, blocked);
    // Points left empty when one checker leaves them.
    let singles = start.occupied & !Checkers::from_bits_unchecked(start.own).made().bits();
    // The sources that can move `second` once a checker has moved `first` from `from`
    // (Scratch::step then Scratch::movable, on the masks alone: no bar here).
    let movable_after = |from: u32, first: u32, second: u32| {
        let mut occupied = start.occupied & !(singles & (1 << from));
        if from > first {
            occupied |= 1 << (from - first);
        }
        let mut movable = occupied & !(blocked << second) & (!0u32 << (second + 1));
        if occupied & !HOME_BITS == 0 && occupied != 0 {
            movable |= occupied & (1 << second);
            let highest = 31 - occupied.leading_zeros();
            if highest < second {
                movable |= 1 << highest;
            }
        }
        movable
    };
    // b_after_a[x]: the sources that can move b once a checker has moved a from x; and the
    // other way round. Sources are home points or the one point outside, which gets slot 7.
    let slot = |p: u32| p.min(7) as usize;
    let mut b_after_a = [0u32; 8];
    let mut a_after_b = [0u32; 8];
    for x in bits(movable_a) {
        b_after_a[slot(x)] = movable_after(x, a, b);
    }
    for y in bits(movable_b) {
        a_after_b[slot(y)] = movable_after(y, b, a);
    }
    let a_then_b = |x: u32, y: u32| movable_a & (1 << x) != 0 && b_after_a[slot(x)] & (1 << y) != 0;
    let b_then_a = |x: u32, y: u32| movable_b & (1 << y) != 0 && a_after_b[slot(y)] & (1 << x) != 0;
    // x bears off with a and y with b; the same board as y with a and x with b, listed once:
    // from the pair whose a-checker stands higher.
    let repeated_bear_off =
        |x: u32, y: u32| x <= b && y <= b && x < y && (a_then_b(y, x) || b_then_a(y, x));
    let key = |x: u32, y: u32| {
        let landing = |p: u32, d: u32| {
            if p > d {
                start.blots & (1 << (p - d))
            } else {
                0
            }
        };
        (start.own - step_delta(x, a) - step_delta(y, b)) | hit_key(landing(x, a) | landing(y, b))
    };
    // Two checkers, x moving a and y moving b; a second step from the first one's landing
    // point or onto its starting point is one checker moving twice (below).
    for x in bits(movable_a) {
        let landed = if x > a { 1 << (x - a) } else { 0 };
        let ys = b_after_a[slot(x)] & !landed & !(1 << (x + b));
        for y in bits(ys) {
            if !repeated_bear_off(x, y) {
                sink.push(key(x, y), code2(x, y, false));
            }
        }
    }
    for y in bits(movable_b) {
        let landed = if y > b { 1 << (y - b) } else { 0 };
        let xs = a_after_b[slot(y)] & !landed & !(1 << (y + a));
        for x in bits(xs) {
            if !a_then_b(x, y) && !repeated_bear_off(x, y) {
                sink.push(key(x, y), code2(y, x, true));
            }
        }
    }
    // One checker moves a + b, through z - a or z - b (and may bear off at the end).
    for z in bits((movable_a | movable_b) & !0u32 << (b + 1)) {
        let via_a = z > a && a_then_b(z, z - a);
        let via_b = b_then_a(z - b, z);
        if !(via_a || via_b) {
            continue;
        }
        let end = z.saturating_sub(a + b);
        let board = if via_a {
            start.own - step_delta(z, a) - step_delta(z - a, b)
        } else {
            start.own - step_delta(z, b) - step_delta(z - b, a)
        };
        let hit_end = if end > 0 { start.blots & (1 << end) } else { 0 };
        let hit_a = if via_a {
            start.blots & (1 << (z - a))
        } else {
            0
        };
        let hit_b = start.blots & (1 << (z - b));
        if via_a {
            sink.push(board | hit_key(hit_end | hit_a), code2(z, z - a, false));
        }
        if via_b && !(via_a && hit_a == 0 && hit_b == 0) {
            sink.push(board | hit_key(hit_end | hit_b), code2(z, z - b, true));
        }
    }
}
