//! The on-disk format of the bear-off tables: a fixed header with a format version and a
//! checksum, then the table. A file that is missing, from another version, truncated,
//! altered or structurally wrong is rejected, never trusted; the caller rebuilds it.
//!
//! ```text
//! offset  size  field
//!      0     8  magic "BGFBEAR\n"
//!      8     4  format version (u32 LE), FORMAT_VERSION
//!     12     4  kind (u32 LE): 1 one-sided, 2 two-sided
//!     16     8  payload length in bytes (u64 LE)
//!     24     8  FNV-1a 64 of the payload (u64 LE)
//!     32     -  payload (all numbers little-endian)
//! ```
//!
//! One-sided payload: position count (u32, 54,264), value count (u32), then per position two
//! spans (rolls, then first checker) of `offset u32, start u8, len u8`, then the values (f64).
//! Two-sided payload: position count per side (u32, 924), cubeful flag (u32, 0 or 1), the
//! win probabilities (f64, mover-major), then if cubeful the equities `[owned, centred,
//! unavailable]` (3 x f32) in the same order.

use core::fmt;

use super::index::ONE_SIDED_POSITIONS;
use super::one_sided::{OneSided, Span, MAX_ROLLS};
use super::two_sided::{TwoSided, TWO_SIDED_POSITIONS};

/// The file magic.
pub const MAGIC: [u8; 8] = *b"BGFBEAR\n";
/// Bumped whenever the layout or the meaning of the numbers changes.
pub const FORMAT_VERSION: u32 = 1;
const HEADER: usize = 32;

/// Which table a file holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TableKind {
    /// [`OneSided`].
    OneSided = 1,
    /// [`TwoSided`].
    TwoSided = 2,
}

/// Why bytes are not a valid table file.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FileError {
    /// Shorter than its header or than the payload length it announces.
    Truncated,
    /// Not a bgfast bear-off file.
    BadMagic,
    /// Written by another format version.
    Version {
        /// The version found.
        found: u32,
    },
    /// Holds another table than the one asked for.
    Kind {
        /// The kind number found.
        found: u32,
    },
    /// Longer than the payload length it announces.
    TrailingBytes,
    /// The payload does not match its checksum (the file was altered or damaged).
    Checksum,
    /// The checksum matched but the content is impossible (a writer bug or a forgery).
    Corrupt(&'static str),
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Truncated => write!(f, "bear-off file is truncated"),
            FileError::BadMagic => write!(f, "not a bgfast bear-off file (bad magic)"),
            FileError::Version { found } => write!(
                f,
                "bear-off file has format version {found}, this bgfast reads {FORMAT_VERSION}"
            ),
            FileError::Kind { found } => write!(f, "bear-off file holds table kind {found}"),
            FileError::TrailingBytes => write!(f, "bear-off file has trailing bytes"),
            FileError::Checksum => write!(f, "bear-off file checksum mismatch (file damaged)"),
            FileError::Corrupt(why) => write!(f, "bear-off file content is invalid: {why}"),
        }
    }
}

impl std::error::Error for FileError {}

/// FNV-1a, 64 bits: tiny, dependency-free and enough to detect damage (not tampering).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn wrap(kind: TableKind, payload: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(kind as u32).to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&fnv1a64(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    out
}

