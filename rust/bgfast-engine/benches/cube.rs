//! The cube model's speed: one cube decision as a cubeful rollout makes it
//! ([`CubeContext::decide`], the match terms worked out on the way) and many at the same
//! stakes ([`CubeModel::decide`], the terms kept), for money and for a 7-point match at
//! 5-away 4-away, over 1,000 chances from 0 to 1 (per decision).
//!
//! `cargo bench -p bgfast-engine --bench cube`. The match equity table is a synthetic
//! 25-point one (the speed does not depend on its values).

use std::hint::black_box;

use bgfast_engine::cube::{Cube, CubeContext, CubeModel, MatchScore, Met, MoneyRules, Stakes};
use bgfast_engine::Probabilities;
use criterion::{Criterion, Throughput};

/// A table symmetric in the two sides, falling with the points needed.
fn met() -> Met {
    let size = 25;
    let mut pre = vec![0.0; size * size];
    for a in 1..=size {
        for b in 1..=size {
            let d = b as f64 - a as f64;
            pre[(a - 1) * size + (b - 1)] = 1.0 / (1.0 + (-1.4 * d / (a + b) as f64).exp());
        }
    }
    let post = (1..=size).map(|n| 0.5f64.powi(n as i32 / 2 + 1)).collect();
    Met::new(pre, post).expect("a table of probabilities")
}

/// Chances from a sure loss to a sure win, with gammons both ways.
fn chances() -> Vec<Probabilities> {
    (0..1000)
        .map(|i| {
            let w = i as f32 / 999.0;
            Probabilities::from_array([w, w * 0.25, w * 0.01, (1.0 - w) * 0.2, (1.0 - w) * 0.01])
        })
        .collect()
}

fn main() {
    let met = met();
    let chances = chances();
    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("cube");
    g.throughput(Throughput::Elements(chances.len() as u64));
    let stakes = [
        ("money", Stakes::Money(MoneyRules::default())),
        (
            "match-5-4",
            Stakes::Match(MatchScore::new(&met, 5, 4, false).expect("a score")),
        ),
    ];
    for (name, stakes) in stakes {
        let context = CubeContext {
            stakes,
            cube: Cube::START,
        };
        g.bench_function(format!("decide/{name}"), |b| {
            b.iter(|| {
                for p in &chances {
                    black_box(context.decide(p, 0.68));
                }
            })
        });
        let model = CubeModel::new(context, 0.68);
        g.bench_function(format!("model/{name}"), |b| {
            b.iter(|| {
                for p in &chances {
                    black_box(model.decide(p));
                }
            })
        });
    }
    g.finish();
    c.final_summary();
}
