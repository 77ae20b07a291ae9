//! Move generation speed, side by side with the `bkgm` crate (0.6) on the same inputs.
//!
//! Corpora: the wildbg contact and race positions in `tests/data/` (1,000 each, every one of
//! the 21 distinct rolls), the start position per roll, and perft depth 3 from the start.
//! Every bench asserts the count it measures before timing it, so a faster wrong generator
//! cannot pass. bkgm is driven through its public API (`legal_positions_with`, one `Vec` per
//! call, with mimalloc as the global allocator exactly as its own benches do); its counts are
//! printed, and a difference from ours is reported rather than asserted.
//!
//! `cargo bench -p bgfast-core --bench movegen` runs everything and ends with a summary of
//! nanoseconds per (position, roll) and the bkgm/bgfast ratio.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bgfast_core::codec::gnubg_id;
use bgfast_core::{perft, Dice, MoveList, Position};
use bkgm::codecs::gnuid;
use bkgm::{ClassicRules, PositionRules};
use criterion::{BenchmarkId, Criterion, Throughput};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

type BkPosition = bkgm::Position<15>;

const CONTACT: &str = include_str!("../../../tests/data/wildbg_contact.csv");
const RACE: &str = include_str!("../../../tests/data/wildbg_race.csv");

/// (doubles, non-doubles) totals of distinct results: see tests/corpus.rs.
const CONTACT_TOTALS: (usize, usize) = (218_356, 185_957);
const RACE_TOTALS: (usize, usize) = (140_720, 122_570);
const START_TOTAL: usize = 447;
const PERFT_3: u64 = 116_154_993;

struct Corpus {
    name: &'static str,
    ids: Vec<&'static str>,
    ours: Vec<Position>,
    theirs: Vec<BkPosition>,
    totals: (usize, usize),
}

impl Corpus {
    fn load(name: &'static str, text: &'static str, totals: (usize, usize)) -> Corpus {
        let ids: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let ours = ids
            .iter()
            .map(|id| gnubg_id::decode(id).expect("corpus ID"))
            .collect();
        let theirs = ids
            .iter()
            .map(|id| gnuid::decode_position::<15>(id).expect("corpus ID"))
            .collect();
        Corpus {
            name,
            ids,
            ours,
            theirs,
            totals,
        }
    }

    fn lookups(&self) -> u64 {
        (self.ours.len() * 21) as u64
    }
}

fn bk_dice(dice: Dice) -> bkgm::Dice {
    bkgm::Dice::new(dice.high().pips() as usize, dice.low().pips() as usize)
}

/// Our totals over every position and roll, (doubles, non-doubles). Never inlined, so that
/// every measurement below times the same machine code.
#[inline(never)]
fn ours_all21(positions: &[Position], list: &mut MoveList) -> (usize, usize) {
    let (mut doubles, mut others) = (0, 0);
    for pos in positions {
        for dice in Dice::ALL_21 {
            pos.generate_moves(dice, list);
            if dice.is_double() {
                doubles += list.len();
            } else {
                others += list.len();
            }
        }
    }
    (doubles, others)
}

/// bkgm's totals over every position and roll, (doubles, non-doubles).
#[inline(never)]
fn theirs_all21(positions: &[BkPosition]) -> (usize, usize) {
    let (mut doubles, mut others) = (0, 0);
    for pos in positions {
        for dice in Dice::ALL_21 {
            let n = ClassicRules::legal_positions(*pos, &bk_dice(dice)).len();
            if dice.is_double() {
                doubles += n;
            } else {
                others += n;
            }
        }
    }
    (doubles, others)
}

fn theirs_perft(position: &BkPosition, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    for dice in Dice::ALL_21 {
        let children = ClassicRules::legal_positions(*position, &bk_dice(dice));
        if depth == 1 {
            total += children.len() as u64;
        } else {
            total += children
                .iter()
                .map(|c| theirs_perft(c, depth - 1))
                .sum::<u64>();
        }
    }
    total
}

