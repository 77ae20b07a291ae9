//! Position ID decoding: never a panic; errors describe the text given (length in
//! characters, the bad character and its position); an accepted ID encodes back to itself.
#![no_main]

use bgfast_core::codec::gnubg_id::{decode, encode, IdError};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match decode(&text) {
        Ok(position) => assert_eq!(encode(&position), text),
        Err(IdError::Length(n)) => assert_eq!(n, text.chars().count()),
        Err(IdError::Character { at, found }) => assert_eq!(text.chars().nth(at), Some(found)),
        Err(IdError::Malformed(_) | IdError::Invalid(_)) => {}
    }
});
