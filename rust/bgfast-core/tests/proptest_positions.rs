//! Property tests of position validation (R1, R6, R12, R15) over arbitrary counts: no input
//! panics, every accepted input is the position it describes, count for count, and the byte
//! path agrees with the general one.

mod prop_support;

use bgfast_core::{Dice, MoveList, Position, Violation};
use prop_support::played_position;
use proptest::prelude::*;

/// Counts near the rules' edges (mostly 0..=3, now and then anything an i64 holds).
fn count() -> impl Strategy<Value = i64> {
    prop_oneof![
        8 => 0i64..=3,
        2 => 0i64..=16,
        1 => any::<i64>(),
        1 => prop_oneof![Just(i64::MAX), Just(i64::MIN), Just(1 << 32), Just((1 << 31) - 1)],
    ]
}

fn side() -> impl Strategy<Value = [i64; 25]> {
    proptest::array::uniform25(count())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_counts_never_panic_and_accepted_ones_round_trip(
        mover in side(),
        opponent in side(),
    ) {
        match Position::from_counts(&mover, &opponent) {
            Ok(p) => {
                let [m, o] = p.to_counts();
                prop_assert_eq!(m.map(i64::from), mover);
                prop_assert_eq!(o.map(i64::from), opponent);
            }
            Err(e) => {
                prop_assert!(!e.violations.is_empty());
                // A negative count is always named, with its value.
                for (i, &c) in mover.iter().enumerate().filter(|(_, &c)| c < 0) {
                    let named = e.violations.iter().any(|v| matches!(v,
                        Violation::NegativeCount { point, count, .. }
                            if usize::from(*point) == i + 1 && *count == i128::from(c)));
                    prop_assert!(named, "{e}");
                }
                prop_assert!(!e.to_string().is_empty());
            }
        }
    }

    #[test]
    fn the_byte_path_agrees_with_the_general_one(
        mover in proptest::array::uniform25(0u8..=17),
        opponent in proptest::array::uniform25(0u8..=17),
    ) {
        prop_assert_eq!(
            Position::from_count_bytes(&mover, &opponent),
            Position::from_counts(&mover, &opponent)
        );
    }

    #[test]
    fn every_position_play_reaches_is_valid(pos in played_position()) {
        // No result of a legal move breaks a rule the validation checks (R12's both-barred
        // case included: no game reaches it).
        let [m, o] = pos.to_counts();
        prop_assert_eq!(Position::from_count_bytes(&m, &o), Ok(pos));
        let mut list = MoveList::new();
        if pos.outcome().is_none() {
            for dice in Dice::ALL_21 {
                pos.generate_moves(dice, &mut list);
                for result in list.results() {
                    let [m, o] = result.to_counts();
                    prop_assert_eq!(Position::from_counts(&m, &o), Ok(result));
                }
            }
        }
    }
}
