//! Perft: leaves of the tree of distinct results, each of the 21 distinct rolls once a ply.

use crate::dice::Dice;
use crate::movegen::{count_prepared, prepare, MoveList};
use crate::position::Position;

/// Counts the leaves `depth` plies below `position`, taking each of the 21 distinct rolls
/// once per ply; a pass counts as one child, a finished game as a leaf.
pub fn perft(position: &Position, depth: u32) -> u64 {
    // The last ply only counts (Position::count_moves), so it needs no list.
    let mut lists: Vec<MoveList> = (1..depth).map(|_| MoveList::new()).collect();
    perft_with(position, depth, &mut lists)
}

fn perft_with(position: &Position, depth: u32, lists: &mut [MoveList]) -> u64 {
    if depth == 0 || position.outcome().is_some() {
        return 1;
    }
    if depth == 1 {
        // Prepared once for the 21 rolls.
        let prepared = prepare(position);
        return Dice::ALL_21
            .iter()
            .map(|&dice| count_prepared(&prepared, dice) as u64)
            .sum();
    }
    let (list, deeper) = lists
        .split_first_mut()
        .expect("one list per ply above the last");
    let mut total = 0;
    for dice in Dice::ALL_21 {
        position.generate_moves(dice, list);
        for i in 0..list.len() {
            total += perft_with(&list.result(i), depth - 1, deeper);
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_depth_1_and_2() {
        assert_eq!(perft(&Position::START, 1), 447);
        assert_eq!(perft(&Position::START, 2), 202_782);
    }
}