/// Checks the header and checksum and returns the payload.
fn unwrap(kind: TableKind, bytes: &[u8]) -> Result<&[u8], FileError> {
    if bytes.len() < HEADER {
        return Err(FileError::Truncated);
    }
    if bytes[..8] != MAGIC {
        return Err(FileError::BadMagic);
    }
    let mut r = Reader {
        bytes: &bytes[8..HEADER],
    };
    let version = r.u32()?;
    if version != FORMAT_VERSION {
        return Err(FileError::Version { found: version });
    }
    let found = r.u32()?;
    if found != kind as u32 {
        return Err(FileError::Kind { found });
    }
    let len = r.u64()?;
    let checksum = r.u64()?;
    let payload = &bytes[HEADER..];
    if (payload.len() as u64) < len {
        return Err(FileError::Truncated);
    }
    if payload.len() as u64 > len {
        return Err(FileError::TrailingBytes);
    }
    if fnv1a64(payload) != checksum {
        return Err(FileError::Checksum);
    }
    Ok(payload)
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], FileError> {
        if self.bytes.len() < n {
            return Err(FileError::Truncated);
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }
    fn array<const K: usize>(&mut self) -> Result<[u8; K], FileError> {
        let mut a = [0u8; K];
        a.copy_from_slice(self.take(K)?);
        Ok(a)
    }
    fn u8(&mut self) -> Result<u8, FileError> {
        Ok(self.array::<1>()?[0])
    }
    fn u32(&mut self) -> Result<u32, FileError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64, FileError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    fn f64(&mut self) -> Result<f64, FileError> {
        Ok(f64::from_le_bytes(self.array()?))
    }
    fn f32(&mut self) -> Result<f32, FileError> {
        Ok(f32::from_le_bytes(self.array()?))
    }
}

impl OneSided {
    /// The table as file bytes (header, checksum, payload).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(8 + self.len() * 12 + self.values.len() * 8);
        p.extend_from_slice(&(self.len() as u32).to_le_bytes());
        p.extend_from_slice(&(self.values.len() as u32).to_le_bytes());
        for (r, g) in self.rolls.iter().zip(&self.gammon) {
            for s in [r, g] {
                p.extend_from_slice(&s.offset.to_le_bytes());
                p.push(s.start);
                p.push(s.len);
            }
        }
        for v in &self.values {
            p.extend_from_slice(&v.to_le_bytes());
        }
        wrap(TableKind::OneSided, p)
    }

    /// Reads file bytes written by [`OneSided::to_bytes`], verifying version, checksum and
    /// structure (every span inside the values, every distribution summing to 1).
    pub fn from_bytes(bytes: &[u8]) -> Result<OneSided, FileError> {
        let mut r = Reader {
            bytes: unwrap(TableKind::OneSided, bytes)?,
        };
        if r.u32()? as usize != ONE_SIDED_POSITIONS {
            return Err(FileError::Corrupt("wrong position count"));
        }
        let n_values = r.u32()? as usize;
        let mut rolls = Vec::with_capacity(ONE_SIDED_POSITIONS);
        let mut gammon = Vec::with_capacity(ONE_SIDED_POSITIONS);
        for _ in 0..ONE_SIDED_POSITIONS {
            for list in [&mut rolls, &mut gammon] {
                let s = Span {
                    offset: r.u32()?,
                    start: r.u8()?,
                    len: r.u8()?,
                };
                if s.len == 0
                    || s.start as usize + s.len as usize > MAX_ROLLS
                    || s.offset as usize + s.len as usize > n_values
                {
                    return Err(FileError::Corrupt("distribution out of range"));
                }
                list.push(s);
            }
        }
        let mut values = Vec::with_capacity(n_values);
        for _ in 0..n_values {
            let v = r.f64()?;
            if !(0.0..=1.0).contains(&v) {
                return Err(FileError::Corrupt("probability outside [0, 1]"));
            }
            values.push(v);
        }
        if !r.bytes.is_empty() {
            return Err(FileError::TrailingBytes);
        }
        for s in rolls.iter().chain(&gammon) {
            let o = s.offset as usize;
            let sum: f64 = values[o..o + s.len as usize].iter().sum();
            if (sum - 1.0).abs() > 1e-9 {
                return Err(FileError::Corrupt("distribution does not sum to 1"));
            }
        }
        Ok(OneSided::from_parts(rolls, gammon, values))
    }
}