/// bkgm's totals with repeated results removed (each call's children put in a set).
fn theirs_all21_distinct(positions: &[BkPosition]) -> (usize, usize) {
    let (mut doubles, mut others) = (0, 0);
    for pos in positions {
        for dice in Dice::ALL_21 {
            let children = ClassicRules::legal_positions(*pos, &bk_dice(dice));
            let n = children
                .iter()
                .collect::<std::collections::HashSet<_>>()
                .len();
            if dice.is_double() {
                doubles += n;
            } else {
                others += n;
            }
        }
    }
    (doubles, others)
}

/// Whether bkgm's counts agree with ours, printed once per corpus.
fn check_theirs(corpus: &Corpus) -> bool {
    let theirs = theirs_all21(&corpus.theirs);
    let agree = theirs == corpus.totals;
    println!(
        "{}: bgfast (doubles, non-doubles) = {:?}, bkgm = {:?}{}",
        corpus.name,
        corpus.totals,
        theirs,
        if agree { " (agree)" } else { " (DIFFER)" }
    );
    if !agree {
        let distinct = theirs_all21_distinct(&corpus.theirs);
        println!(
            "  bkgm lists some results twice: {:?} once repeats are removed ({})",
            distinct,
            if distinct == corpus.totals {
                "equal to bgfast"
            } else {
                "still different"
            }
        );
        report_first_difference(corpus);
    }
    agree
}

fn report_first_difference(corpus: &Corpus) {
    let mut list = MoveList::new();
    for ((id, ours), theirs) in corpus.ids.iter().zip(&corpus.ours).zip(&corpus.theirs) {
        for dice in Dice::ALL_21 {
            ours.generate_moves(dice, &mut list);
            let n = ClassicRules::legal_positions(*theirs, &bk_dice(dice)).len();
            if n != list.len() {
                println!(
                    "  first difference: {id} roll {dice}: bgfast {} bkgm {n}",
                    list.len()
                );
                return;
            }
        }
    }
}

fn bench_corpus(c: &mut Criterion, corpus: &Corpus) {
    let mut list = MoveList::new();
    assert_eq!(
        ours_all21(&corpus.ours, &mut list),
        corpus.totals,
        "{}",
        corpus.name
    );
    let mut group = c.benchmark_group(format!("movegen/{}", corpus.name));
    group.throughput(Throughput::Elements(corpus.lookups()));
    group.bench_function("bgfast", |b| {
        b.iter(|| black_box(ours_all21(black_box(&corpus.ours), &mut list)))
    });
    group.bench_function("bkgm", |b| {
        b.iter(|| black_box(theirs_all21(black_box(&corpus.theirs))))
    });
    group.finish();
}

fn bench_start(c: &mut Criterion) {
    let start = Position::START;
    let bk_start = bkgm::BACKGAMMON;
    let mut list = MoveList::new();
    let total: usize = Dice::ALL_21
        .iter()
        .map(|&d| {
            start.generate_moves(d, &mut list);
            list.len()
        })
        .sum();
    assert_eq!(total, START_TOTAL);
    let mut group = c.benchmark_group("movegen/start");
    group
        .measurement_time(Duration::from_secs(1))
        .warm_up_time(Duration::from_millis(300));
    for dice in Dice::ALL_21 {
        start.generate_moves(dice, &mut list);
        let expected = list.len();
        group.bench_with_input(BenchmarkId::new("bgfast", dice), &dice, |b, &d| {
            b.iter(|| {
                black_box(&start).generate_moves(black_box(d), &mut list);
                assert_eq!(list.len(), expected);
            })
        });
    }
    group.bench_function("bgfast/all21", |b| {
        b.iter(|| black_box(ours_all21(black_box(&[start]), &mut list)))
    });
    group.bench_function("bkgm/all21", |b| {
        b.iter(|| black_box(theirs_all21(black_box(&[bk_start]))))
    });
    group.finish();
}

