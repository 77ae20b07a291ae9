//! The rows of every result of many blocks (a block is one position and one roll), in one
//! flat buffer, block after block: on the calling thread ([`generate_rows`]) or on every
//! worker of the current rayon pool ([`par_generate_rows`]), with the same output.
//!
//! The parallel version makes one pass over the blocks, with no barrier. Workers claim
//! chunks of blocks in order, generate a chunk's result keys straight into a small stash, and
//! publish how many rows it has. A chunk's first row is the number of rows of all the chunks
//! before it, found by looking back from it to the nearest chunk whose end is known (the
//! "decoupled look-back" of single-pass parallel prefix sums): usually the chunk just before.
//! As soon as it is known, the worker that generated the chunk writes its offsets and rows,
//! from keys still in its own cache. A chunk that must wait for an earlier one stays stashed
//! while its worker goes on to the next, up to [`MAX_PENDING`] chunks.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::{write_keys, ROW_BYTES};
use crate::movegen::{generate_keys, BUFFER};
use crate::{Dice, MoveList, Position};

/// Blocks per chunk: enough that claiming and placing a chunk (a few cache lines passed
/// between cores) costs little beside generating it (256 blocks ran 2% faster than 128 on
/// two threads), few enough that a chunk's keys (about 16 results a block, 16 bytes each)
/// stay in a core's L2 cache and that the workers finish at nearly the same time.
const CHUNK: usize = 256;
/// The chunks a worker may hold generated but not yet written, waiting for an earlier chunk:
/// bounds what a slow (or descheduled) worker can make the others keep.
const MAX_PENDING: usize = 4;
/// The most offsets [`generate_rows`] allocates up front from its blocks' size hint.
const PREALLOCATED_OFFSETS: usize = 1 << 16;

thread_local! {
    static LIST: RefCell<MoveList> = RefCell::new(MoveList::new());
    static SPARE_STASHES: RefCell<Vec<Stash>> = const { RefCell::new(Vec::new()) };
}

/// Generates the results of each block (a position and a roll) of `blocks`, and writes the
/// row of each result ([`super::row`] of [`crate::MoveList::result`]) into `rows`, replacing
/// its contents: block after block, each block's results in [`crate::MoveList`] order.
/// Returns the offsets, one more than there are blocks: block `b`'s rows are rows
/// `offsets[b]..offsets[b + 1]`.
///
/// `rows` grows through `reserve(rows, additional)`, which must leave room for at least
/// `additional` more bytes, keeping the bytes `rows` holds (the call panics if it changes
/// their length), or fail ([`grow`] is `Vec::try_reserve`); the Python layer uses
/// it to ask for huge pages. The output's size depends on the blocks, so growing may fail
/// for want of memory: the call then returns that error (with `rows` holding the rows
/// written so far) instead of aborting the process.
///
/// ```
/// use bgfast_core::{rows, Dice, Position};
///
/// let rolls = [Dice::from_pips(3, 1).unwrap(), Dice::from_pips(6, 6).unwrap()];
/// let blocks = rolls.map(|dice| (Position::START, dice));
/// let mut out = Vec::new();
/// let offsets = rows::generate_rows(blocks, &mut out, rows::grow).unwrap();
/// assert_eq!(offsets, [0, 16, 27]); // 16 results for 31, 11 for 66
/// assert_eq!(out.len(), 27 * rows::ROW_BYTES);
/// ```
pub fn generate_rows<E>(
    blocks: impl IntoIterator<Item = (Position, Dice)>,
    rows: &mut Vec<u8>,
    mut reserve: impl FnMut(&mut Vec<u8>, usize) -> Result<(), E>,
) -> Result<Vec<i64>, E> {
    let blocks = blocks.into_iter();
    rows.clear();
    // The hint only sizes the first allocation: an iterator may promise more blocks than
    // memory holds (or usize::MAX), and the rows, not the offsets, should run out first.
    let hint = blocks.size_hint().0.min(PREALLOCATED_OFFSETS);
    let mut offsets = Vec::with_capacity(hint + 1);
    offsets.push(0i64);
    LIST.with_borrow_mut(|list| {
        for (position, dice) in blocks {
            position.generate_moves(dice, list);
            let bytes = list.len() * ROW_BYTES;
            if rows.capacity() - rows.len() < bytes {
                let len = rows.len();
                reserve(rows, bytes)?;
                assert_eq!(rows.len(), len, "reserve changed the rows' length");
                assert!(
                    rows.capacity() - rows.len() >= bytes,
                    "reserve left too little room"
                );
            }
            write_keys(
                &position,
                list.keys(),
                &mut rows.spare_capacity_mut()[..bytes],
            );
            let len = rows.len() + bytes;
            // SAFETY: write_keys initialised the `bytes` bytes after the old length.
            unsafe { rows.set_len(len) };
            offsets.push((len / ROW_BYTES) as i64);
        }
        Ok(())
    })?;
    Ok(offsets)
}

