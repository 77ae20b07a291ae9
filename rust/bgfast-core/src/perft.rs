//! Perft: leaves of the tree of distinct results, each of the 21 distinct rolls once a ply.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::dice::Dice;
use crate::movegen::{count_prepared, prepare, MoveList};
use crate::position::Position;

/// The deepest perft whose leaf count is known to fit a `u64`: the tree grows about 300
/// times a ply (the start has 116,154,993 leaves at depth 3), so depth 8 could overflow.
/// Depth 5 already takes hours.
pub const MAX_PERFT_DEPTH: u32 = 7;

/// Counts the leaves `depth` plies below `position`, taking each of the 21 distinct rolls
/// once per ply; a pass counts as one child, a finished game as a leaf. `depth` must be at
/// most [`MAX_PERFT_DEPTH`] (deeper counts may not fit; it panics on a deeper one).
pub fn perft(position: &Position, depth: u32) -> u64 {
    perft_cancellable(position, depth, &AtomicBool::new(false)).expect("never cancelled")
}

/// [`perft`] that gives up, returning `None`, soon after `cancel` is set (it is checked at
/// every node above the last two plies).
pub fn perft_cancellable(position: &Position, depth: u32, cancel: &AtomicBool) -> Option<u64> {
    assert!(
        depth <= MAX_PERFT_DEPTH,
        "perft depth {depth} is above {MAX_PERFT_DEPTH}"
    );
    // The last ply only counts (Position::count_moves), so it needs no list.
    let mut lists: Vec<MoveList> = (1..depth).map(|_| MoveList::new()).collect();
    perft_with(position, depth, &mut lists, cancel)
}

fn perft_with(
    position: &Position,
    depth: u32,
    lists: &mut [MoveList],
    cancel: &AtomicBool,
) -> Option<u64> {
    if depth == 0 || position.outcome().is_some() {
        return Some(1);
    }
    if depth == 1 {
        // Prepared once for the 21 rolls.
        let prepared = prepare(position);
        return Some(
            Dice::ALL_21
                .iter()
                .map(|&dice| count_prepared(&prepared, dice) as u64)
                .sum(),
        );
    }
    if depth > 2 && cancel.load(Ordering::Relaxed) {
        return None;
    }
    let (list, deeper) = lists
        .split_first_mut()
        .expect("one list per ply above the last");
    let mut total = 0;
    for dice in Dice::ALL_21 {
        position.generate_moves(dice, list);
        for i in 0..list.len() {
            total += perft_with(&list.result(i), depth - 1, deeper, cancel)?;
        }
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_depth_1_and_2() {
        assert_eq!(perft(&Position::START, 1), 447);
        assert_eq!(perft(&Position::START, 2), 202_782);
    }

    #[test]
    fn a_cancelled_perft_gives_up() {
        let cancelled = AtomicBool::new(true);
        assert_eq!(perft_cancellable(&Position::START, 5, &cancelled), None);
        // Shallow trees finish without looking at the flag.
        assert_eq!(
            perft_cancellable(&Position::START, 2, &cancelled),
            Some(202_782)
        );
    }
}
