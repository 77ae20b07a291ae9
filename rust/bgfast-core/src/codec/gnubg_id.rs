//! GNU Backgammon Position IDs: 14 base64 characters for an 80-bit key.
//!
//! The key lists, for the player NOT on roll and then the player on roll, each point 1..=24
//! and the bar in that player's own numbering as a run of 1-bits (one per checker) closed
//! by a 0-bit, packed from the least significant bit of the first byte. This is what gnubg's
//! code does; its manual's prose names the player on roll first.

use core::fmt;

use crate::position::{Position, PositionError};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/// Characters in a Position ID.
pub const ID_LEN: usize = 14;

/// Why a string is not a Position ID.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum IdError {
    /// Not 14 characters (the number of characters given, not bytes).
    Length(usize),
    /// A character outside the base64 alphabet.
    Character {
        /// Its position, in characters from 0.
        at: usize,
        /// The character.
        found: char,
    },
    /// The characters do not make a key of 50 counts.
    Malformed(KeyFault),
    /// The counts decode but break the rules.
    Invalid(PositionError),
}

impl fmt::Display for IdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdError::Length(n) => write!(f, "a Position ID has 14 characters, not {n}"),
            IdError::Character { at, found } => write!(
                f,
                "the character at index {at} is {found:?}, not a base64 character \
                 (A-Z, a-z, 0-9, + or /)"
            ),
            IdError::Malformed(fault) => write!(f, "{fault}"),
            IdError::Invalid(e) => write!(f, "{e}"),
        }
    }
}

/// How 14 base64 characters fail to make a key of 50 counts (two sides' points 1..=24 and
/// bar, each a run of 1-bits closed by a 0-bit).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum KeyFault {
    /// The 80 bits end before the 50th count is closed: more than 80 bits would be needed.
    Unfinished,
    /// A 1-bit follows the 50th count, where the key has only 0-bits.
    BitsAfterCounts,
    /// The last character sets some of its 4 low bits, which 14 characters hold beyond the
    /// key's 80 (GNU Backgammon leaves them 0): `expected` is the character with them clear.
    StrayBits {
        /// The last character.
        found: char,
        /// It with its 4 low bits clear.
        expected: char,
    },
}

impl fmt::Display for KeyFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyFault::Unfinished => write!(
                f,
                "it encodes more checkers than a position has (a mistyped character?): the \
                 key's 80 bits end before its 50 counts do"
            ),
            KeyFault::BitsAfterCounts => write!(
                f,
                "it encodes fewer points than a position has (a mistyped character?): the \
                 key has 1-bits after its 50 counts, where it holds only 0-bits"
            ),
            KeyFault::StrayBits { found, expected } => write!(
                f,
                "its last character, {found:?}, is none a Position ID ends with (a \
                 mistyped character?): it sets bits beyond the key's 80 (its 4 low bits \
                 are unused): {expected:?} has them clear"
            ),
        }
    }
}

impl std::error::Error for IdError {}

/// The 10-byte key of a position.
pub fn key(position: &Position) -> [u8; 10] {
    let mut key = [0u8; 10];
    let mut bit = 0usize;
    for side in [position.opponent(), position.mover()] {
        for point in 1..=25u8 {
            for _ in 0..side.count(point) {
                key[bit / 8] |= 1 << (bit % 8);
                bit += 1;
            }
            bit += 1;
        }
    }
    key
}

/// The Position ID of a position.
pub fn encode(position: &Position) -> String {
    let key = key(position);
    let mut out = String::with_capacity(ID_LEN);
    // 10 bytes = 80 bits = 13 full sextets and 2 bits.
    let mut acc: u32 = 0;
    let mut nbits = 0;
    for &byte in &key {
        acc = (acc << 8) | byte as u32;
        nbits += 8;
        while nbits >= 6 {
            nbits -= 6;
            out.push(ALPHABET[((acc >> nbits) & 63) as usize] as char);
        }
    }
    out.push(ALPHABET[((acc << (6 - nbits)) & 63) as usize] as char);
    out
}

/// Decodes a 10-byte key into counts (not yet validated): `[not on roll, on roll]`.
pub fn counts_from_key(key: &[u8; 10]) -> Result<[[i32; 25]; 2], IdError> {
    let mut counts = [[0i32; 25]; 2];
    let mut side = 0;
    let mut point = 0;
    for bit in 0..80 {
        if side == 2 {
            if key[bit / 8] >> (bit % 8) & 1 != 0 {
                return Err(IdError::Malformed(KeyFault::BitsAfterCounts));
            }
            continue;
        }
        if key[bit / 8] >> (bit % 8) & 1 != 0 {
            counts[side][point] += 1;
        } else {
            point += 1;
            if point == 25 {
                point = 0;
                side += 1;
            }
        }
    }
    if side != 2 {
        return Err(IdError::Malformed(KeyFault::Unfinished));
    }
    Ok(counts)
}