/// Grows `rows` by at least `additional` bytes, failing instead of aborting when memory
/// runs out: the plain `reserve` argument of [`generate_rows`] and [`par_generate_rows`].
pub fn grow(
    rows: &mut Vec<u8>,
    additional: usize,
) -> Result<(), std::collections::TryReserveError> {
    rows.try_reserve(additional)
}

/// [`generate_rows`] of blocks `0..n`, block `b` being `block(b)`, on every worker of the
/// current rayon pool (run it inside [`rayon::ThreadPool::install`]; elsewhere it uses
/// rayon's global pool). The output is the same, byte for byte.
///
/// Beside the output it needs a few small stashes per worker. The workers cannot move the
/// output while they write into it, so when the rows outgrow `rows`'s capacity they stop
/// claiming chunks, and once every claimed chunk is generated, the calling thread grows
/// `rows` (through `reserve`, to a guess of the whole output from the part done) and writes
/// the chunks that did not fit; then the workers go on. Give `rows` a capacity near the
/// expected output, and that pause never comes.
pub fn par_generate_rows<F, E>(
    n: usize,
    block: F,
    rows: &mut Vec<u8>,
    reserve: impl FnMut(&mut Vec<u8>, usize) -> Result<(), E>,
) -> Result<Vec<i64>, E>
where
    F: Fn(usize) -> (Position, Dice) + Sync,
{
    let never = AtomicBool::new(false);
    let offsets = par_generate_rows_until(n, block, rows, reserve, &never)?;
    Ok(offsets.expect("never stopped"))
}

