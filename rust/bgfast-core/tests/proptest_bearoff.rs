//! Property tests of the bear-off file readers: arbitrary bytes, valid files with random
//! byte flips, and valid files with random header fields or forged content whose checksum
//! is recomputed. Never a panic, never more memory than the file's own size (measured by a
//! counting allocator), always an error or the exact table; a forged table that passes the
//! structure checks still answers every lookup without a panic.
//!
//! Quick by default; `PROPTEST_CASES=10000 cargo test --release --test proptest_bearoff`
//! searches harder.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::OnceLock;

use bgfast_core::bearoff::file::{fnv1a64, FileError, FORMAT_VERSION, MAGIC, MAX_FILE_LEN};
use bgfast_core::bearoff::{HomeBoard, OneSided, TwoSided, ONE_SIDED_POSITIONS};
use proptest::prelude::*;

/// Counts the bytes this thread asks for while `COUNTING` is set.
struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static REQUESTED: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    // `try_with`: the allocator runs during thread teardown too.
    let _ = COUNTING.try_with(|on| {
        if on.get() {
            let _ = REQUESTED.try_with(|r| r.set(r.get().saturating_add(size)));
        }
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size.saturating_sub(layout.size()));
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// `read(bytes)` and the bytes it allocated in all (freed or not).
fn measured<T>(bytes: &[u8], read: fn(&[u8]) -> T) -> (T, usize) {
    REQUESTED.with(|r| r.set(0));
    COUNTING.with(|on| on.set(true));
    let out = read(bytes);
    COUNTING.with(|on| on.set(false));
    (out, REQUESTED.with(|r| r.get()))
}

/// What a reader may allocate for a file of `len` bytes: the tables in memory are at most
/// about 1.3 times the file (spans are padded to 8 bytes, means are derived).
fn budget(len: usize) -> usize {
    2 * len
}

fn one_sided() -> &'static (OneSided, Vec<u8>) {
    static T: OnceLock<(OneSided, Vec<u8>)> = OnceLock::new();
    T.get_or_init(|| {
        let t = OneSided::build();
        let bytes = t.to_bytes();
        (t, bytes)
    })
}

fn two_sided() -> &'static (TwoSided, Vec<u8>) {
    static T: OnceLock<(TwoSided, Vec<u8>)> = OnceLock::new();
    T.get_or_init(|| {
        let t = TwoSided::build(true, &|_, _| {});
        let bytes = t.to_bytes();
        (t, bytes)
    })
}

const HEADER: usize = 32;

fn reseal(bytes: &mut [u8]) {
    if bytes.len() >= HEADER {
        let sum = fnv1a64(&bytes[HEADER..]);
        bytes[24..32].copy_from_slice(&sum.to_le_bytes());
    }
}

/// Every lookup of an accepted one-sided table answers (no panic, probabilities summing to 1).
fn exercise_one_sided(t: &OneSided) {
    for i in 0..ONE_SIDED_POSITIONS as u32 {
        let (start, probs) = t.rolls_slice(i);
        assert!(start + probs.len() <= bgfast_core::bearoff::MAX_ROLLS);
        let board = HomeBoard::from_index(i).unwrap();
        let _ = (t.rolls_distribution(board), t.gammon_distribution(board));
        let _ = (t.variance(i), t.epc(i), t.expected_rolls_to_first_off(i));
    }
    let all = HomeBoard::from_index(ONE_SIDED_POSITIONS as u32 - 1).unwrap();
    let _ = t.race_probabilities(all, all);
    let _ = t.best_play(all, 6, 5);
}

/// Reads `bytes` as both kinds: never a panic, never beyond the budget; `Ok` only for a
/// table that answers every lookup.
fn read_both(bytes: &[u8]) -> (Result<OneSided, FileError>, Result<TwoSided, FileError>) {
    let (one, used) = measured(bytes, OneSided::from_bytes);
    assert!(
        used <= budget(bytes.len()),
        "one-sided: {used} bytes for a {}-byte file",
        bytes.len()
    );
    let (two, used) = measured(bytes, TwoSided::from_bytes);
    assert!(
        used <= budget(bytes.len()),
        "two-sided: {used} bytes for a {}-byte file",
        bytes.len()
    );
    if let Ok(t) = &one {
        exercise_one_sided(t);
    }
    (one, two)
}

/// Header fields of the files, as (offset, width in bytes).
const FILE_FIELDS: [(usize, usize); 5] = [(8, 4), (12, 4), (16, 8), (24, 8), (0, 8)];
/// Fields at the start of both payloads: position count, value count or cubeful flag.
const PAYLOAD_FIELDS: [(usize, usize); 2] = [(HEADER, 4), (HEADER + 4, 4)];