impl TwoSided {
    /// The table as file bytes (header, checksum, payload).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(8 + self.win.len() * 8 + self.cubeful.len() * 12);
        p.extend_from_slice(&(TWO_SIDED_POSITIONS as u32).to_le_bytes());
        p.extend_from_slice(&(self.has_cubeful() as u32).to_le_bytes());
        for v in &self.win {
            p.extend_from_slice(&v.to_le_bytes());
        }
        for e in &self.cubeful {
            for v in e {
                p.extend_from_slice(&v.to_le_bytes());
            }
        }
        wrap(TableKind::TwoSided, p)
    }

    /// Reads file bytes written by [`TwoSided::to_bytes`], verifying version, checksum and
    /// ranges (probabilities in [0, 1], equities in [-1, 1]).
    pub fn from_bytes(bytes: &[u8]) -> Result<TwoSided, FileError> {
        let mut r = Reader {
            bytes: unwrap(TableKind::TwoSided, bytes)?,
        };
        if r.u32()? as usize != TWO_SIDED_POSITIONS {
            return Err(FileError::Corrupt("wrong position count"));
        }
        let cubeful = match r.u32()? {
            0 => false,
            1 => true,
            _ => return Err(FileError::Corrupt("bad cubeful flag")),
        };
        let n = TWO_SIDED_POSITIONS * TWO_SIDED_POSITIONS;
        let mut win = Vec::with_capacity(n);
        for _ in 0..n {
            let v = r.f64()?;
            if !(0.0..=1.0).contains(&v) {
                return Err(FileError::Corrupt("probability outside [0, 1]"));
            }
            win.push(v);
        }
        let mut equities = Vec::new();
        if cubeful {
            equities.reserve(n);
            for _ in 0..n {
                let e = [r.f32()?, r.f32()?, r.f32()?];
                if !e.iter().all(|v| (-1.0..=1.0).contains(v)) {
                    return Err(FileError::Corrupt("equity outside [-1, 1]"));
                }
                equities.push(e);
            }
        }
        if !r.bytes.is_empty() {
            return Err(FileError::TrailingBytes);
        }
        Ok(TwoSided {
            win,
            cubeful: equities,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sided_round_trips_and_rejects_damage() {
        let t = OneSided::build();
        let bytes = t.to_bytes();
        assert!(OneSided::from_bytes(&bytes).unwrap() == t);
        assert_eq!(
            TwoSided::from_bytes(&bytes),
            Err(FileError::Kind { found: 1 })
        );
        let mut flipped = bytes.clone();
        let last = flipped.len() - 3;
        flipped[last] ^= 0x10;
        assert_eq!(OneSided::from_bytes(&flipped), Err(FileError::Checksum));
        assert_eq!(
            OneSided::from_bytes(&bytes[..bytes.len() - 1]),
            Err(FileError::Truncated)
        );
        assert_eq!(
            OneSided::from_bytes(&bytes[..10]),
            Err(FileError::Truncated)
        );
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(OneSided::from_bytes(&longer), Err(FileError::TrailingBytes));
        let mut old = bytes.clone();
        old[8] = 0;
        assert_eq!(
            OneSided::from_bytes(&old),
            Err(FileError::Version { found: 0 })
        );
        let mut magic = bytes;
        magic[0] = b'X';
        assert_eq!(OneSided::from_bytes(&magic), Err(FileError::BadMagic));
    }

    #[test]
    fn a_forged_checksum_still_fails_the_structure_check() {
        let t = OneSided::build();
        let mut bytes = t.to_bytes();
        // Point the first span far outside the values, then fix the checksum.
        bytes[HEADER + 8..HEADER + 12].copy_from_slice(&u32::MAX.to_le_bytes());
        let sum = fnv1a64(&bytes[HEADER..]);
        bytes[24..32].copy_from_slice(&sum.to_le_bytes());
        assert!(matches!(
            OneSided::from_bytes(&bytes),
            Err(FileError::Corrupt(_))
        ));
    }
}