/// [`par_generate_rows`] that stops early once `stop` is set (the workers check it before
/// each chunk of blocks): for a caller that must be interruptible, as the Python layer is
/// on Ctrl-C. Returns `Ok(None)` if it stopped before the rows of every block were written
/// (`rows` then holds those of a prefix of the blocks), else the offsets.
pub fn par_generate_rows_until<F, E>(
    n: usize,
    block: F,
    rows: &mut Vec<u8>,
    mut reserve: impl FnMut(&mut Vec<u8>, usize) -> Result<(), E>,
    stop: &AtomicBool,
) -> Result<Option<Vec<i64>>, E>
where
    F: Fn(usize) -> (Position, Dice) + Sync,
{
    rows.clear();
    let chunks = n.div_ceil(CHUNK);
    let pass = Pass {
        block: &block,
        n,
        stop,
        next: AtomicUsize::new(0),
        states: (0..chunks)
            .map(|_| State(AtomicU64::new(NOT_COUNTED)))
            .collect(),
        offsets: (0..=n).map(|_| AtomicI64::new(0)).collect(),
        late: Mutex::new(Vec::new()),
        full: AtomicBool::new(false),
        failed: AtomicBool::new(false),
    };
    loop {
        let room = Room {
            out: Out(rows.as_mut_ptr().cast::<MaybeUninit<u8>>()),
            capacity: rows.capacity() / ROW_BYTES,
        };
        // One share per worker, as tasks rather than a broadcast: a worker busy elsewhere
        // leaves its share to the others instead of holding the call up.
        rayon::scope(|scope| {
            for _ in 1..rayon::current_num_threads() {
                scope.spawn(|_| pass.work(&room));
            }
            pass.work(&room);
        });
        let late = std::mem::take(&mut *pass.late.lock().unwrap_or_else(|e| e.into_inner()));
        // Every claimed chunk is placed: those that did not fit are the last ones.
        let claimed = pass.next.load(Ordering::Relaxed).min(chunks);
        let done = pass
            .start_of(claimed)
            .expect("every claimed chunk is counted");
        let fitted = late.iter().map(|(start, _)| *start).min().unwrap_or(done);
        // SAFETY: the rows before `fitted` belong to chunks that fitted, each written by its
        // worker before the scope ended.
        unsafe { rows.set_len(fitted * ROW_BYTES) };
        if late.is_empty() {
            break;
        }
        if stop.load(Ordering::Relaxed) {
            // No use growing the output for rows the caller will not read.
            for (_, stash) in late {
                stash.give_back();
            }
            return Ok(None);
        }
        // Room for the rest as the part done suggests, with a margin.
        let blocks_done = (claimed * CHUNK).min(n);
        let guess = done + (done * (n - blocks_done)).div_ceil(blocks_done) * 5 / 4;
        if let Err(e) = reserve(rows, (guess.max(done) - fitted) * ROW_BYTES) {
            for (_, stash) in late {
                stash.give_back();
            }
            return Err(e);
        }
        // Soundness, not only correctness: the length set below covers the rows the workers
        // wrote, which a `reserve` that emptied or replaced the vector would have dropped,
        // leaving uninitialised bytes inside it.
        assert_eq!(
            rows.len(),
            fitted * ROW_BYTES,
            "reserve changed the rows' length"
        );
        assert!(
            rows.capacity() >= done * ROW_BYTES,
            "reserve left too little room"
        );
        let out = Out(rows.as_mut_ptr().cast::<MaybeUninit<u8>>());
        for (start, stash) in late {
            // SAFETY: the rows of `stash` are start..start + its keys, disjoint from every
            // other chunk's and inside the capacity just reserved.
            unsafe { write_chunk(&block, &stash, &out, start) };
            stash.give_back();
        }
        // SAFETY: rows fitted..done were written just now, the ones before by the workers.
        unsafe { rows.set_len(done * ROW_BYTES) };
        pass.full.store(false, Ordering::Relaxed);
        if claimed == chunks {
            break;
        }
    }
    // With no chunk late, the workers stopped claiming only when none was left, or when
    // told to stop.
    if pass.next.load(Ordering::Relaxed) < chunks {
        return Ok(None);
    }
    Ok(Some(
        pass.offsets
            .into_iter()
            .map(AtomicI64::into_inner)
            .collect(),
    ))
}

/// A chunk's state: not generated yet, or its number of rows (tag COUNTED), or the row it
/// ends at (tag ENDS), the value shifted left by two above the tag. One to a cache line: the
/// workers publish neighbouring chunks at the same time.
#[repr(align(64))]
struct State(AtomicU64);

const NOT_COUNTED: u64 = 0;
const COUNTED: u64 = 1;
const ENDS: u64 = 2;
const TAG: u64 = 3;

