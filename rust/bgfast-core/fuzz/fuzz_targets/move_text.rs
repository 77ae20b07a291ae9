//! Move text: parse never panics on any text; resolving a parsed move in a valid position
//! never panics, `resolve` and `resolve_in` agree, and an accepted move is legal.
#![no_main]

use bgfast_core::codec::move_text;
use bgfast_core::{resolve, resolve_in};
use bgfast_core_fuzz::{dice_from, position_from};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (position, rest) = position_from(data);
    let dice = dice_from(rest.first());
    let text = String::from_utf8_lossy(rest.get(1..).unwrap_or(&[]));
    let parsed = match move_text::parse(&text) {
        Ok(parsed) => parsed,
        Err(e) => {
            assert!(text.is_char_boundary(e.at) && text[..e.at].is_ascii());
            let _ = e.to_string();
            return;
        }
    };
    let list = position.legal_moves(dice);
    let checked = resolve(&position, dice, &parsed);
    assert_eq!(checked, resolve_in(&list, dice, &parsed));
    match checked {
        Ok((mv, result)) => {
            assert!(list.results().any(|r| r == result));
            assert_eq!(position.play_unchecked(&mv), result);
        }
        Err(e) => {
            let _ = (e.to_string(), e.rule());
        }
    }
});
