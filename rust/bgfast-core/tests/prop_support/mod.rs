//! Generators shared by the property tests: valid positions come from the core's own move
//! generation (random playouts from the start), or from `Position::from_counts` with counts
//! in range (kept only when it accepts them), never from hand-made internals.

#![allow(dead_code)] // each test binary uses its own part

use bgfast_core::rng::GameRng;
use bgfast_core::{Dice, MoveList, Position};
use proptest::prelude::*;

/// The position after `plies` random legal plays from the start (fewer if the game ends).
pub fn playout(seed: u64, plies: usize) -> Position {
    let mut rng = GameRng::new(seed, 0);
    let mut position = Position::START;
    let mut list = MoveList::new();
    for _ in 0..plies {
        if position.outcome().is_some() {
            break;
        }
        position.generate_moves(rng.roll(), &mut list);
        position = list.result(rng.below(list.len() as u32) as usize);
    }
    position
}

/// Positions reached by random playouts: openings, middle games, races, bear-offs and
/// finished games.
pub fn played_position() -> impl Strategy<Value = Position> {
    (any::<u64>(), 0usize..160).prop_map(|(seed, plies)| playout(seed, plies))
}

/// Counts in range for both sides (each side at most 15, on free points), accepted by
/// `Position::from_counts`: shapes playouts rarely reach (many on the bar, odd bear-offs).
pub fn counted_position() -> impl Strategy<Value = Position> {
    (
        proptest::collection::vec(0usize..25, 0..=15),
        proptest::collection::vec(0usize..25, 0..=15),
    )
        .prop_filter_map("from_counts refused the counts", |(mine, theirs)| {
            let mut mover = [0i32; 25];
            let mut opponent = [0i32; 25];
            for slot in mine {
                mover[slot] += 1;
            }
            for slot in theirs {
                // The opponent's point p is the mover's 25 - p: skip points the mover holds
                // (the bar, slot 24, is never shared).
                if slot == 24 || mover[23 - slot] == 0 {
                    opponent[slot] += 1;
                }
            }
            Position::from_counts(&mover, &opponent).ok()
        })
}

/// Any valid position, from either generator.
pub fn position() -> impl Strategy<Value = Position> {
    prop_oneof![3 => played_position(), 1 => counted_position()]
}

/// Any of the 21 distinct rolls.
pub fn dice() -> impl Strategy<Value = Dice> {
    (0usize..21).prop_map(|i| Dice::ALL_21[i])
}