/// What the workers of one [`par_generate_rows`] call share.
struct Pass<'a, F> {
    block: &'a F,
    n: usize,
    /// Set by the caller to stop: the workers claim no more chunks.
    stop: &'a AtomicBool,
    /// The next chunk to claim.
    next: AtomicUsize,
    states: Vec<State>,
    offsets: Vec<AtomicI64>,
    /// Chunks that end past the output's capacity, with their first row, for the caller to
    /// write once it has grown the output.
    late: Mutex<Vec<(usize, Stash)>>,
    /// Set when a chunk did not fit: the workers stop claiming chunks.
    full: AtomicBool,
    /// Set when a worker panicked: the others stop instead of waiting for its chunk (and
    /// the panic reaches the caller when the scope ends).
    failed: AtomicBool,
}

/// Where the workers write rows until the output is full.
struct Room {
    out: Out,
    /// Rows the output has room for.
    capacity: usize,
}

/// The output's first byte, written by all workers, each in rows no other writes.
struct Out(*mut MaybeUninit<u8>);

// SAFETY: the pointer is only written through at rows a chunk's look-back gave to that
// chunk alone (see `write_chunk`), so sharing it between threads races on nothing.
unsafe impl Sync for Out {}

/// A chunk's results: each block's count, and all their keys.
struct Stash {
    chunk: usize,
    counts: Vec<u32>,
    /// The keys, generated in place: `keys[..len]` are the chunk's, and at least `BUFFER`
    /// more entries follow, room for the next block's.
    keys: Vec<u128>,
    len: usize,
}

impl Stash {
    /// The chunk's keys.
    fn keys(&self) -> &[u128] {
        &self.keys[..self.len]
    }

    /// Generates one block, appending its results' keys.
    fn push(&mut self, position: Position, dice: Dice, scratch: &mut MoveList) {
        if self.keys.len() < self.len + BUFFER {
            self.keys.resize(self.len + BUFFER, 0);
        }
        let room = <&mut [u128; BUFFER]>::try_from(&mut self.keys[self.len..self.len + BUFFER])
            .expect("BUFFER entries");
        let n = generate_keys(&position, dice, scratch, room);
        self.counts.push(n as u32);
        self.len += n;
    }

    /// An empty stash for `chunk`, reusing one this thread kept.
    fn take(chunk: usize) -> Stash {
        match SPARE_STASHES.with_borrow_mut(Vec::pop) {
            Some(mut stash) => {
                stash.chunk = chunk;
                stash.counts.clear();
                stash.len = 0;
                stash
            }
            None => Stash {
                chunk,
                counts: Vec::with_capacity(CHUNK),
                keys: vec![0; CHUNK * 16 + BUFFER],
                len: 0,
            },
        }
    }

    /// Keeps the stash for this thread's next chunk, unless the thread has enough or it grew
    /// large (a chunk of worst-case positions must not pin its memory).
    fn give_back(self) {
        if self.keys.len() <= CHUNK * 64 {
            SPARE_STASHES.with_borrow_mut(|spare| {
                if spare.len() <= MAX_PENDING {
                    spare.push(self);
                }
            });
        }
    }
}