/// The value of a base64 character, or `None` outside the alphabet.
fn sextet(c: char) -> Option<u32> {
    let c = u8::try_from(c).ok()?;
    ALPHABET.iter().position(|&a| a == c).map(|v| v as u32)
}

/// Decodes and validates a Position ID.
///
/// Text is checked in characters, never bytes: the length counted is the number of
/// characters, and a character outside the alphabet (multi-byte ones included) is reported
/// with its position and itself.
pub fn decode(id: &str) -> Result<Position, IdError> {
    let n = id.chars().count();
    if n != ID_LEN {
        return Err(IdError::Length(n));
    }
    let mut key = [0u8; 10];
    let mut acc: u32 = 0;
    let mut nbits = 0;
    let mut out = 0;
    for (at, c) in id.chars().enumerate() {
        let v = sextet(c).ok_or(IdError::Character { at, found: c })?;
        acc = (acc << 6) | v;
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            if out < 10 {
                key[out] = (acc >> nbits) as u8;
                out += 1;
            }
        }
    }
    let unused = (1 << nbits) - 1;
    if acc & unused != 0 {
        let last = (acc & 63) as usize;
        return Err(IdError::Malformed(KeyFault::StrayBits {
            found: ALPHABET[last] as char,
            expected: ALPHABET[last & !unused as usize] as char,
        }));
    }
    from_key(&key)
}

/// Decodes and validates a position's 10-byte [`key`].
pub fn from_key(key: &[u8; 10]) -> Result<Position, IdError> {
    let [opponent, mover] = counts_from_key(key)?;
    Position::from_counts(&mover, &opponent).map_err(IdError::Invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_is_the_manual_example() {
        assert_eq!(encode(&Position::START), "4HPwATDgc/ABMA");
        assert_eq!(decode("4HPwATDgc/ABMA"), Ok(Position::START));
    }

    #[test]
    fn rejects_bad_text() {
        assert_eq!(decode("4HPwATDgc/ABM"), Err(IdError::Length(13)));
        assert_eq!(
            decode("4HPwATDgc/AB!A"),
            Err(IdError::Character { at: 12, found: '!' })
        );
    }

    #[test]
    fn says_how_the_bits_fail_to_make_a_key() {
        let unfinished = counts_from_key(&[0xFF; 10]);
        assert_eq!(unfinished, Err(IdError::Malformed(KeyFault::Unfinished)));
        // 50 empty counts, then 1-bits where the key must be 0.
        let after = counts_from_key(&[0, 0, 0, 0, 0, 0, 0xFC, 0xFF, 0xFF, 0xFF]);
        assert_eq!(after, Err(IdError::Malformed(KeyFault::BitsAfterCounts)));
        let stray = decode("4HPwATDgc/ABMB").unwrap_err();
        let expected = KeyFault::StrayBits {
            found: 'B',
            expected: 'A',
        };
        assert_eq!(stray, IdError::Malformed(expected));
        assert!(stray.to_string().contains("'A' has them clear"), "{stray}");
        assert_eq!(decode("4HPwATDgc/ABM/").unwrap_err(), {
            IdError::Malformed(KeyFault::StrayBits {
                found: '/',
                expected: 'w',
            })
        });
    }

    #[test]
    fn counts_characters_not_bytes() {
        // Regression: 14 characters but 15 bytes was reported as "has 14 characters, not 14".
        let e = decode("4HPwATDgc/ABMé").unwrap_err();
        assert_eq!(
            e,
            IdError::Character {
                at: 13, found: 'é'
            }
        );
        assert!(e.to_string().contains("index 13") && e.to_string().contains("'é'"));
        // Seven two-byte characters are 14 bytes but 7 characters.
        assert_eq!(decode("ééééééé"), Err(IdError::Length(7)));
        assert_eq!(decode("4HPwATDgc/ABMAé"), Err(IdError::Length(15)));
        let e = decode("4HPwATDgc/ABM").unwrap_err().to_string();
        assert_eq!(e, "a Position ID has 14 characters, not 13");
        // A byte value of the alphabet inside a multi-byte character is no match.
        assert_eq!(
            decode("\u{141}HPwATDgc/ABMA"),
            Err(IdError::Character {
                at: 0,
                found: '\u{141}'
            })
        );
    }
}
