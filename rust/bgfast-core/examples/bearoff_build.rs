//! Times the bear-off builders:
//! `cargo run --release --example bearoff_build -- [one|two|two-cubeful|all] [threads]`.

use std::time::Instant;

use bgfast_core::bearoff::{OneSided, TwoSided};

fn main() {
    let what = std::env::args().nth(1).unwrap_or_else(|| "all".into());
    let threads: usize = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    pool.install(|| {
        if what == "one" || what == "all" {
            let t = Instant::now();
            let one = OneSided::build();
            println!(
                "one-sided: {:.3} s ({} positions)",
                t.elapsed().as_secs_f64(),
                one.len()
            );
        }
        if what == "two" || what == "all" {
            let t = Instant::now();
            let two = TwoSided::build(false, &|_, _| {});
            println!("two-sided cubeless: {:.3} s", t.elapsed().as_secs_f64());
            assert!(two.win_probability_by_index(1, 923) == 1.0);
        }
        if what == "two-cubeful" || what == "all" {
            let t = Instant::now();
            let two = TwoSided::build(true, &|_, _| {});
            println!(
                "two-sided cubeless + cubeful: {:.3} s",
                t.elapsed().as_secs_f64()
            );
            assert!(two.has_cubeful());
        }
    });
}
