//! The Rust-side cost that `bgfast.batch` is measured against: CPU time per (position, roll)
//! on the wildbg corpora for generation alone, and for generation plus writing every result
//! in the `(2, 25)` uint8 layout (what a batch call does, less the Python boundary).
//!
//! `cargo run --release -p bgfast-py --example movegen_rate`
//!
//! Times are this thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), the best of 30
//! passes, so other processes on a busy machine inflate them less than wall time.

use std::time::Instant;

use bgfast_core::codec::gnubg_id;
use bgfast_core::rows::{self, ROW_BYTES};
use bgfast_core::{Dice, MoveList, Position};

/// This thread's CPU time in ns (`CLOCK_THREAD_CPUTIME_ID`), or wall time off Linux.
fn cpu_ns(start: Instant) -> u64 {
    #[cfg(target_os = "linux")]
    {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid timespec for the call to fill.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0 {
            return t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64;
        }
    }
    start.elapsed().as_nanos() as u64
}

fn main() {
    for name in ["contact", "race"] {
        let path = format!(
            "{}/../../tests/data/wildbg_{name}.csv",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).expect("corpus");
        let positions: Vec<Position> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| gnubg_id::decode(l.trim()).expect("valid id"))
            .collect();
        let mut list = MoveList::new();
        let lists = (positions.len() * 21) as f64;
        let mut total = 0;
        for p in &positions {
            for d in Dice::ALL_21 {
                p.generate_moves(d, &mut list);
                total += list.len();
            }
        }
        // The passes alternate so that a busy machine slows them alike; the output buffer is
        // reused (warm), so page faults on fresh memory are not counted.
        let origin = Instant::now();
        let [mut generate, mut write] = [f64::INFINITY; 2];
        let [mut wall_one, mut wall_two] = [f64::INFINITY; 2];
        let mut out: Vec<u8> = Vec::with_capacity(total * ROW_BYTES);
        let block = |b: usize| (positions[b / 21], Dice::ALL_21[b % 21]);
        let blocks = positions.len() * 21;
        let two = bgfast_core::threads::pool(2).expect("a 2-thread pool");
        for _ in 0..30 {
            let t = cpu_ns(origin);
            let mut n = 0;
            for p in &positions {
                for d in Dice::ALL_21 {
                    p.generate_moves(d, &mut list);
                    n += list.len();
                }
            }
            assert_eq!(n, total);
            generate = generate.min((cpu_ns(origin) - t) as f64);
            let (t, wall) = (cpu_ns(origin), Instant::now());
            let in_order = positions
                .iter()
                .flat_map(|&p| Dice::ALL_21.map(|dice| (p, dice)));
            rows::generate_rows(in_order, &mut out, rows::grow).expect("memory for the rows");
            write = write.min((cpu_ns(origin) - t) as f64);
            wall_one = wall_one.min(wall.elapsed().as_nanos() as f64);
            assert_eq!(out.len(), total * ROW_BYTES);
            let wall = Instant::now();
            two.install(|| rows::par_generate_rows(blocks, block, &mut out, rows::grow))
                .expect("memory for the rows");
            wall_two = wall_two.min(wall.elapsed().as_nanos() as f64);
            assert_eq!(out.len(), total * ROW_BYTES);
        }
        println!(
            "{name}: {lists} (position, roll) lists, {total} results; generate {:.0} ns/list \
             ({:.2} M lists/s); generate + write rows {:.0} ns/list ({:.2} M lists/s); \
             wall, 1 thread {:.3} ms, 2 threads {:.3} ms: {:.2}x",
            generate / lists,
            lists / generate * 1e3,
            write / lists,
            lists / write * 1e3,
            wall_one / 1e6,
            wall_two / 1e6,
            wall_one / wall_two,
        );
    }
}
