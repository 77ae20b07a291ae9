//! Totals over the wildbg corpora and perft from the start (see tests/data/NOTICE.md).

mod common;

use bgfast_core::codec::gnubg_id;
use bgfast_core::{perft, Dice, MoveList, Position};
use common::corpus;

/// (doubles, non-doubles) totals of distinct results, each roll once per position.
fn totals(positions: &[Position]) -> (usize, usize) {
    let mut list = MoveList::new();
    let (mut doubles, mut non_doubles) = (0, 0);
    for pos in positions {
        for dice in Dice::ALL_21 {
            pos.generate_moves(dice, &mut list);
            if dice.is_double() {
                doubles += list.len();
            } else {
                non_doubles += list.len();
            }
        }
    }
    (doubles, non_doubles)
}

#[test]
fn contact_corpus_totals() {
    assert_eq!(totals(&corpus("wildbg_contact.csv")), (218_356, 185_957));
}

#[test]
fn race_corpus_totals() {
    assert_eq!(totals(&corpus("wildbg_race.csv")), (140_720, 122_570));
}

#[test]
fn opening_roll_counts() {
    let expected = [
        ("21", 15),
        ("31", 16),
        ("41", 14),
        ("51", 8),
        ("61", 10),
        ("32", 17),
        ("42", 18),
        ("52", 8),
        ("62", 14),
        ("43", 17),
        ("53", 9),
        ("63", 14),
        ("54", 9),
        ("64", 14),
        ("65", 7),
        ("11", 42),
        ("22", 75),
        ("33", 73),
        ("44", 52),
        ("55", 4),
        ("66", 11),
    ];
    for (roll, count) in expected {
        let b = roll.as_bytes();
        let dice = Dice::from_pips(b[0] - b'0', b[1] - b'0').unwrap();
        assert_eq!(
            Position::START.legal_moves(dice).len(),
            count,
            "roll {roll}"
        );
    }
}

#[test]
fn worst_known_case_for_1_1() {
    let pos = gnubg_id::decode("AAAAUUoppaQAAA").unwrap();
    assert_eq!(pos.legal_moves(Dice::from_pips(1, 1).unwrap()).len(), 2226);
}

/// 116,154,993 leaves; run in release mode (`cargo test --release -- --ignored`).
#[test]
#[ignore = "slow in debug builds; CI runs it with --release"]
fn perft_depth_3() {
    assert_eq!(perft(&Position::START, 3), 116_154_993);
}