fn set_field(bytes: &mut [u8], (at, width): (usize, usize), value: u64) {
    bytes[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
}

/// A header-like prefix (valid magic, version and kind, any length and checksum) before
/// arbitrary bytes, so that arbitrary input gets past the first checks.
fn plausible_bytes() -> impl Strategy<Value = Vec<u8>> {
    (
        1u32..=2,
        any::<bool>(),
        proptest::collection::vec(any::<u8>(), 0..2048),
    )
        .prop_map(|(kind, honest_length, tail)| {
            let mut bytes = MAGIC.to_vec();
            bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
            bytes.extend_from_slice(&kind.to_le_bytes());
            let len = if honest_length {
                tail.len().saturating_sub(16) as u64
            } else {
                u64::MAX
            };
            bytes.extend_from_slice(&len.to_le_bytes());
            bytes.extend_from_slice(&tail);
            if honest_length {
                reseal(&mut bytes);
            }
            bytes
        })
}

#[test]
fn max_file_len_bounds_what_is_written() {
    assert!(one_sided().1.len() <= MAX_FILE_LEN);
    assert!(two_sided().1.len() <= MAX_FILE_LEN);
}

#[test]
fn valid_files_read_back_exactly_within_budget() {
    // The counter sees the tables being allocated: at least the values' share of the file.
    let (t, bytes) = one_sided();
    let (_, used) = measured(bytes, OneSided::from_bytes);
    assert!(
        used >= bytes.len() / 2 && used <= budget(bytes.len()),
        "{used}"
    );
    let (one, two) = read_both(bytes);
    assert!(one.unwrap() == *t);
    assert_eq!(two.unwrap_err(), FileError::Kind { found: 1 });
    let (t, bytes) = two_sided();
    let (one, two) = read_both(bytes);
    assert!(two.unwrap() == *t);
    assert_eq!(one.unwrap_err(), FileError::Kind { found: 2 });
}

#[test]
fn forged_value_counts_allocate_nothing_big() {
    // Regression: 0xFFFFFFFF values with the checksum recomputed asked for 32 GB (abort).
    let mut bytes = one_sided().1.clone();
    for count in [u32::MAX, u32::MAX / 8, ONE_SIDED_POSITIONS as u32 * 64 + 1] {
        set_field(&mut bytes, PAYLOAD_FIELDS[1], count as u64);
        reseal(&mut bytes);
        let (one, _) = read_both(&bytes);
        assert!(matches!(one, Err(FileError::Corrupt(_))), "{count}");
        // The same header without the values: small file, small budget.
        let spans_only = &bytes[..HEADER + 8 + ONE_SIDED_POSITIONS * 12];
        let mut short = spans_only.to_vec();
        let payload = (short.len() - HEADER) as u64;
        set_field(&mut short, (16, 8), payload);
        reseal(&mut short);
        let (one, _) = read_both(&short);
        assert!(matches!(one, Err(FileError::Corrupt(_))), "{count}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_are_refused(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let (one, two) = read_both(&bytes);
        prop_assert!(one.is_err() && two.is_err());
    }

    #[test]
    fn plausible_headers_over_arbitrary_bytes_are_refused(bytes in plausible_bytes()) {
        let (one, two) = read_both(&bytes);
        prop_assert!(one.is_err() && two.is_err());
    }

    #[test]
    fn truncated_files_are_refused(cut in any::<prop::sample::Index>(), two in any::<bool>()) {
        let bytes = if two { &two_sided().1 } else { &one_sided().1 };
        let cut = cut.index(bytes.len());
        let (one, two) = read_both(&bytes[..cut]);
        prop_assert!(one.is_err() && two.is_err());
    }
}

proptest! {
    // Each case reads a whole file (3 to 17 MB): fewer cases.
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn byte_flips_are_refused(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..4),
        two in any::<bool>(),
    ) {
        let mut bytes = if two { two_sided().1.clone() } else { one_sided().1.clone() };
        for (at, mask) in &flips {
            let at = at.index(bytes.len());
            bytes[at] ^= mask;
        }
        // Flips can cancel out; otherwise the checksum (or a header check) refuses them.
        let unchanged = if two { bytes == two_sided().1 } else { bytes == one_sided().1 };
        let (one, other) = read_both(&bytes);
        if unchanged {
            prop_assert!(one.is_ok() || other.is_ok());
        } else {
            prop_assert!(one.is_err() && other.is_err());
        }
    }

    #[test]
    fn forged_header_fields_are_refused_or_exact(
        field in 0usize..FILE_FIELDS.len() + PAYLOAD_FIELDS.len() - 1,
        value in prop_oneof![any::<u64>(), 0u64..4, (0u64..64).prop_map(|k| k * 1_000_000)],
        two in any::<bool>(),
    ) {
        // Every header field except the checksum itself, which is recomputed after.
        let fields: Vec<_> = FILE_FIELDS.iter().chain(&PAYLOAD_FIELDS).copied().filter(|&f| f != (24, 8)).collect();
        let (at, width) = fields[field];
        let good = if two { &two_sided().1 } else { &one_sided().1 };
        let mut bytes = good.clone();
        let value = if width == 4 { value & 0xFFFF_FFFF } else { value };
        set_field(&mut bytes, (at, width), value);
        reseal(&mut bytes);
        let (one, other) = read_both(&bytes);
        if bytes == *good {
            let exact = if two {
                other.unwrap() == two_sided().0
            } else {
                one.unwrap() == one_sided().0
            };
            prop_assert!(exact);
        } else {
            prop_assert!(one.is_err() && other.is_err(), "field at {} = {}", at, value);
        }
    }

    #[test]
    fn forged_content_never_panics_and_an_accepted_table_answers(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        in_index in any::<bool>(),
        two in any::<bool>(),
    ) {
        // Bytes anywhere in the payload, or in the one-sided spans (the table's index),
        // overwritten and the checksum recomputed: a forgery, which FNV is not meant to
        // catch. The structure checks must refuse it or leave a table that answers.
        let good = if two { &two_sided().1 } else { &one_sided().1 };
        let mut bytes = good.clone();
        let spans = HEADER + 8..HEADER + 8 + ONE_SIDED_POSITIONS * 12;
        for (at, value) in &edits {
            let at = if in_index && !two {
                spans.start + at.index(spans.len())
            } else {
                HEADER + at.index(bytes.len() - HEADER)
            };
            bytes[at] = *value;
        }
        reseal(&mut bytes);
        let (one, other) = read_both(&bytes);
        if bytes == *good {
            prop_assert!(one.is_ok() || other.is_ok());
        } else if two {
            prop_assert!(one.is_err());
        } else {
            prop_assert!(other.is_err());
        }
    }
}