impl<F> Pass<'_, F>
where
    F: Fn(usize) -> (Position, Dice) + Sync,
{
    /// One worker's share: claim, generate and write chunks until none is left, or until
    /// the output is full and every chunk it claimed is placed.
    fn work(&self, room: &Room) {
        let _flag = FlagOnPanic(&self.failed);
        let mut pending: VecDeque<Stash> = VecDeque::with_capacity(MAX_PENDING);
        let mut waits = 0u32;
        loop {
            // Oldest first: if a chunk cannot be placed yet, no later one can.
            while let Some(start) = pending.front().and_then(|s| self.start_of(s.chunk)) {
                let stash = pending.pop_front().expect("front exists");
                self.place(stash, start, room);
                waits = 0;
            }
            if pending.len() < MAX_PENDING {
                if let Some(chunk) = self.claim() {
                    pending.push_back(self.generate(chunk));
                    continue;
                }
                if pending.is_empty() {
                    return;
                }
            }
            // An earlier chunk is still being generated by another worker.
            if self.failed.load(Ordering::Relaxed) {
                return;
            }
            waits += 1;
            if waits < 200 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// The next unclaimed chunk, if any and if the output is not full nor the caller
    /// stopping.
    fn claim(&self) -> Option<usize> {
        if self.full.load(Ordering::Relaxed)
            || self.stop.load(Ordering::Relaxed)
            || self.next.load(Ordering::Relaxed) >= self.states.len()
        {
            return None; // keeps the counter from creeping up while workers wait
        }
        let chunk = self.next.fetch_add(1, Ordering::Relaxed);
        (chunk < self.states.len()).then_some(chunk)
    }

    /// Generates `chunk` into a stash and publishes its number of rows.
    fn generate(&self, chunk: usize) -> Stash {
        let mut stash = Stash::take(chunk);
        LIST.with_borrow_mut(|scratch| {
            for b in blocks(chunk, self.n) {
                let (position, dice) = (self.block)(b);
                stash.push(position, dice, scratch);
            }
        });
        let rows = stash.len as u64;
        self.states[chunk]
            .0
            .store(rows << 2 | COUNTED, Ordering::Release);
        stash
    }

    /// The first row of `chunk` (or, for `chunk` = the number of chunks, the total), if every
    /// chunk before it is counted.
    fn start_of(&self, chunk: usize) -> Option<usize> {
        let mut rows_between = 0;
        for state in self.states[..chunk].iter().rev() {
            let state = state.0.load(Ordering::Acquire);
            match state & TAG {
                ENDS => return Some((state >> 2) as usize + rows_between),
                COUNTED => rows_between += (state >> 2) as usize,
                _ => return None,
            }
        }
        Some(rows_between)
    }

    /// Publishes where the stashed chunk ends, then writes its offsets and, if they fit, its
    /// rows (else leaves them to the caller).
    fn place(&self, stash: Stash, start: usize, room: &Room) {
        let end = start + stash.len;
        self.states[stash.chunk]
            .0
            .store((end as u64) << 2 | ENDS, Ordering::Release);
        let mut offset = start;
        for (b, &count) in blocks(stash.chunk, self.n).zip(&stash.counts) {
            offset += count as usize;
            self.offsets[b + 1].store(offset as i64, Ordering::Relaxed);
        }
        if end <= room.capacity {
            // SAFETY: rows start..end were given to this chunk alone by the look-back, and
            // lie within the output's capacity.
            unsafe { write_chunk(self.block, &stash, &room.out, start) };
            stash.give_back();
        } else {
            self.full.store(true, Ordering::Relaxed);
            self.late
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((start, stash));
        }
    }
}

/// The blocks of `chunk`.
fn blocks(chunk: usize, n: usize) -> std::ops::Range<usize> {
    chunk * CHUNK..((chunk + 1) * CHUNK).min(n)
}

/// Writes the rows of a stashed chunk, block by block, from row `start` of `out`.
///
/// # Safety
/// Rows `start..start + stash.len` of `out` must be inside its allocation and written
/// by no one else meanwhile.
unsafe fn write_chunk<F>(block: &F, stash: &Stash, out: &Out, start: usize)
where
    F: Fn(usize) -> (Position, Dice),
{
    let mut keys = stash.keys();
    let mut row = start;
    for (b, &count) in (stash.chunk * CHUNK..).zip(&stash.counts) {
        let (origin, _) = block(b);
        let (mine, rest) = keys.split_at(count as usize);
        // SAFETY: these rows are part of the chunk's, which the caller vouches for.
        let dst = unsafe {
            std::slice::from_raw_parts_mut(out.0.add(row * ROW_BYTES), mine.len() * ROW_BYTES)
        };
        write_keys(&origin, mine, dst);
        row += mine.len();
        keys = rest;
    }
}

/// Sets the flag if dropped while its thread panics.
struct FlagOnPanic<'a>(&'a AtomicBool);

impl Drop for FlagOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::gnubg_id;

    fn corpus_blocks() -> Vec<(Position, Dice)> {
        let ids = [
            "4HPwATDgc/ABMA",
            "v3sAAAhmdzMAAQ",
            "m/oZAIDb7UQAAA",
            "AAAAUUoppaQAAA",
        ];
        let origins: Vec<Position> = ids.iter().map(|id| gnubg_id::decode(id).unwrap()).collect();
        // Enough blocks for many chunks, with chunks of unequal sizes (doubles have more).
        (0..200)
            .flat_map(|i| Dice::ALL_21.map(|d| (origins[i % origins.len()], d)))
            .collect()
    }

    fn expected(blocks: &[(Position, Dice)]) -> (Vec<i64>, Vec<u8>) {
        let mut list = MoveList::new();
        let (mut offsets, mut rows) = (vec![0i64], Vec::new());
        for (position, dice) in blocks {
            position.generate_moves(*dice, &mut list);
            for result in list.results() {
                rows.extend_from_slice(&super::super::row(&result));
            }
            offsets.push((rows.len() / ROW_BYTES) as i64);
        }
        (offsets, rows)
    }

    #[test]
    fn sequential_and_parallel_rows_are_the_results_in_order() {
        let blocks = corpus_blocks();
        let (offsets, rows) = expected(&blocks);
        let block = |b: usize| blocks[b];
        let mut out = vec![1, 2, 3]; // replaced, not appended to
        assert_eq!(
            generate_rows(blocks.iter().copied(), &mut out, grow).unwrap(),
            offsets
        );
        assert_eq!(out, rows);
        for threads in [1, 2, 3, 7] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for capacity in [rows.len(), rows.len() / 2, 0, 4 * rows.len()] {
                let mut out = Vec::with_capacity(capacity);
                out.push(9);
                let mut grows = 0;
                let got = pool.install(|| {
                    par_generate_rows(blocks.len(), block, &mut out, |v, more| {
                        grows += 1;
                        grow(v, more)
                    })
                    .unwrap()
                });
                let case = format!("{threads} threads, capacity {capacity}");
                assert_eq!(got, offsets, "{case}");
                assert_eq!(out, rows, "{case}");
                // It pauses to grow only when the rows do not fit, and guesses well from
                // the part done (this corpus repeats itself every few chunks).
                assert_eq!(grows == 0, capacity >= rows.len(), "{case}");
                assert!(grows <= 2, "{case}: {grows} grows");
            }
        }
    }

    #[test]
    fn no_blocks_no_rows() {
        let mut out = vec![7u8; 10];
        let none = |_: usize| -> (Position, Dice) { unreachable!() };
        assert_eq!(par_generate_rows(0, none, &mut out, grow).unwrap(), [0]);
        assert!(out.is_empty());
        assert_eq!(generate_rows([], &mut out, grow).unwrap(), [0]);
    }

    #[test]
    fn a_stopped_call_says_so_and_a_later_one_is_whole() {
        let blocks = corpus_blocks();
        let (offsets, rows) = expected(&blocks);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let stop = AtomicBool::new(true);
        for capacity in [0, rows.len()] {
            let mut out = Vec::with_capacity(capacity);
            let block = |b: usize| blocks[b];
            let stopped = pool
                .install(|| par_generate_rows_until(blocks.len(), block, &mut out, grow, &stop));
            assert_eq!(stopped, Ok(None), "capacity {capacity}");
            // Stopped from inside, part way: block 1000 sets the flag.
            let late_stop = AtomicBool::new(false);
            let block = |b: usize| {
                if b == 1000 {
                    late_stop.store(true, Ordering::Relaxed);
                }
                blocks[b]
            };
            let stopped = pool.install(|| {
                par_generate_rows_until(blocks.len(), block, &mut out, grow, &late_stop)
            });
            assert_eq!(stopped, Ok(None), "capacity {capacity}");
            assert!(out.len() < rows.len() && rows.starts_with(&out));
            let go_on = AtomicBool::new(false);
            let whole = pool.install(|| {
                par_generate_rows_until(blocks.len(), |b| blocks[b], &mut out, grow, &go_on)
            });
            assert_eq!(
                whole,
                Ok::<_, std::collections::TryReserveError>(Some(offsets.clone()))
            );
            assert_eq!(out, rows);
        }
    }

    #[test]
    fn a_failed_reserve_is_returned_not_fatal() {
        let blocks = corpus_blocks();
        let refuse = |_: &mut Vec<u8>, _: usize| Err("no memory");
        let mut out = Vec::new();
        assert_eq!(
            generate_rows(blocks.iter().copied(), &mut out, refuse),
            Err("no memory")
        );
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for capacity in [0, 1000 * ROW_BYTES] {
            let mut out = Vec::with_capacity(capacity);
            let got =
                pool.install(|| par_generate_rows(blocks.len(), |b| blocks[b], &mut out, refuse));
            assert_eq!(got, Err("no memory"), "capacity {capacity}");
            // The call can be made again, and then succeeds.
            let again =
                pool.install(|| par_generate_rows(blocks.len(), |b| blocks[b], &mut out, grow));
            assert_eq!(again.unwrap(), expected(&blocks).0);
        }
    }

    #[test]
    fn a_reserve_that_drops_the_rows_panics_instead_of_exposing_uninitialised_bytes() {
        // Without the check, the parallel call set the length over the rows the workers
        // had written into the vector `reserve` replaced: uninitialised bytes, from safe
        // code. (The sequential call wrote its offsets from the wrong length.)
        let blocks = corpus_blocks();
        let (_, want) = expected(&blocks);
        let replace = |v: &mut Vec<u8>, more: usize| {
            *v = Vec::new();
            grow(v, more + want.len())
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let parallel = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // Half fits: some rows are written before the output must grow.
            let mut out = Vec::with_capacity(want.len() / 2);
            pool.install(|| par_generate_rows(blocks.len(), |b| blocks[b], &mut out, replace))
        }));
        let message = parallel.expect_err("a reserve that replaced the rows was accepted");
        let text = message
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(text.contains("reserve changed the rows' length"), "{text}");
        let sequential = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut out = vec![];
            let clear = |v: &mut Vec<u8>, more: usize| {
                v.clear();
                grow(v, more)
            };
            generate_rows(blocks.iter().copied(), &mut out, clear)
        }));
        assert!(
            sequential.is_err(),
            "a reserve that cleared the rows was accepted"
        );
    }

    #[test]
    fn a_size_hint_beyond_memory_is_not_allocated_up_front() {
        // 2^40 blocks promised: their offsets alone would be 8 TiB, an abort when
        // preallocated. The rows run out first, and that is an error the caller sees.
        let blocks = std::iter::repeat_n((Position::START, Dice::ALL_21[0]), 1 << 40);
        let budget = |v: &mut Vec<u8>, more: usize| {
            if v.len() + more > 1 << 20 {
                Err("budget")
            } else {
                v.try_reserve(more).map_err(|_| "memory")
            }
        };
        assert_eq!(
            generate_rows(blocks, &mut Vec::new(), budget),
            Err("budget")
        );
        let endless = std::iter::repeat((Position::START, Dice::ALL_21[0]));
        assert_eq!(
            generate_rows(endless, &mut Vec::new(), budget),
            Err("budget")
        );
    }

    #[test]
    fn a_panicking_block_panics_the_call_instead_of_hanging_it() {
        let blocks = corpus_blocks();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                let block = |b: usize| {
                    assert!(b != 300, "block 300");
                    blocks[b]
                };
                par_generate_rows(blocks.len(), block, &mut Vec::new(), grow)
            })
        }));
        assert!(result.is_err());
    }
}
