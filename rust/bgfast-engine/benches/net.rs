//! Net evaluation and play speed, on the shipped net ([`Net::wildbg`]: contact 202 -> 150
//! tanh -> 6 softmax, race 186 -> 16 tanh -> 6 softmax) and the wildbg corpora in
//! `tests/data/` (1,000 contact and 1,000 race positions).
//!
//! - `best/*`: [`Net::best`] on lists already generated (one roll per corpus position,
//!   rolls in turn); throughput is per candidate (result).
//! - `evaluate/*`: [`Evaluator::evaluate`] on the corpus, per position; `reference` is the
//!   scalar specification on the first 100 positions.
//! - `parallel/*`: [`Net::evaluate_parallel`] on 16 copies of the contact corpus, 1 and 2
//!   threads.
//!
//! `cargo bench -p bgfast-engine --bench net`; `BGFAST_ISA=baseline` measures the
//! portable build. A summary of nanoseconds per candidate / position ends the run.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bgfast_core::codec::gnubg_id;
use bgfast_core::{Dice, MoveList, Position};
use bgfast_engine::net::{self, Net};
use bgfast_engine::{Evaluator, Probabilities};
use criterion::{Criterion, Throughput};

const CONTACT: &str = include_str!("../../../tests/data/wildbg_contact.csv");
const RACE: &str = include_str!("../../../tests/data/wildbg_race.csv");

fn corpus(text: &str) -> Vec<Position> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|id| gnubg_id::decode(id).expect("corpus ID"))
        .collect()
}

/// One list per position (roll `k mod 21` for position `k`), forced plays left out as a
/// policy never sees them.
fn lists(positions: &[Position]) -> Vec<MoveList> {
    positions
        .iter()
        .enumerate()
        .map(|(k, pos)| pos.legal_moves(Dice::ALL_21[k % 21]))
        .filter(|list| list.len() >= 2)
        .collect()
}

/// The median and the fastest over `runs` of the nanoseconds per item of `f` (which does
/// `items` items): the machine may be shared, so both are reported.
fn median_ns(items: u64, runs: usize, mut f: impl FnMut()) -> Timing {
    f();
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_nanos() as f64 / items as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    Timing {
        median: times[runs / 2],
        min: times[0],
    }
}

/// As [`median_ns`] for `f(arg)` with each of `args`, their runs taken in turn (round
/// `r` runs every argument once) so that a host busy for a stretch slows them alike: what
/// a ratio between them needs.
fn interleaved_ns<const N: usize>(
    items: u64,
    runs: usize,
    args: [usize; N],
    mut f: impl FnMut(usize),
) -> [Timing; N] {
    let mut times = [(); N].map(|_| Vec::with_capacity(runs));
    for arg in args {
        f(arg);
    }
    for _ in 0..runs {
        for (k, arg) in args.into_iter().enumerate() {
            let t = Instant::now();
            f(arg);
            times[k].push(t.elapsed().as_nanos() as f64 / items as f64);
        }
    }
    times.map(|mut t| {
        t.sort_by(f64::total_cmp);
        Timing {
            median: t[runs / 2],
            min: t[0],
        }
    })
}

/// Nanoseconds per item.
#[derive(Clone, Copy)]
struct Timing {
    median: f64,
    min: f64,
}

impl std::fmt::Display for Timing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.1} (min {:.1})", self.median, self.min)
    }
}

/// What every measurement reads: the net, the corpora, one list per position, and 16
/// copies of the contact corpus for the parallel runs.
struct Fixture {
    net: &'static Net,
    contact: Vec<Position>,
    race: Vec<Position>,
    contact_lists: Vec<MoveList>,
    race_lists: Vec<MoveList>,
    big: Vec<Position>,
}

impl Fixture {
    fn new() -> Fixture {
        let contact = corpus(CONTACT);
        let race = corpus(RACE);
        Fixture {
            net: Net::wildbg(),
            contact_lists: lists(&contact),
            race_lists: lists(&race),
            big: (0..16).flat_map(|_| contact.iter().copied()).collect(),
            contact,
            race,
        }
    }

    /// Candidates in `(contact_lists, race_lists)`.
    fn candidates(&self) -> (u64, u64) {
        let count = |lists: &[MoveList]| lists.iter().map(|l| l.len() as u64).sum::<u64>();
        (count(&self.contact_lists), count(&self.race_lists))
    }
}

