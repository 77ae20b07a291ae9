//! How fast result rows can be written, on 1 and on 2 threads, without generating them.
//!
//! `cargo run --release -p bgfast-core --example rows_bandwidth`
//!
//! Fills a 20 MiB buffer (the output of one `batch.all_rolls` call over the contact corpus)
//! with the rows of the contact corpus' results, written by `rows::write_keys` from keys
//! generated beforehand, split between the threads; then the same buffer with plain 16-byte
//! stores of a constant at the same 50-byte stride (the bytes the row writer stores, without
//! its arithmetic). Best of 50 passes each. If two threads are not faster than one, writing
//! the output is bound by the memory system, not by the code.

use std::mem::MaybeUninit;
use std::time::Instant;

use bgfast_core::codec::gnubg_id;
use bgfast_core::rows::{write_keys, ROW_BYTES};
use bgfast_core::{Dice, MoveList, Position};

const BUFFER: usize = 20 << 20;

/// The contact corpus' (origin, keys) lists, all 21 rolls of each position.
fn lists() -> Vec<(Position, Vec<u128>)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/wildbg_contact.csv"
    );
    let text = std::fs::read_to_string(path).expect("corpus");
    let mut list = MoveList::new();
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let position = gnubg_id::decode(line.trim()).expect("valid id");
        for dice in Dice::ALL_21 {
            position.generate_moves(dice, &mut list);
            out.push((position, list.keys().to_vec()));
        }
    }
    out
}

/// Writes rows into `dst` from the lists, cycling through them, until it is full.
fn fill_with_rows(dst: &mut [MaybeUninit<u8>], lists: &[(Position, Vec<u128>)]) {
    let mut at = 0;
    for (origin, keys) in lists.iter().cycle() {
        let bytes = keys.len() * ROW_BYTES;
        if at + bytes > dst.len() {
            return;
        }
        write_keys(origin, keys, &mut dst[at..at + bytes]);
        at += bytes;
    }
}

/// Four 16-byte stores per 50-byte row, as the row writer does, of a constant.
fn fill_with_stores(dst: &mut [MaybeUninit<u8>]) {
    let value = [MaybeUninit::new(3u8); 16];
    let mut at = 0;
    while at + 57 <= dst.len() {
        for offset in [0, 16, 25, 41] {
            dst[at + offset..at + offset + 16].copy_from_slice(&value);
        }
        at += ROW_BYTES;
    }
}

fn best_of(
    passes: usize,
    threads: usize,
    buffer: &mut [MaybeUninit<u8>],
    f: &(dyn Fn(&mut [MaybeUninit<u8>]) + Sync),
) -> f64 {
    let part = buffer.len() / threads;
    (0..passes)
        .map(|_| {
            let start = Instant::now();
            std::thread::scope(|s| {
                for piece in buffer.chunks_mut(part) {
                    s.spawn(move || f(piece));
                }
            });
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let lists = lists();
    let mut buffer = vec![MaybeUninit::new(0u8); BUFFER];
    let rows = |dst: &mut [MaybeUninit<u8>]| fill_with_rows(dst, &lists);
    for (name, f) in [
        (
            "rows::write_keys",
            &rows as &(dyn Fn(&mut [MaybeUninit<u8>]) + Sync),
        ),
        ("plain stores", &fill_with_stores),
    ] {
        let one = best_of(50, 1, &mut buffer, f);
        let two = best_of(50, 2, &mut buffer, f);
        println!(
            "{name}: 1 thread {:.3} ms ({:.1} GB/s), 2 threads {:.3} ms ({:.1} GB/s): {:.2}x",
            one * 1e3,
            BUFFER as f64 / one / 1e9,
            two * 1e3,
            BUFFER as f64 / two / 1e9,
            one / two
        );
    }
}
