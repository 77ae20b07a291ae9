//! The rows of every result of the wildbg corpora (all 21 rolls of each position), written by
//! `rows::generate_rows` on one thread and by `rows::par_generate_rows` on the 2-thread pool,
//! beside generation alone: what a `bgfast.batch.all_rolls` call does, without Python.
//!
//! `cargo bench -p bgfast-core --bench rows`
//!
//! Each bench checks the number of rows it writes before it is timed. The output buffer is
//! reused (warm) and backed by huge pages where Linux allows it, as the Python layer's pooled
//! buffers are (with 4 KiB pages, TLB misses cost a 1-thread contact pass about 7%).

use std::hint::black_box;

use bgfast_core::codec::gnubg_id;
use bgfast_core::rows::{self, ROW_BYTES};
use bgfast_core::{Dice, MoveList, Position};
use criterion::{Criterion, Throughput};

const CONTACT: &str = include_str!("../../../tests/data/wildbg_contact.csv");
const RACE: &str = include_str!("../../../tests/data/wildbg_race.csv");

/// Distinct results of all 21 rolls of each corpus position (see tests/corpus.rs).
const CONTACT_ROWS: usize = 218_356 + 185_957;
const RACE_ROWS: usize = 140_720 + 122_570;

fn positions(text: &str) -> Vec<Position> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|id| gnubg_id::decode(id).expect("corpus ID"))
        .collect()
}

fn bench_corpus(c: &mut Criterion, name: &str, text: &str, total: usize) {
    let positions = positions(text);
    let blocks = positions.len() * 21;
    let in_order = || {
        positions
            .iter()
            .flat_map(|&p| Dice::ALL_21.map(|dice| (p, dice)))
    };
    let block = |b: usize| (positions[b / 21], Dice::ALL_21[b % 21]);
    let pool = bgfast_core::threads::pool(2).expect("a 2-thread pool");
    let mut out = Vec::with_capacity(total * ROW_BYTES);
    advise_huge_pages(&out);
    let mut list = MoveList::new();

    let generated = in_order()
        .map(|(p, d)| {
            p.generate_moves(d, &mut list);
            list.len()
        })
        .sum::<usize>();
    assert_eq!(generated, total, "{name}: results");
    rows::generate_rows(in_order(), &mut out, rows::grow).expect("memory for the rows");
    assert_eq!(out.len(), total * ROW_BYTES, "{name}: rows, 1 thread");
    pool.install(|| rows::par_generate_rows(blocks, block, &mut out, rows::grow))
        .expect("memory for the rows");
    assert_eq!(out.len(), total * ROW_BYTES, "{name}: rows, 2 threads");

    let mut group = c.benchmark_group(format!("rows/{name}"));
    group.throughput(Throughput::Elements(blocks as u64));
    group.bench_function("generate only", |b| {
        b.iter(|| {
            for (p, d) in in_order() {
                p.generate_moves(d, &mut list);
                black_box(list.len());
            }
        })
    });
    group.bench_function("generate_rows", |b| {
        b.iter(|| black_box(rows::generate_rows(in_order(), &mut out, rows::grow).unwrap()))
    });
    group.bench_function("par_generate_rows, 2 threads", |b| {
        b.iter(|| {
            black_box(
                pool.install(|| rows::par_generate_rows(blocks, block, &mut out, rows::grow))
                    .unwrap(),
            )
        })
    });
    group.finish();
}

/// MADV_HUGEPAGE over the buffer's pages, as bgfast-py's output buffers get it.
fn advise_huge_pages(buffer: &Vec<u8>) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = buffer.as_ptr() as usize / PAGE * PAGE;
        let end = (buffer.as_ptr() as usize + buffer.capacity()).div_ceil(PAGE) * PAGE;
        // SAFETY: the range covers the buffer's own pages; the advice changes how the kernel
        // backs them, never their contents.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buffer;
}

/// Both corpora.
fn bench_rows(c: &mut Criterion) {
    bench_corpus(c, "contact", CONTACT, CONTACT_ROWS);
    bench_corpus(c, "race", RACE, RACE_ROWS);
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench_rows(&mut c);
    c.final_summary();
}
