//! Doubles: every play as non-increasing source points in four nested loops (see the
//! module doc), keeping only the longest plays. The common cases run on masks alone.

use super::board::{bits, Scratch, BAR_BIT, HIT_KEYS, HOME_BITS, NIBBLES, STEPS};
use super::sink::{push_steps, Sink};

/// Sources no higher than `point` (doubles take non-increasing sources).
#[inline(always)]
fn up_to(point: u32) -> u32 {
    (2u32 << point) - 1
}

/// The key bit recording a hit by the checker moving from `from`, if `hit_from` has it:
/// bit `from` of `hit_from` moved up by `shift` within the key's high word.
#[inline(always)]
fn hit_bit(hit_from: u32, from: u32, shift: u32) -> u128 {
    (((hit_from & (1 << from)) as u64) << shift) as u128 * (1u128 << 64)
}

/// Doubles on masks alone, the same enumeration as [`generate_double`]. Without `BEAR_OFF`
/// at least four checkers are outside the home board (the bar counts), so that none can be
/// borne off this turn (each step brings at most one home) and a source only needs a checker
/// and an open landing point: the common case. `BAR_RULE` makes the bar the only source while
/// a checker is there (R12); `BEAR_OFF` adds R13 and R14 (never with a checker on the bar).
#[inline(always)]
pub(super) fn double_on_masks<S: Sink, const BAR_RULE: bool, const BEAR_OFF: bool>(
    sink: &mut S,
    start: &Scratch,
    blocked: u32,
    die: u32,
) {
    let (own, occupied, blots) = (start.own, start.occupied, start.blots);
    let steps = &STEPS[(die & 7) as usize];
    // Sources whose landing point is open (and on the board).
    let open = !(blocked << die) & (!0u32 << (die + 1));
    // The sources at a step, no higher than `limit` (the previous step's source); R12:
    // while a checker is on the bar, only the bar.
    let sources = |occupied: u32, limit: u32| {
        let mut movable = occupied & open & limit;
        if BAR_RULE && occupied & BAR_BIT != 0 {
            movable &= BAR_BIT;
        }
        // R13, R14 as in Scratch::movable.
        if BEAR_OFF && occupied & !HOME_BITS == 0 && occupied != 0 {
            movable |= occupied & (1 << die) & limit;
            let highest = 31 - occupied.leading_zeros();
            if highest < die {
                movable |= (1 << highest) & limit;
            }
        }
        movable
    };
    // The landing point's bit; bearing off lands on bit 0, which no mask keeps.
    let landing = |from: u32| {
        if BEAR_OFF {
            (1u32 << from.saturating_sub(die)) & !1
        } else {
            1 << (from - die)
        }
    };
    // Sources whose landing point holds a blot, and the shift from such a source's bit to
    // the key bit of the hit: key bit 103 + p (bit 39 + p of the high word) records a hit on
    // point p = source - die.
    let hit_from = blots << die;
    let hit_shift = 39 - die;
    let mut longest = 1;
    for f1 in bits(sources(occupied, !0)) {
        let key1 = (own - steps[(f1 & 31) as usize]) | hit_bit(hit_from, f1, hit_shift);
        let mut occ1 = occupied | landing(f1);
        if key1 & NIBBLES[(f1 & 31) as usize] == 0 {
            occ1 &= !(1 << f1);
        }
        let c1 = f1 << 4;
        let m2 = sources(occ1, up_to(f1));
        if m2 == 0 {
            if longest == 1 {
                sink.push(key1, c1 | 1);
            }
            continue;
        }
        if longest < 2 {
            sink.clear();
            longest = 2;
        }
        for f2 in bits(m2) {
            let key2 = (key1 - steps[(f2 & 31) as usize]) | hit_bit(hit_from, f2, hit_shift);
            let mut occ2 = occ1 | landing(f2);
            if key2 & NIBBLES[(f2 & 31) as usize] == 0 {
                occ2 &= !(1 << f2);
            }
            let c2 = c1 | (f2 << 9);
            let m3 = sources(occ2, up_to(f2));
            if m3 == 0 {
                if longest == 2 {
                    sink.push(key2, c2 | 2);
                }
                continue;
            }
            if longest < 3 {
                sink.clear();
                longest = 3;
            }
            // The third step from each source, those that hit nothing first (no hit bit).
            let mut third = |f3: u32, key3: u128| {
                let mut occ3 = occ2 | landing(f3);
                if key3 & NIBBLES[(f3 & 31) as usize] == 0 {
                    occ3 &= !(1 << f3);
                }
                let c3 = c2 | (f3 << 14);
                let m4 = sources(occ3, up_to(f3));
                if m4 == 0 {
                    if longest == 3 {
                        sink.push(key3, c3 | 3);
                    }
                    return;
                }
                if longest < 4 {
                    sink.clear();
                    longest = 4;
                }
                push_steps(sink, m4, key3, die, hit_from, |f4| c3 | 4 | (f4 << 19));
            };
            for f3 in bits(m3 & !hit_from) {
                third(f3, key2 - steps[(f3 & 31) as usize]);
            }
            for f3 in bits(m3 & hit_from) {
                third(
                    f3,
                    (key2 - steps[(f3 & 31) as usize]) | HIT_KEYS[((f3 - die) & 31) as usize],
                );
            }
        }
    }
}

/// Doubles as four nested loops over non-increasing sources (see the module doc), keeping only
/// the longest plays (R5, R8): the general case, with checkers on the bar or bear-offs.
pub(super) fn generate_double<S: Sink>(sink: &mut S, start: &Scratch, blocked: u32, die: u32) {
    let mut longest = 1;
    for f1 in bits(start.movable(die, blocked)) {
        let s1 = start.step(f1, die);
        let c1 = f1 << 4;
        let m2 = s1.movable(die, blocked) & up_to(f1);
        if m2 == 0 {
            if longest == 1 {
                sink.push(s1.key(), c1 | 1);
            }
            continue;
        }
        if longest < 2 {
            sink.clear();
            longest = 2;
        }
        for f2 in bits(m2) {
            let s2 = s1.step(f2, die);
            let c2 = c1 | (f2 << 9);
            let m3 = s2.movable(die, blocked) & up_to(f2);
            if m3 == 0 {
                if longest == 2 {
                    sink.push(s2.key(), c2 | 2);
                }
                continue;
            }
            if longest < 3 {
                sink.clear();
                longest = 3;
            }
            for f3 in bits(m3) {
                let s3 = s2.step(f3, die);
                let c3 = c2 | (f3 << 14);
                let m4 = s3.movable(die, blocked) & up_to(f3);
                if m4 == 0 {
                    if longest == 3 {
                        sink.push(s3.key(), c3 | 3);
                    }
                    continue;
                }
                if longest < 4 {
                    sink.clear();
                    longest = 4;
                }
                let hit_from = s3.blots << die;
                push_steps(sink, m4, s3.key(), die, hit_from, |f4| c3 | 4 | (f4 << 19));
            }
        }
    }
}
