//! Move notation round-trips: every legal move formats, parses back and resolves to its own
//! result, moves the checkers physically to that result (table mode, R31) and is found again
//! from its steps, on the start position and the wildbg corpora (see tests/data/NOTICE.md).

mod common;

use bgfast_core::codec::move_text;
use bgfast_core::{resolve_in, Dice, MoveList, Position};
use common::corpus;

/// Checks every legal move of every roll; returns how many moves were checked.
fn round_trip(positions: &[Position], play_every: usize) -> usize {
    let mut list = MoveList::new();
    let mut checked = 0;
    for pos in positions {
        for dice in Dice::ALL_21 {
            pos.generate_moves(dice, &mut list);
            for (mv, result) in list.iter() {
                let text = move_text::format(&mv);
                let parsed = move_text::parse(&text)
                    .unwrap_or_else(|e| panic!("{pos:?} {dice}: {text:?}: {e}"));
                let (found, found_result) = resolve_in(&list, dice, &parsed)
                    .unwrap_or_else(|e| panic!("{pos:?} {dice}: {text:?}: {e}"));
                assert_eq!(found_result, result, "{pos:?} {dice}: {text:?}");
                assert_eq!(found, mv, "{pos:?} {dice}: {text:?} names another move");
                // Checked play agrees (it regenerates the moves, so sample it on big sets),
                // and the fast path gives the same result.
                if checked % play_every == 0 {
                    assert_eq!(pos.play(dice, &mv), Ok(result), "{pos:?} {dice}: {text:?}");
                    // A move recorded as its steps is found again (a pickled Move).
                    let (found_dice, found) = pos
                        .find_move(&mv)
                        .unwrap_or_else(|| panic!("{pos:?} {dice}: {text:?} not found"));
                    assert_eq!(found, result, "{pos:?} {dice}: {text:?} ({found_dice})");
                }
                // A hand moving the checkers as written makes the same result.
                assert_eq!(
                    pos.play_physically(&parsed),
                    Ok(result),
                    "{pos:?} {dice}: {text:?}"
                );
                assert_eq!(pos.play_unchecked(&mv), result, "{pos:?} {dice}: {text:?}");
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn start_position_all_rolls() {
    // 15+16+14+8+10+17+18+8+14+17+9+14+9+14+7 non-doubles and 42+75+73+52+4+11 doubles.
    assert_eq!(round_trip(&[Position::START], 1), 190 + 257);
}

#[test]
fn contact_corpus() {
    assert_eq!(
        round_trip(&corpus("wildbg_contact.csv"), 13),
        218_356 + 185_957
    );
}

#[test]
fn race_corpus() {
    assert_eq!(
        round_trip(&corpus("wildbg_race.csv"), 13),
        140_720 + 122_570
    );
}

#[test]
fn opening_texts() {
    let dice = Dice::from_pips(6, 5).unwrap();
    let texts: Vec<String> = Position::START
        .legal_moves(dice)
        .iter()
        .map(|(mv, _)| mv.to_string())
        .collect();
    assert!(texts.contains(&"24/13".to_string()), "{texts:?}");
    assert!(texts.contains(&"13/7 13/8".to_string()) || texts.contains(&"13/8 13/7".to_string()));
}

/// Texts of one roll's moves resolved against another roll: never a panic, an accepted text
/// is one of the legal results, and a rejected one names a specific rule.
#[test]
fn other_rolls_texts_are_diagnosed() {
    let positions = corpus("wildbg_contact.csv");
    let (mut legal, mut other) = (MoveList::new(), MoveList::new());
    let mut rejected = std::collections::BTreeMap::<String, usize>::new();
    for pos in positions.iter().take(60) {
        for dice in Dice::ALL_21 {
            pos.generate_moves(dice, &mut legal);
            for wrong in Dice::ALL_21 {
                if wrong == dice {
                    continue;
                }
                pos.generate_moves(wrong, &mut other);
                for (mv, _) in other.iter() {
                    let text = mv.to_string();
                    let parsed = move_text::parse(&text).unwrap();
                    match resolve_in(&legal, dice, &parsed) {
                        Ok((_, result)) => {
                            assert!(legal.iter().any(|(_, r)| r == result), "{text}")
                        }
                        Err(e) => {
                            let msg = e.to_string();
                            let rule = e.rule().to_string();
                            assert!(msg.starts_with(&format!("{rule}: ")), "{msg}");
                            assert_ne!(
                                e,
                                bgfast_core::IllegalMove::NotLegal,
                                "{pos:?} {dice}: {text}"
                            );
                            let seen = rejected.entry(rule).or_default();
                            if *seen < 3 && std::env::var_os("SHOW_DIAGNOSES").is_some() {
                                eprintln!("{pos:?} {dice}: {text}: {msg}");
                            }
                            *seen += 1;
                        }
                    }
                }
            }
        }
    }
    // Each of these rules is met somewhere in this sample (set SHOW_DIAGNOSES=1 to see).
    for rule in ["R4", "R5", "R7", "R8", "R11", "R12", "R14"] {
        assert!(
            rejected.contains_key(rule),
            "{rule} never diagnosed: {rejected:?}"
        );
    }
}

/// Random texts over the notation's alphabet: parsing never panics, and whatever parses
/// resolves (to a legal move or a rule error) without panicking, on a few positions.
#[test]
fn random_texts_never_panic() {
    const ALPHABET: &[&str] = &[
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "1", "2", "/", "/", "/", "*", "(", ")",
        " ", ",", "bar", "off", "x", "25", "13", "24",
    ];
    let positions = [
        Position::START,
        corpus("wildbg_race.csv")[0],
        corpus("wildbg_contact.csv")[0],
    ];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut parsed_ok = 0;
    for _ in 0..50_000 {
        let len = next() % 12;
        let text: String = (0..len)
            .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
            .collect();
        if let Ok(parsed) = move_text::parse(&text) {
            parsed_ok += 1;
            let pos = positions[(next() % 3) as usize];
            let dice = Dice::ALL_21[(next() % 21) as usize];
            if let Ok((_, result)) = bgfast_core::resolve(&pos, dice, &parsed) {
                assert!(
                    pos.legal_moves(dice).iter().any(|(_, r)| r == result),
                    "{text}"
                );
            }
        }
    }
    assert!(
        parsed_ok > 1000,
        "only {parsed_ok} texts parsed: the fuzz tests little"
    );
}