fn main() {
    let fixture = Fixture::new();

    // NET_BENCH_SUMMARY=1: only the summary (quick comparisons while optimizing).
    let summary_only = std::env::var("NET_BENCH_SUMMARY").is_ok_and(|v| v == "1");
    let mut c = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20);

    if !summary_only {
        criterion_groups(&mut c, &fixture);
        c.final_summary();
        // A name filter (or --profile-time) runs only what it selects: no summary.
        if std::env::args()
            .skip(1)
            .any(|a| !a.starts_with('-') || a == "--profile-time")
        {
            return;
        }
    }
    summary(&fixture);
}

fn criterion_groups(c: &mut Criterion, fixture: &Fixture) {
    let Fixture {
        net,
        contact,
        race,
        contact_lists,
        race_lists,
        big,
    } = fixture;
    let (contact_candidates, race_candidates) = fixture.candidates();
    let mut out = vec![Probabilities::default(); big.len()];
    let mut g = c.benchmark_group("best");
    g.throughput(Throughput::Elements(contact_candidates));
    g.bench_function("contact", |b| {
        b.iter(|| {
            contact_lists
                .iter()
                .filter_map(|l| net.best(black_box(l)))
                .sum::<usize>()
        })
    });
    g.throughput(Throughput::Elements(race_candidates));
    g.bench_function("race", |b| {
        b.iter(|| {
            race_lists
                .iter()
                .filter_map(|l| net.best(black_box(l)))
                .sum::<usize>()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("evaluate");
    for (name, positions) in [("contact", contact), ("race", race)] {
        g.throughput(Throughput::Elements(positions.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| net.evaluate(black_box(positions), &mut out[..positions.len()]))
        });
    }
    g.throughput(Throughput::Elements(100));
    g.bench_function("reference", |b| {
        b.iter(|| {
            contact[..100]
                .iter()
                .map(|p| net.evaluate_reference(black_box(p)).win)
                .sum::<f32>()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("parallel");
    g.throughput(Throughput::Elements(big.len() as u64));
    for threads in [1, 2] {
        g.bench_function(format!("{threads} threads"), |b| {
            b.iter(|| net.evaluate_parallel(black_box(big), &mut out, threads))
        });
    }
    g.finish();
}

/// Medians of plain timed runs, printed.
fn summary(fixture: &Fixture) {
    let Fixture {
        net,
        contact,
        race,
        contact_lists,
        race_lists,
        big,
    } = fixture;
    let (contact_candidates, race_candidates) = fixture.candidates();
    let mut out = vec![Probabilities::default(); big.len()];

    let best_contact = median_ns(contact_candidates, 21, || {
        black_box(
            contact_lists
                .iter()
                .filter_map(|l| net.best(l))
                .sum::<usize>(),
        );
    });
    let best_race = median_ns(race_candidates, 21, || {
        black_box(race_lists.iter().filter_map(|l| net.best(l)).sum::<usize>());
    });
    let mut list = MoveList::new();
    let gen_best = median_ns(contact_candidates, 21, || {
        let mut sum = 0;
        for (k, pos) in contact.iter().enumerate() {
            pos.generate_moves(Dice::ALL_21[k % 21], &mut list);
            if list.len() >= 2 {
                sum += net.best(&list).expect("two results or more");
            }
        }
        black_box(sum);
    });
    let eval_contact = median_ns(contact.len() as u64, 21, || {
        net.evaluate(contact, &mut out[..contact.len()])
    });
    let eval_race = median_ns(race.len() as u64, 21, || {
        net.evaluate(race, &mut out[..race.len()])
    });
    let reference = median_ns(100, 5, || {
        black_box(
            contact[..100]
                .iter()
                .map(|p| net.evaluate_reference(p).win)
                .sum::<f32>(),
        );
    });
    let par = interleaved_ns(big.len() as u64, 15, [1, 2], |threads| {
        net.evaluate_parallel(big, &mut out, threads)
    });
    println!("\nnet build: {} (medians, ns)", net::isa_name());
    println!(
        "best: {best_contact} per contact candidate ({} lists, {contact_candidates} \
         candidates), {best_race} per race candidate",
        contact_lists.len()
    );
    println!("generate + best: {gen_best} per contact candidate");
    println!(
        "evaluate: {eval_contact} per contact position, {eval_race} per race position; \
         reference {reference}"
    );
    println!(
        "evaluate_parallel: {} per position on 1 thread, {} on 2 ({:.2}x by medians, \
         {:.2}x by minima; runs interleaved)",
        par[0],
        par[1],
        par[0].median / par[1].median,
        par[0].min / par[1].min
    );
}
