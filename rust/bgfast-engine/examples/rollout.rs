//! Rolls out the standard start: `cargo run --release --example rollout -- [games] [policy] [threads]`.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use bgfast_core::Position;
use bgfast_engine::playout::{PolicyKind, Rollout};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let games: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let policy = args.get(2).map(String::as_str).unwrap_or("random");
    let threads: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let kind = PolicyKind::from_name(policy).expect("policy: random or pubeval");
    let r = Rollout {
        position: Position::START,
        seed: 1,
        truncate: None,
        stratify: true,
    };
    let t = Instant::now();
    let tally = r.run_builtin(0..games, kind, threads, &AtomicBool::new(false));
    let secs = t.elapsed().as_secs_f64();
    println!("{tally:?}");
    println!(
        "{games} {policy} games on {threads} thread(s): {:.0} games/s",
        games as f64 / secs
    );
}
