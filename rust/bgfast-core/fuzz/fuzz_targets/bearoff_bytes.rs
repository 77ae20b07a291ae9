//! Bear-off file bytes, both kinds: any input is refused without a panic (the checksum and
//! the header checks stand in the way of accepting noise), and never makes the reader
//! allocate beyond the input's size (libFuzzer's -rss_limit_mb/-malloc_limit_mb catch that).
#![no_main]

use bgfast_core::bearoff::{OneSided, TwoSided};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let one = OneSided::from_bytes(data);
    let two = TwoSided::from_bytes(data);
    // An accepted input would have to be a real table with its checksum: not from noise.
    if let Ok(t) = one {
        bgfast_core_fuzz::exercise_one_sided(&t);
    }
    if let Ok(t) = two {
        bgfast_core_fuzz::exercise_two_sided(&t);
    }
});
