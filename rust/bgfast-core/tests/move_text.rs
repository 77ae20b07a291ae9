//! Move notation round-trips: every legal move formats, parses back and resolves to its own
//! result, on the start position and the wildbg corpora (see tests/data/NOTICE.md).

use bgfast_core::codec::{gnubg_id, move_text};
use bgfast_core::{resolve_in, Dice, MoveList, Position};

fn corpus(name: &str) -> Vec<Position> {
    let path = format!("{}/../../tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| gnubg_id::decode(l.trim()).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

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
                }
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
