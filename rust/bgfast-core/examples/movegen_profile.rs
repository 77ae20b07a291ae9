//! Runs the move generator over one wildbg corpus, every position and all 21 rolls, a given
//! number of times: a steady workload for `valgrind --tool=callgrind`, whose instruction
//! counts are stable on a busy machine where wall-clock times are not (see BENCHMARKS.md).
//!
//! ```text
//! cargo build --release -p bgfast-core --example movegen_profile
//! valgrind --tool=callgrind target/release/examples/movegen_profile contact 0   # loading only
//! valgrind --tool=callgrind target/release/examples/movegen_profile contact 1   # + one pass
//! ```
//! The difference of the two totals, divided by 21,000, is instructions per (position, roll).

use std::hint::black_box;
use std::time::Instant;

use bgfast_core::codec::gnubg_id;
use bgfast_core::{Dice, MoveList, Position};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let corpus = args.get(1).map_or("contact", String::as_str);
    let passes: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let path = format!(
        "{}/../../tests/data/wildbg_{corpus}.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let positions: Vec<Position> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| gnubg_id::decode(l.trim()).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    let mut list = MoveList::new();
    let mut best = f64::INFINITY;
    let mut total = 0;
    for _ in 0..passes {
        let start = Instant::now();
        total = 0;
        for pos in black_box(&positions) {
            for dice in Dice::ALL_21 {
                pos.generate_moves(dice, &mut list);
                total += list.len();
            }
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    if passes > 0 {
        let per_roll = best * 1e9 / (positions.len() * 21) as f64;
        println!(
            "{corpus}: {total} results, best of {passes}: {per_roll:.1} ns per (position, roll)"
        );
    }
}