fn bench_perft(c: &mut Criterion) {
    let theirs = theirs_perft(&bkgm::BACKGAMMON, 3);
    println!("perft 3: bgfast {PERFT_3}, bkgm {theirs}");
    let mut group = c.benchmark_group("perft/start");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8));
    group.bench_function("bgfast/depth3", |b| {
        b.iter(|| assert_eq!(perft(black_box(&Position::START), 3), PERFT_3))
    });
    group.bench_function("bkgm/depth3", |b| {
        b.iter(|| assert_eq!(theirs_perft(black_box(&bkgm::BACKGAMMON), 3), theirs))
    });
    group.finish();
}

/// The best time of `f` and of `g`, in seconds, over `rounds` rounds that run one after the
/// other, so that both see the same load on a shared machine.
fn best_of_interleaved(rounds: usize, mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, f64) {
    let time = |h: &mut dyn FnMut()| {
        let t = Instant::now();
        h();
        t.elapsed().as_secs_f64()
    };
    let (mut best_f, mut best_g) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..rounds {
        best_f = best_f.min(time(&mut f));
        best_g = best_g.min(time(&mut g));
    }
    (best_f, best_g)
}

/// The best of `rounds` timed runs of `f`, in seconds.
fn best_of(rounds: usize, mut f: impl FnMut()) -> f64 {
    best_of_interleaved(rounds, &mut f, || {}).0
}

/// A plain side-by-side table, easier to quote than criterion's: each library alone (best of
/// 60 runs: the least disturbed by other jobs), and the ratio from runs that alternate between
/// the two (so both see the same load; running bkgm in between costs bgfast a few percent of
/// cache and branch-predictor warmth, so the interleaved ratio is the conservative one).
fn summary(corpora: &[Corpus], agree: &[bool]) {
    println!("\nsummary (one thread; best of 60 runs alone, ratio from 30 interleaved rounds):");
    println!(
        "{:<10} {:>16} {:>16} {:>12} {:>12}",
        "corpus", "bgfast ns/roll", "bkgm ns/roll", "ratio alone", "interleaved"
    );
    let mut list = MoveList::new();
    for (corpus, &agree) in corpora.iter().zip(agree) {
        let mut ours = || {
            black_box(ours_all21(black_box(&corpus.ours), &mut list));
        };
        let theirs = || {
            black_box(theirs_all21(black_box(&corpus.theirs)));
        };
        let ours_alone = best_of(60, &mut ours);
        let theirs_alone = best_of(60, theirs);
        let (ours_mixed, theirs_mixed) = best_of_interleaved(30, &mut ours, theirs);
        let per = |s: f64| s * 1e9 / corpus.lookups() as f64;
        println!(
            "{:<10} {:>16.1} {:>16.1} {:>11.2}x {:>11.2}x{}",
            corpus.name,
            per(ours_alone),
            per(theirs_alone),
            theirs_alone / ours_alone,
            theirs_mixed / ours_mixed,
            if agree {
                ""
            } else {
                "  (bkgm repeats some results)"
            }
        );
    }
    let ours = best_of(3, || assert_eq!(perft(&Position::START, 3), PERFT_3));
    let theirs = best_of(3, || {
        black_box(theirs_perft(&bkgm::BACKGAMMON, 3));
    });
    println!(
        "{:<10} {:>15.3}s {:>15.3}s {:>11.2}x",
        "perft3",
        ours,
        theirs,
        theirs / ours
    );
}

fn main() {
    let corpora = [
        Corpus::load("contact", CONTACT, CONTACT_TOTALS),
        Corpus::load("race", RACE, RACE_TOTALS),
    ];
    let agree: Vec<bool> = corpora.iter().map(check_theirs).collect();
    let mut c = Criterion::default().configure_from_args();
    for corpus in &corpora {
        bench_corpus(&mut c, corpus);
    }
    bench_start(&mut c);
    bench_perft(&mut c);
    c.final_summary();
    // `cargo bench` passes --bench; `cargo test --benches` (--test) and runs filtered to some
    // benches (a plain argument) skip the summary.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filtered = args.iter().any(|a| !a.starts_with('-'));
    if args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--test") && !filtered {
        summary(&corpora, &agree);
    }
}
