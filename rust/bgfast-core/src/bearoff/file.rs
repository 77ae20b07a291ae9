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

use super::index::{positions_up_to, MAX_CHECKERS, ONE_SIDED_POSITIONS};
use super::one_sided::{OneSided, Span, MAX_ROLLS};
use super::two_sided::{TwoSided, TWO_SIDED_POSITIONS};

/// The file magic.
pub const MAGIC: [u8; 8] = *b"BGFBEAR\n";
/// Bumped whenever the layout or the meaning of the numbers changes.
pub const FORMAT_VERSION: u32 = 1;
const HEADER: usize = 32;

/// Bytes of one span in a one-sided payload: offset u32, start u8, len u8.
const SPAN_BYTES: usize = 6;
/// The most values a one-sided payload can hold: two distributions a position, each of at
/// most [`MAX_ROLLS`] entries.
const MAX_ONE_SIDED_VALUES: usize = ONE_SIDED_POSITIONS * 2 * MAX_ROLLS;

/// The payload length of a one-sided file holding `n_values` values (at most
/// [`MAX_ONE_SIDED_VALUES`], so this cannot overflow).
const fn one_sided_payload_len(n_values: usize) -> usize {
    8 + ONE_SIDED_POSITIONS * 2 * SPAN_BYTES + n_values * 8
}

/// The payload length of a two-sided file, with or without the cubeful equities.
const fn two_sided_payload_len(cubeful: bool) -> usize {
    let n = TWO_SIDED_POSITIONS * TWO_SIDED_POSITIONS;
    8 + n * 8 + if cubeful { n * 12 } else { 0 }
}

