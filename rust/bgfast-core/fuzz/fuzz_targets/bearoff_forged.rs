//! Bear-off files forged from valid ones: bytes overwritten anywhere (header, index, values)
//! with the checksum recomputed or not. Never a panic, never a huge allocation; an accepted
//! table answers every lookup, and a file whose edits change nothing reads back exactly.
//!
//! Input: a byte choosing the kind and whether to reseal, then edits of 5 bytes each
//! (a little-endian u32 offset, reduced modulo the length, and the new byte).
#![no_main]

use bgfast_core::bearoff::file::fnv1a64;
use bgfast_core::bearoff::{OneSided, TwoSided};
use bgfast_core_fuzz::{exercise_one_sided, exercise_two_sided, tables};
use libfuzzer_sys::fuzz_target;

const HEADER: usize = 32;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, edits)) = data.split_first() else {
        return;
    };
    let (one, one_bytes, two, two_bytes) = tables();
    let two_kind = mode & 1 == 1;
    let good = if two_kind { two_bytes } else { one_bytes };
    let mut bytes = good.clone();
    // Edits land in the first 64 KiB unless bit 2 spreads them over the whole file.
    let span = if mode & 4 == 0 {
        bytes.len().min(65_536)
    } else {
        bytes.len()
    };
    for edit in edits.chunks_exact(5) {
        let at = u32::from_le_bytes([edit[0], edit[1], edit[2], edit[3]]) as usize % span;
        bytes[at] = edit[4];
    }
    if mode & 2 == 2 {
        let sum = fnv1a64(&bytes[HEADER..]);
        bytes[24..32].copy_from_slice(&sum.to_le_bytes());
    }
    let unchanged = bytes == *good;
    if two_kind {
        match TwoSided::from_bytes(&bytes) {
            Ok(t) if unchanged => assert!(t == *two),
            Ok(t) => exercise_two_sided(&t),
            Err(e) => assert!(!unchanged, "{e}"),
        }
        assert!(OneSided::from_bytes(&bytes).is_err());
    } else {
        match OneSided::from_bytes(&bytes) {
            Ok(t) if unchanged => assert!(t == *one),
            Ok(t) => exercise_one_sided(&t),
            Err(e) => assert!(!unchanged, "{e}"),
        }
        assert!(TwoSided::from_bytes(&bytes).is_err());
    }
});
