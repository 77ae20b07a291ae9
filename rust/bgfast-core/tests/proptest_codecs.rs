//! Property tests of the text codecs over arbitrary input: Position IDs and move text never
//! panic, report errors that describe the text given, and round-trip whatever they accept;
//! legality resolution never panics on any parsed move and finds every generated move.
//!
//! Quick by default (a few seconds); `PROPTEST_CASES=100000 cargo test --release --test
//! proptest_codecs` searches harder.

mod prop_support;

use bgfast_core::codec::gnubg_id::{self, IdError, ID_LEN};
use bgfast_core::codec::move_text::{self, ParsedMove, Stop, SyntaxReason, WrittenPath};
use bgfast_core::{resolve, resolve_in, Dice, MoveList, Position};
use prop_support::{dice, position};
use proptest::prelude::*;

/// Text made mostly of move-notation pieces, so that parses often get far (plus noise).
fn move_like_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => (0u32..30).prop_map(|n| n.to_string()),
        1 => "[0-9]{3,25}",
        3 => Just("/".to_string()),
        1 => Just("*".to_string()),
        2 => Just(" ".to_string()),
        1 => Just(",".to_string()),
        1 => prop_oneof![Just("bar"), Just("off"), Just("BAR"), Just("Off")].prop_map(String::from),
        1 => (0u32..7).prop_map(|n| format!("({n})")),
        1 => any::<char>().prop_map(String::from),
    ];
    proptest::collection::vec(piece, 0..16).prop_map(|p| p.concat())
}

/// Written paths with any field values, including ones the parser never produces.
fn raw_parsed_move() -> impl Strategy<Value = ParsedMove> {
    let stop = (any::<u8>(), any::<bool>()).prop_map(|(point, hit)| Stop { point, hit });
    let path = (
        prop_oneof![0u8..=26, any::<u8>()],
        proptest::collection::vec(prop_oneof![3 => (0u8..=25, any::<bool>()).prop_map(|(point, hit)| Stop { point, hit }), 1 => stop], 0..6),
        prop_oneof![0u8..=5, any::<u8>()],
    )
        .prop_map(|(from, stops, repeat)| WrittenPath {
            from,
            stops,
            repeat,
            at: 0,
        });
    proptest::collection::vec(path, 0..5).prop_map(|paths| ParsedMove { paths })
}

/// What every accepted ID must satisfy: 14 characters that encode back to themselves.
fn check_id(id: &str) {
    match gnubg_id::decode(id) {
        Ok(position) => {
            assert_eq!(gnubg_id::encode(&position), id);
        }
        Err(IdError::Length(n)) => {
            assert_eq!(n, id.chars().count());
            assert_ne!(n, ID_LEN);
        }
        Err(IdError::Character { at, found }) => {
            assert_eq!(id.chars().count(), ID_LEN);
            assert_eq!(id.chars().nth(at), Some(found), "{id:?}");
            assert!(!found.is_ascii_alphanumeric() && found != '+' && found != '/');
            // The characters before it are all base64.
            assert!(id
                .chars()
                .take(at)
                .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '/'));
        }
        Err(IdError::Malformed(_) | IdError::Invalid(_)) => {
            assert!(id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '/'));
        }
    }
}

/// Resolving `parsed` never panics; an accepted play is one of the legal results.
fn check_resolve(position: &Position, dice: Dice, parsed: &ParsedMove, list: &mut MoveList) {
    position.generate_moves(dice, list);
    let checked = resolve(position, dice, parsed);
    let in_list = resolve_in(list, dice, parsed);
    assert_eq!(checked, in_list);
    if let Ok((mv, result)) = checked {
        assert!(list.results().any(|r| r == result), "{parsed:?}");
        assert_eq!(position.play_unchecked(&mv), result);
        assert_eq!(position.play(dice, &mv), Ok(result));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn any_string_as_a_position_id(id in any::<String>()) {
        check_id(&id);
    }

    #[test]
    fn any_fourteen_characters_as_a_position_id(id in "\\PC{14}") {
        check_id(&id);
    }

    #[test]
    fn any_fourteen_base64_characters(id in "[A-Za-z0-9+/]{14}") {
        check_id(&id);
        // Only the counts can be wrong: the alphabet and length are right.
        let error = gnubg_id::decode(&id).err();
        prop_assert!(matches!(error, None | Some(IdError::Malformed(_) | IdError::Invalid(_))));
    }

    #[test]
    fn valid_ids_round_trip(position in position()) {
        let id = gnubg_id::encode(&position);
        prop_assert_eq!(id.len(), ID_LEN);
        prop_assert_eq!(gnubg_id::decode(&id), Ok(position));
    }

    #[test]
    fn move_text_parse_never_panics(text in any::<String>()) {
        if let Err(e) = move_text::parse(&text) {
            // The offset is on a character boundary with ASCII before it.
            prop_assert!(text.is_char_boundary(e.at) && text[..e.at].is_ascii());
            let _ = e.to_string();
        }
    }

    #[test]
    fn move_like_text_parses_or_says_where(text in move_like_text()) {
        match move_text::parse(&text) {
            Ok(parsed) => {
                prop_assert!(parsed.segment_count() <= 4);
                for path in &parsed.paths {
                    prop_assert!((1..=25).contains(&path.from));
                    prop_assert!((1..=4).contains(&path.repeat));
                    let points: Vec<u8> = path.stops.iter().map(|s| s.point).collect();
                    prop_assert!(!points.is_empty() && points.iter().all(|&p| p <= 24));
                    prop_assert!(points.windows(2).all(|w| w[0] > w[1]) && points[0] < path.from);
                }
            }
            Err(e) => {
                prop_assert!(e.at <= text.len());
                if let SyntaxReason::PointOutOfRange(digits) = &e.reason {
                    // The point as written, never a saturated value.
                    prop_assert!(text[e.at..].starts_with(digits.as_str()));
                    prop_assert!(digits.bytes().all(|b| b.is_ascii_digit()));
                }
            }
        }
    }

    #[test]
    fn generated_moves_format_parse_and_resolve_to_themselves(
        position in position(),
        dice in dice(),
    ) {
        let list = position.legal_moves(dice);
        for (mv, result) in list.iter() {
            let text = move_text::format(&mv);
            let parsed = move_text::parse(&text).map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
            let (found, found_result) = resolve_in(&list, dice, &parsed)
                .map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
            prop_assert_eq!(found_result, result, "{}", text);
            prop_assert_eq!(move_text::format(&found), text.as_str());
            // Each step as its own path (no chains, no repeats) names the same result.
            let (_, stepwise) = resolve_in(&list, dice, &ParsedMove::from(&mv))
                .map_err(|e| TestCaseError::fail(format!("{text:?} stepwise: {e}")))?;
            prop_assert_eq!(stepwise, result);
        }
    }

    #[test]
    fn resolving_any_text_never_panics(
        position in position(),
        dice in dice(),
        text in move_like_text(),
    ) {
        if let Ok(parsed) = move_text::parse(&text) {
            check_resolve(&position, dice, &parsed, &mut MoveList::new());
        }
    }

    #[test]
    fn resolving_any_parsed_move_never_panics(
        position in position(),
        dice in dice(),
        parsed in raw_parsed_move(),
    ) {
        check_resolve(&position, dice, &parsed, &mut MoveList::new());
    }
}
