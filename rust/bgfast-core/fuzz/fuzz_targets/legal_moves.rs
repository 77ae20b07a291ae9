//! Every generated move is legal: for a valid position and a roll, each listed move is a
//! sequence of lawful single-die steps (checked by a rule checker written apart from the
//! generator) that leaves exactly the listed result; results are distinct; every move plays
//! the most dice that can be played (R8, found by brute force; a pass only when none can,
//! R10), the higher die when only one can (R9); and each move's text resolves to it.
#![no_main]

use bgfast_core::codec::move_text;
use bgfast_core::resolve_in;
use bgfast_core_fuzz::{any_step, dice_from, lawful_steps, max_dice, position_from};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (position, rest) = position_from(data);
    let dice = dice_from(rest.first());
    let list = position.legal_moves(dice);
    if position.outcome().is_some() {
        assert!(list.is_empty(), "a finished game has no move");
        return;
    }
    assert!(!list.is_empty());
    let counts = position.to_counts();
    let (high, low) = (dice.high().pips(), dice.low().pips());
    let all_dice = if dice.is_double() {
        vec![high; 4]
    } else {
        vec![high, low]
    };
    let played = list.mv(0).steps().len();
    let mut seen = std::collections::HashSet::new();
    for (mv, result) in list.iter() {
        assert_eq!(
            mv.steps().len(),
            played,
            "R8: every move plays as many dice"
        );
        assert!(seen.insert(result), "results are distinct");
        let mut pool = all_dice.clone();
        let after = lawful_steps(&counts, mv.steps(), &mut pool)
            .unwrap_or_else(|| panic!("{position:?} {dice}: {mv:?} is not lawful"));
        // The result is seen from the other side: its mover is our opponent.
        assert_eq!(
            result.to_counts(),
            [after[1], after[0]],
            "{position:?} {dice}: {mv:?}"
        );
        assert_eq!(position.play_unchecked(&mv), result);
        let text = move_text::format(&mv);
        let parsed = move_text::parse(&text).expect("formatted text parses");
        assert_eq!(
            resolve_in(&list, dice, &parsed).map(|(_, r)| r),
            Ok(result),
            "{text}"
        );
    }
    // R8: as many dice as can be played (a pass, R10, only when none can).
    assert_eq!(
        played,
        max_dice(&counts, &mut all_dice.clone()),
        "{position:?} {dice}"
    );
    if played == 1 && !dice.is_double() && any_step(&counts, high) {
        // R9: only one die can be played and the higher one can: every move plays it.
        for (mv, _) in list.iter() {
            assert!(
                lawful_steps(&counts, mv.steps(), &mut vec![high]).is_some(),
                "R9: {position:?} {dice}: {mv:?}"
            );
        }
    }
});