/// The longest file of either kind: a file longer than this is not a table, whatever its
/// header says (readers may refuse to read further).
pub const MAX_FILE_LEN: usize = {
    let one = HEADER + one_sided_payload_len(MAX_ONE_SIDED_VALUES);
    let two = HEADER + two_sided_payload_len(true);
    if one > two {
        one
    } else {
        two
    }
};

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
    /// structure: the sizes first, against the file's length and the format's bounds, so
    /// that nothing is allocated for a file that cannot be right; then every span (packed in
    /// order, inside the values, trimmed of zeros) and every distribution (summing to 1,
    /// all mass on 0 rolls exactly where no roll is needed).
    pub fn from_bytes(bytes: &[u8]) -> Result<OneSided, FileError> {
        let payload = unwrap(TableKind::OneSided, bytes)?;
        let mut r = Reader { bytes: payload };
        if r.u32()? as usize != ONE_SIDED_POSITIONS {
            return Err(FileError::Corrupt("wrong position count"));
        }
        let n_values = r.u32()? as usize;
        if n_values > MAX_ONE_SIDED_VALUES {
            return Err(FileError::Corrupt("value count above the format's bound"));
        }
        if payload.len() != one_sided_payload_len(n_values) {
            return Err(FileError::Corrupt(
                "payload size does not match its value count",
            ));
        }
        // Sizes are now bounded by the file's own length: allocating is safe.
        let mut rolls = Vec::with_capacity(ONE_SIDED_POSITIONS);
        let mut gammon = Vec::with_capacity(ONE_SIDED_POSITIONS);
        let mut packed = 0usize;
        for _ in 0..ONE_SIDED_POSITIONS {
            for list in [&mut rolls, &mut gammon] {
                let s = Span {
                    offset: r.u32()?,
                    start: r.u8()?,
                    len: r.u8()?,
                };
                // The writer packs the spans one after the other, in this order.
                if s.len == 0
                    || s.start as usize + s.len as usize > MAX_ROLLS
                    || s.offset as usize != packed
                {
                    return Err(FileError::Corrupt("distribution out of range"));
                }
                packed += s.len as usize;
                if packed > n_values {
                    return Err(FileError::Corrupt("distribution out of range"));
                }
                list.push(s);
            }
        }
        if packed != n_values {
            return Err(FileError::Corrupt(
                "values not covered by the distributions",
            ));
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
        // Positions of 15 checkers are the last ones (the numbering orders by count).
        let full_from = positions_up_to(MAX_CHECKERS - 1);
        for (i, (roll, first)) in rolls.iter().zip(&gammon).enumerate() {
            for (s, at_zero) in [(roll, i == 0), (first, i < full_from)] {
                let d = &values[s.offset as usize..s.offset as usize + s.len as usize];
                // Trimmed: the first and last stored entries are not zero.
                if d[0] == 0.0 || d[d.len() - 1] == 0.0 {
                    return Err(FileError::Corrupt("distribution not trimmed"));
                }
                // No checker left (or one already off, for the first checker): no roll is
                // needed, a point mass on 0; otherwise at least one roll is.
                if at_zero != (s.start == 0) || (at_zero && d != [1.0]) {
                    return Err(FileError::Corrupt("distribution starts at the wrong roll"));
                }
                let sum: f64 = d.iter().sum();
                if (sum - 1.0).abs() > 1e-9 {
                    return Err(FileError::Corrupt("distribution does not sum to 1"));
                }
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

    /// Reads file bytes written by [`TwoSided::to_bytes`], verifying version, checksum,
    /// size (against the file's length before anything is allocated) and ranges
    /// (probabilities in [0, 1], equities in [-1, 1], and the entries where a side has no
    /// checker left: it has won, R15).
    pub fn from_bytes(bytes: &[u8]) -> Result<TwoSided, FileError> {
        let payload = unwrap(TableKind::TwoSided, bytes)?;
        let mut r = Reader { bytes: payload };
        if r.u32()? as usize != TWO_SIDED_POSITIONS {
            return Err(FileError::Corrupt("wrong position count"));
        }
        let cubeful = match r.u32()? {
            0 => false,
            1 => true,
            _ => return Err(FileError::Corrupt("bad cubeful flag")),
        };
        if payload.len() != two_sided_payload_len(cubeful) {
            return Err(FileError::Corrupt(
                "payload size does not match its cubeful flag",
            ));
        }
        let n = TWO_SIDED_POSITIONS * TWO_SIDED_POSITIONS;
        // Row 0: the side on roll has no checker left, it has won (also (0, 0), GNU
        // Backgammon's convention); column 0: the opponent has none left, it has won.
        let decided = |k: usize| match (k / TWO_SIDED_POSITIONS, k % TWO_SIDED_POSITIONS) {
            (0, _) => Some(1.0),
            (_, 0) => Some(-1.0),
            _ => None,
        };
        let mut win = Vec::with_capacity(n);
        for k in 0..n {
            let v = r.f64()?;
            if !(0.0..=1.0).contains(&v) {
                return Err(FileError::Corrupt("probability outside [0, 1]"));
            }
            if decided(k).is_some_and(|e| v != (e + 1.0) / 2.0) {
                return Err(FileError::Corrupt("a finished side's entry is not decided"));
            }
            win.push(v);
        }
        let mut equities = Vec::new();
        if cubeful {
            equities.reserve_exact(n);
            for k in 0..n {
                let e = [r.f32()?, r.f32()?, r.f32()?];
                if !e.iter().all(|v| (-1.0..=1.0).contains(v)) {
                    return Err(FileError::Corrupt("equity outside [-1, 1]"));
                }
                if decided(k).is_some_and(|d| e.iter().any(|&v| v as f64 != d)) {
                    return Err(FileError::Corrupt("a finished side's entry is not decided"));
                }
                equities.push(e);
            }
        }
        if !r.bytes.is_empty() {
            return Err(FileError::TrailingBytes);
        }
        Ok(TwoSided::from_parts(win, equities))
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

    /// Rewrites the checksum after a forgery, as a forger would.
    fn reseal(bytes: &mut [u8]) {
        let sum = fnv1a64(&bytes[HEADER..]);
        bytes[24..32].copy_from_slice(&sum.to_le_bytes());
    }

    #[test]
    fn a_forged_value_count_is_refused_before_allocating() {
        // Regression: a value count of 0xFFFFFFFF with the checksum recomputed made
        // `from_bytes` ask for 32 GB, which aborts the process.
        let mut bytes = OneSided::build().to_bytes();
        for forged in [u32::MAX, MAX_ONE_SIDED_VALUES as u32 + 1, 0, 1] {
            bytes[HEADER + 4..HEADER + 8].copy_from_slice(&forged.to_le_bytes());
            reseal(&mut bytes);
            assert!(
                matches!(OneSided::from_bytes(&bytes), Err(FileError::Corrupt(_))),
                "{forged}"
            );
        }
    }

    #[test]
    fn two_sided_sizes_and_decided_entries_are_checked() {
        let t = TwoSided::build_cubeless();
        let good = t.to_bytes();
        assert!(TwoSided::from_bytes(&good).unwrap() == t);
        // Claiming cube equities the file does not hold.
        let mut bytes = good.clone();
        bytes[HEADER + 4..HEADER + 8].copy_from_slice(&1u32.to_le_bytes());
        reseal(&mut bytes);
        assert!(matches!(
            TwoSided::from_bytes(&bytes),
            Err(FileError::Corrupt(_))
        ));
        // A side with nothing left has won: row 0 is certain, column 0 lost.
        for k in [0usize, 5, TWO_SIDED_POSITIONS] {
            let mut bytes = good.clone();
            let at = HEADER + 8 + 8 * k;
            bytes[at..at + 8].copy_from_slice(&0.5f64.to_le_bytes());
            reseal(&mut bytes);
            assert!(
                matches!(TwoSided::from_bytes(&bytes), Err(FileError::Corrupt(_))),
                "{k}"
            );
        }
    }

    #[test]
    fn spans_must_be_packed_in_order() {
        // A span pointed at another position's (valid) distribution would answer for a
        // different position: the spans must follow one another as the writer packs them.
        let t = OneSided::build();
        let mut bytes = t.to_bytes();
        let span = |i: usize| HEADER + 8 + i * SPAN_BYTES;
        let other = bytes[span(4)..span(4) + 4].to_vec();
        bytes[span(2)..span(2) + 4].copy_from_slice(&other);
        reseal(&mut bytes);
        assert!(matches!(
            OneSided::from_bytes(&bytes),
            Err(FileError::Corrupt(_))
        ));
        // Shifting a distribution by a roll keeps its sum: the start of an empty board's
        // (all mass on 0 rolls) is checked.
        let mut bytes = t.to_bytes();
        bytes[span(0) + 4] = 1;
        reseal(&mut bytes);
        assert!(matches!(
            OneSided::from_bytes(&bytes),
            Err(FileError::Corrupt(_))
        ));
    }

    #[test]
    fn max_file_len_bounds_both_tables() {
        let one = OneSided::build().to_bytes().len();
        let two = TwoSided::build(true, &|_, _| {}).to_bytes().len();
        assert!(one <= MAX_FILE_LEN && two <= MAX_FILE_LEN, "{one} {two}");
        assert_eq!(two, HEADER + two_sided_payload_len(true));
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
