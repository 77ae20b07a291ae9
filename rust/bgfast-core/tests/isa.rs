//! The baseline builds (x86-64 baseline generator, SSE2 row writer) give the same output as
//! the builds the CPU chooses, byte for byte, on the wildbg corpora. A CPU with the faster
//! instructions would otherwise never run the code every other CPU runs. Alone in its binary:
//! forcing the baseline is process-wide.

mod common;

use bgfast_core::{isa, perft, rows, Dice, Position};
use common::corpus;

fn blocks() -> Vec<(Position, Dice)> {
    ["wildbg_contact.csv", "wildbg_race.csv"]
        .iter()
        .flat_map(|name| corpus(name))
        .flat_map(|p| Dice::ALL_21.map(|dice| (p, dice)))
        .collect()
}

/// Offsets and rows of every block, on one thread and on two.
fn output(blocks: &[(Position, Dice)]) -> [(Vec<i64>, Vec<u8>); 2] {
    let mut one = Vec::new();
    let offsets_one = rows::generate_rows(blocks.iter().copied(), &mut one, rows::grow).unwrap();
    let pool = bgfast_core::threads::pool(2).unwrap();
    let mut two = Vec::new();
    let offsets_two = pool
        .install(|| rows::par_generate_rows(blocks.len(), |b| blocks[b], &mut two, rows::grow))
        .unwrap();
    [(offsets_one, one), (offsets_two, two)]
}

#[test]
fn baseline_builds_give_the_same_rows_and_counts() {
    let blocks = blocks();
    let chosen = isa::report();
    let fast = output(&blocks);
    let fast_perft = perft(&Position::START, 2);
    isa::force_baseline(true);
    let baseline = isa::report();
    let slow = output(&blocks);
    let slow_perft = perft(&Position::START, 2);
    isa::force_baseline(false);
    assert!(baseline.forced_baseline && !chosen.forced_baseline);
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        (baseline.generator, baseline.row_writer),
        ("x86-64 baseline", "SSE2")
    );
    assert!(slow == fast, "the baseline builds wrote other rows");
    assert_eq!(slow[0], slow[1]);
    assert_eq!(slow_perft, fast_perft);
    println!(
        "compared {chosen:?} with {baseline:?} on {} blocks",
        blocks.len()
    );
}
