//! Legal bear-off plays for one side alone.
//!
//! A dedicated home-board mover rather than the core `Position::generate_moves`: once both
//! sides are in their home boards (the only positions these tables describe) the opponent can
//! neither block nor be hit, so a side's plays depend on its six counts alone. Working on six
//! counts is simpler and several times faster than building full positions with an opponent
//! parked out of the way, and the database builders call it millions of times. The agreement
//! with the core generator is checked by a test in this module.
//!
//! Rules used: R14 (a die bears off from its own point, or from the highest point when the die
//! is higher than every occupied point; otherwise it moves a checker down inside the board),
//! R5 (doubles play four times), R8 (all dice must be played while checkers remain: with any
//! checker on the board every die has a legal use, so only running out of checkers stops a
//! turn early), R9 (is moot here for the same reason).

use super::index::{index_unchecked, HomeBoard, POINTS};

/// Appends to `out` the results of playing one die of `die` pips (1..=6) from `counts`:
/// every distinct legal single-checker move (R14). Nothing when no checker is left.
#[inline]
fn single_die(counts: &[u8; POINTS], die: usize, out: &mut Vec<[u8; POINTS]>) {
    let highest = match counts.iter().rposition(|&c| c > 0) {
        Some(h) => h + 1,
        None => return,
    };
    for p in 1..=highest {
        if counts[p - 1] == 0 {
            continue;
        }
        let mut next = *counts;
        next[p - 1] -= 1;
        if p > die {
            next[p - 1 - die] += 1;
        } else if p < die && p != highest {
            // R14: a higher die bears off only from the highest occupied point.
            continue;
        }
        out.push(next);
    }
}

/// The bear-off indexes of the results of playing one die of `die` pips (1..=6) from
/// `counts` (R14), in `out[..n]` where `n` is returned; 0 when no checker is left. Each
/// result is distinct (it moves a checker from a different point).
#[inline]
pub(crate) fn single_die_indexes(
    counts: &[u8; POINTS],
    die: usize,
    out: &mut [u32; POINTS],
) -> usize {
    let highest = match counts.iter().rposition(|&c| c > 0) {
        Some(h) => h + 1,
        None => return 0,
    };
    let mut n = 0;
    for p in 1..=highest {
        if counts[p - 1] == 0 || (p < die && p != highest) {
            continue;
        }
        let mut next = *counts;
        next[p - 1] -= 1;
        if p > die {
            next[p - 1 - die] += 1;
        }
        out[n] = index_unchecked(&next);
        n += 1;
    }
    n
}

/// Fills `out` with the bear-off indexes of every distinct position `board` can reach with
/// the roll `high`-`low` (pips 1..=6, either order), sorted ascending. A board with no
/// checker has no play and yields nothing. `scratch` is reused to avoid allocation.
pub fn children_indexes(
    board: HomeBoard,
    high: u8,
    low: u8,
    scratch: &mut [Vec<[u8; POINTS]>; 2],
    out: &mut Vec<u32>,
) {
    out.clear();
    let counts = board.counts();
    if counts == [0; POINTS] {
        return;
    }
    let [level, next] = scratch;
    if high == low {
        // R5: four moves of one die; dedupe after each to keep the frontier small.
        level.clear();
        level.push(counts);
        for _ in 0..4 {
            next.clear();
            for c in level.iter() {
                if *c == [0; POINTS] {
                    next.push(*c); // all off: the remaining dice are lost (R10)
                } else {
                    single_die(c, high as usize, next);
                }
            }
            next.sort_unstable();
            next.dedup();
            core::mem::swap(level, next);
        }
        out.extend(level.iter().map(index_unchecked));
    } else {
        for (first, second) in [(high, low), (low, high)] {
            level.clear();
            single_die(&counts, first as usize, level);
            for c in level.iter() {
                if *c == [0; POINTS] {
                    out.push(0);
                } else {
                    next.clear();
                    single_die(c, second as usize, next);
                    out.extend(next.iter().map(index_unchecked));
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
}

/// The 21 distinct rolls as (high, low, weight out of 36): non-doubles weigh 2, doubles 1.
pub const ROLLS: [(u8, u8, u8); 21] = {
    let mut all = [(0u8, 0u8, 0u8); 21];
    let mut i = 0;
    let mut high = 1;
    while high <= 6 {
        let mut low = 1;
        while low <= high {
            all[i] = (high, low, if high == low { 1 } else { 2 });
            i += 1;
            low += 1;
        }
        high += 1;
    }
    all
};

/// A scratch pair for [`children_indexes`].
pub fn new_scratch() -> [Vec<[u8; POINTS]>; 2] {
    [Vec::with_capacity(256), Vec::with_capacity(256)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bearoff::index::position_unchecked;
    use crate::{Dice, MoveList, Position};

    fn core_children(counts: [u8; POINTS], high: u8, low: u8) -> Vec<u32> {
        // The mover's checkers on 1..=6; the opponent's 15 on its own 1..=6 (the mover's
        // 19..=24), which can never interact with a bear-off.
        let mut mover = [0i32; 25];
        for (i, &c) in counts.iter().enumerate() {
            mover[i] = c as i32;
        }
        let mut opponent = [0i32; 25];
        opponent[5] = 15;
        let position = Position::from_counts(&mover, &opponent).unwrap();
        let mut list = MoveList::new();
        position.generate_moves(Dice::from_pips(high, low).unwrap(), &mut list);
        let mut out: Vec<u32> = list
            .iter()
            .map(|(_, result)| {
                // The result is seen from the opponent: its "opponent" is our side.
                let theirs = result.opponent().to_counts();
                let mut home = [0u8; POINTS];
                home.copy_from_slice(&theirs[..POINTS]);
                index_unchecked(&home)
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    #[test]
    fn agrees_with_the_core_move_generator() {
        let mut scratch = new_scratch();
        let mut out = Vec::new();
        // Every position of up to 6 checkers, and a stride through the rest.
        let picks = (1..924u32).chain((924..54_264).step_by(97));
        for i in picks {
            let counts = position_unchecked(i);
            for &(high, low, _) in ROLLS.iter() {
                children_indexes(
                    HomeBoard::new_unchecked(counts),
                    high,
                    low,
                    &mut scratch,
                    &mut out,
                );
                assert_eq!(
                    out,
                    core_children(counts, high, low),
                    "{counts:?} {high}-{low}"
                );
            }
        }
    }

    #[test]
    fn closed_forms() {
        let mut scratch = new_scratch();
        let mut out = Vec::new();
        // One checker on the ace: every roll bears it off.
        children_indexes(
            HomeBoard::new_unchecked([1, 0, 0, 0, 0, 0]),
            2,
            1,
            &mut scratch,
            &mut out,
        );
        assert_eq!(out, vec![0]);
        // R14, checkers on the 6- and 2-points, 6-5: the 6 bears off the 6-point checker and
        // the 5 then bears off the 2 (now the highest); or the 5 moves 6/1 and the 6 bears off
        // the 2. The 5 cannot bear off the 2 while the 6-point is occupied.
        children_indexes(
            HomeBoard::new_unchecked([0, 1, 0, 0, 0, 1]),
            6,
            5,
            &mut scratch,
            &mut out,
        );
        assert_eq!(out, vec![0, index_unchecked(&[1, 0, 0, 0, 0, 0])]);
    }
}
