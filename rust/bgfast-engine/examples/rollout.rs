//! Rolls out the standard start:
//! `cargo run --release --example rollout -- [games] [policy] [threads]`, policy `wildbg`,
//! `pubeval`, `race` or `random`.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use bgfast_core::Position;
use bgfast_engine::cube::{Cube, CubeContext, MoneyRules, Stakes};
use bgfast_engine::net::Net;
use bgfast_engine::playout::{AnyPolicy, PolicyKind};
use bgfast_engine::rollout::{output, run, Branch, Player, RunError, Spec};

fn main() -> Result<(), RunError> {
    let args: Vec<String> = std::env::args().collect();
    let games: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let policy = args.get(2).map(String::as_str).unwrap_or("random");
    let threads: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let net = Net::wildbg();
    let player = || match policy {
        "wildbg" => Player::Net(net),
        name => Player::Policy(Box::new(AnyPolicy::builtin(
            PolicyKind::from_name(name).expect("policy: wildbg, pubeval, race or random"),
        ))),
    };
    let spec = Spec {
        seed: 1,
        quasi_random: true,
        truncate: None,
        bearoff: None,
        variance_reduction: false,
        evaluator: None,
        cube_life: None,
    };
    let context = CubeContext {
        stakes: Stakes::Money(MoneyRules::default()),
        cube: Cube::START,
    };
    let branches = [Branch::position(Position::START, context)];
    let t = Instant::now();
    let sums = run(
        &spec,
        &branches,
        player,
        0..games,
        threads,
        &AtomicBool::new(false),
    )?;
    let secs = t.elapsed().as_secs_f64();
    let (equity, stderr) = sums.branches[0].outputs[output::EQUITY].mean_and_stderr(sums.games);
    println!("equity {equity:+.4} (stderr {stderr:.4})");
    println!(
        "{games} {policy} games on {threads} thread(s): {:.0} games/s",
        games as f64 / secs
    );
    Ok(())
}
