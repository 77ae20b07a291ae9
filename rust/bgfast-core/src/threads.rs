//! Thread pools by size, each built once and kept while it is in use, and [`Runner`], the
//! one policy for scheduling a batch job on them.
//!
//! Building a rayon pool starts its threads, and callers that work in many short calls pay
//! that every time: the Python layer runs a rollout in chunks (to report progress and to
//! stop on Ctrl-C) and batch calls come one after another. So every entry point that takes a
//! thread count runs on the pool of that size from here. The pools kept are bounded (at
//! most [`MAX_POOLS`] sizes of at most [`MAX_THREADS`] workers), and a process made by
//! `fork` builds its own instead of waiting on its parent's, whose threads it lacks.
//!
//! A pool with one worker for each CPU the process may run on pins worker `i` to the `i`-th
//! of those CPUs (on Linux; `BGFAST_PIN_THREADS=0` turns it off). Left to itself, Linux
//! sometimes wakes both workers of a 2-worker pool on the same CPU after the process has run
//! on one thread for a while, and a CPU that was busy that long does not pull work when it
//! goes idle; the pair then shares one CPU until the next periodic balance, 4 ms or more
//! later, which a 2 ms batch call never sees: calls ran at one thread's speed for whole
//! seconds (measured on 2-vCPU VMs; see BENCHMARKS.md).

use core::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuildError};

/// The variable that turns pinning off when set to `0`.
pub const PIN_THREADS_VAR: &str = "BGFAST_PIN_THREADS";

/// The most workers a pool may have. Every entry point that takes a thread count refuses
/// more, so no argument can make the process spawn threads until the system refuses.
pub const MAX_THREADS: usize = 256;

/// How many pools of distinct sizes are kept. A program that asks for many sizes (a sweep
/// over `threads=1..60`) keeps only the most recently used ones; the others are dropped
/// (their threads end once no call uses them) and rebuilt if asked for again.
pub const MAX_POOLS: usize = 4;

/// Why no pool of the size asked for can be had.
#[derive(Debug)]
pub enum PoolError {
    /// More than [`MAX_THREADS`] workers were asked for.
    TooManyThreads {
        /// The thread count asked for.
        asked: usize,
    },
    /// The operating system refused to start the threads.
    Build(ThreadPoolBuildError),
}

impl fmt::Display for PoolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PoolError::TooManyThreads { asked } => {
                write!(f, "threads must be from 1 to {MAX_THREADS}, got {asked}")
            }
            PoolError::Build(e) => write!(f, "cannot start the threads: {e}"),
        }
    }
}

impl std::error::Error for PoolError {}

/// The thread count for callers that leave it open: `RAYON_NUM_THREADS` if set to a
/// positive number (as rayon reads it), else the CPUs this process may run on, at most
/// [`MAX_THREADS`]. Unlike `rayon::current_num_threads`, asking never starts rayon's
/// global pool.
pub fn default_threads() -> usize {
    let from_env = std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0);
    let threads = from_env.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    threads.min(MAX_THREADS)
}

/// The pools of this process, most recently used last.
struct Pools {
    /// The process that built them. A child made by `fork` inherits the parent's pools
    /// without their threads (only the forking thread survives a fork): waiting on such a
    /// pool would wait forever, so a child starts afresh.
    pid: u32,
    kept: Vec<(usize, Arc<ThreadPool>)>,
}

static POOLS: Mutex<Pools> = Mutex::new(Pools {
    pid: 0,
    kept: Vec::new(),
});

/// The thread count a pool can have for `threads` asked for: 1 for 0, `threads` up to
/// [`MAX_THREADS`], refused past it. Every call that takes a thread count checks it so,
/// before any work, whether or not the work turns out small enough for one thread.
pub fn checked_threads(threads: usize) -> Result<usize, PoolError> {
    if threads > MAX_THREADS {
        return Err(PoolError::TooManyThreads { asked: threads });
    }
    Ok(threads.max(1))
}

/// The shared pool of `threads` workers (1 if `threads` is 0), built on first use in this
/// process. Refuses more than [`MAX_THREADS`] ([`checked_threads`]).
pub fn pool(threads: usize) -> Result<Arc<ThreadPool>, PoolError> {
    let threads = checked_threads(threads)?;
    // Only pushes and removals happen under the lock, so a poisoned lock is still good.
    let mut pools = POOLS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let pid = std::process::id();
    if pools.pid != pid {
        // Forked (or the first call): the inherited pools have no threads behind them.
        // Dropping one would signal its dead workers, whose locks may be held forever, so
        // they are leaked; a child pays that once.
        std::mem::forget(std::mem::take(&mut pools.kept));
        pools.pid = pid;
    }
    if let Some(i) = pools.kept.iter().position(|(n, _)| *n == threads) {
        let entry = pools.kept.remove(i);
        let pool = Arc::clone(&entry.1);
        pools.kept.push(entry);
        return Ok(pool);
    }
    let pool = Arc::new(build(threads).map_err(PoolError::Build)?);
    if pools.kept.len() == MAX_POOLS {
        // The least recently used goes; a call still running on it keeps it alive.
        pools.kept.remove(0);
    }
    pools.kept.push((threads, Arc::clone(&pool)));
    Ok(pool)
}

/// Runs `work` on the shared pool of `threads` workers: its parallel iterators run on
/// that pool, never on rayon's global one (which a forked child could not use).
pub fn install<T: Send>(threads: usize, work: impl FnOnce() -> T + Send) -> Result<T, PoolError> {
    Ok(pool(threads)?.install(work))
}

/// Items a parallel map gives one task at least, called from outside the pool: enough to
/// pay for handing the job to the workers and back (about 30 us with their wake-ups).
pub const MIN_TASK: usize = 1024;
/// The same, called on a worker (inside [`Runner::run`]), where splitting hands nothing
/// over to the pool and back.
pub const MIN_TASK_ON_POOL: usize = 256;
/// Items [`Runner::map_until`] computes between two looks at its stop flag: milliseconds
/// of work for the cheapest items (a roll's plays counted).
pub const STOP_SLICE: usize = 1 << 16;
/// Jobs of at most this many generations (position and roll blocks) run on the calling
/// thread: threads would cost more than they save.
pub const SMALL_BATCH: usize = 256;

/// `count` items of `size` bytes that could not be allocated (a result whose size the
/// caller's input decides; the process is left as it was).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct OutOfMemory {
    /// How many items were asked for.
    pub count: usize,
    /// The size of one item in bytes.
    pub size: usize,
}

impl fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot allocate {} bytes for {} items",
            self.count.saturating_mul(self.size),
            self.count
        )
    }
}

impl std::error::Error for OutOfMemory {}

/// An empty vector with room for `n` elements, or [`OutOfMemory`].
pub fn vec_with_capacity<T>(n: usize) -> Result<Vec<T>, OutOfMemory> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| OutOfMemory {
        count: n,
        size: size_of::<T>(),
    })?;
    Ok(v)
}

/// Where a batch job runs: on the calling thread alone, or on a shared pool of workers.
///
/// The one scheduling policy of every entry point that takes a thread count: small jobs stay
/// on the calling thread, larger ones are split into tasks of at least [`MIN_TASK`] items
/// (fewer from inside the pool), and a job that starts parallel work runs on a worker so
/// that the work is shared out among the workers rather than injected from outside. The
/// output never depends on the thread count.
pub enum Runner {
    /// The calling thread.
    Inline,
    /// The shared pool of [`pool`].
    Pool(Arc<ThreadPool>),
}

impl Runner {
    /// A runner for `threads` workers: 1 is the calling thread, more (up to
    /// [`MAX_THREADS`]) the shared pool of that size.
    pub fn new(threads: usize) -> Result<Runner, PoolError> {
        if threads <= 1 {
            return Ok(Runner::Inline);
        }
        Ok(Runner::Pool(pool(threads)?))
    }

    /// The number of workers (1 inline).
    pub fn threads(&self) -> usize {
        match self {
            Runner::Inline => 1,
            Runner::Pool(pool) => pool.current_num_threads(),
        }
    }

    /// Whether a job of `blocks` generations is split between the workers: small batches
    /// ([`SMALL_BATCH`] or fewer) run on the calling thread.
    pub fn generates_in_parallel(&self, blocks: usize) -> bool {
        self.threads() > 1 && blocks > SMALL_BATCH
    }

    /// Runs `f`, a job of `blocks` generations, on a worker of the pool if it will be split
    /// between the workers ([`Runner::generates_in_parallel`]), else on the calling thread
    /// (a small job is not worth the handoff).
    pub fn run_for<R: Send>(&self, blocks: usize, f: impl FnOnce() -> R + Send) -> R {
        if self.generates_in_parallel(blocks) {
            self.run(f)
        } else {
            f()
        }
    }

    /// Runs `f` on a worker of the pool while the caller waits, so that the parallel work
    /// `f` starts is shared out among the workers rather than injected from outside.
    pub fn run<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match self {
            Runner::Pool(pool) => pool.install(f),
            Runner::Inline => f(),
        }
    }

    /// `f(i)` for every `i < n`, in order, computed in parallel when there is a pool and
    /// enough items; [`OutOfMemory`] if there is no room for the `n` values.
    pub fn map<T: Send>(
        &self,
        n: usize,
        f: impl Fn(usize) -> T + Sync + Send,
    ) -> Result<Vec<T>, OutOfMemory> {
        let mut out = vec_with_capacity(n)?;
        if self.parallel(n) {
            let min_task = self.min_task();
            // Collecting into a vector with room for all n moves nothing.
            self.run(|| {
                (0..n)
                    .into_par_iter()
                    .with_min_len(min_task)
                    .map(f)
                    .collect_into_vec(&mut out)
            });
        } else {
            out.extend((0..n).map(f));
        }
        Ok(out)
    }

    /// [`Runner::map`] that stops early once `stop` is set, checked between slices of
    /// [`STOP_SLICE`] items: `Ok(None)` if it stopped before the last value. For a caller
    /// that must be interruptible, as the Python layer is on Ctrl-C.
    pub fn map_until<T: Send>(
        &self,
        n: usize,
        f: impl Fn(usize) -> T + Sync + Send,
        stop: &AtomicBool,
    ) -> Result<Option<Vec<T>>, OutOfMemory> {
        let mut out = vec_with_capacity(n)?;
        let parallel = self.parallel(n);
        let min_task = self.min_task();
        let fill = |out: &mut Vec<T>| {
            for a in (0..n).step_by(STOP_SLICE) {
                if stop.load(Ordering::Relaxed) {
                    return false;
                }
                let slice = a..n.min(a + STOP_SLICE);
                if parallel {
                    // An indexed extend writes in place, into the room reserved above.
                    out.par_extend(slice.into_par_iter().with_min_len(min_task).map(&f));
                } else {
                    out.extend(slice.map(&f));
                }
            }
            true
        };
        let finished = if parallel {
            self.run(|| fill(&mut out))
        } else {
            fill(&mut out)
        };
        Ok(finished.then_some(out))
    }

    /// [`Runner::map`] for fallible `f`: all the values, or the error of the first `i` in
    /// order that failed, whatever the thread count.
    pub fn try_map<T: Send, E: Send + From<OutOfMemory>>(
        &self,
        n: usize,
        f: impl Fn(usize) -> Result<T, E> + Sync + Send,
    ) -> Result<Vec<T>, E> {
        if self.parallel(n) {
            // Every result first: which error a parallel collect stops at is not fixed.
            self.map(n, f)?.into_iter().collect()
        } else {
            let mut out = vec_with_capacity(n)?;
            for i in 0..n {
                out.push(f(i)?);
            }
            Ok(out)
        }
    }

    /// Whether `n` items are worth splitting between the workers: below two tasks' worth
    /// the split costs more than it saves.
    pub fn parallel(&self, n: usize) -> bool {
        matches!(self, Runner::Pool(_)) && n > self.min_task()
    }

    /// The least work for one task: from outside the pool, enough to pay for handing the
    /// job to the workers and back; on a worker, less.
    pub fn min_task(&self) -> usize {
        match self {
            Runner::Pool(pool) if pool.current_thread_index().is_some() => MIN_TASK_ON_POOL,
            _ => MIN_TASK,
        }
    }
}

fn build(threads: usize) -> Result<ThreadPool, ThreadPoolBuildError> {
    let pinning_off = std::env::var(PIN_THREADS_VAR).is_ok_and(|v| v.trim() == "0");
    let cpus = if pinning_off {
        None
    } else {
        pin_plan(threads, affinity::allowed_cpus())
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("bgfast-{i}"))
        .start_handler(move |i| {
            if let Some(cpus) = &cpus {
                affinity::pin_current_thread(cpus[i]);
            }
        })
        .build()
}

/// The CPU of each of `threads` workers, if they are to be pinned: when the process may run
/// on exactly `threads` CPUs. With fewer workers, pinning would keep the free CPUs from
/// them; with more, workers would share CPUs for good.
fn pin_plan(threads: usize, allowed: Option<Vec<usize>>) -> Option<Vec<usize>> {
    allowed.filter(|cpus| threads > 1 && cpus.len() == threads)
}

#[cfg(target_os = "linux")]
mod affinity {
    use std::mem::{size_of, MaybeUninit};

    /// The CPUs the calling thread may run on, in increasing order.
    pub(super) fn allowed_cpus() -> Option<Vec<usize>> {
        let mut set = MaybeUninit::<libc::cpu_set_t>::zeroed();
        // SAFETY: `set` is a zeroed cpu_set_t (a valid empty set) of the size passed; the
        // call only writes into it.
        let set = unsafe {
            if libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), set.as_mut_ptr()) != 0 {
                return None;
            }
            set.assume_init()
        };
        let cpus = (0..libc::CPU_SETSIZE as usize)
            // SAFETY: `cpu` is below CPU_SETSIZE, inside the set.
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
            .collect();
        Some(cpus)
    }

    /// Restricts the calling thread to `cpu`. Only a hint for speed: failure changes nothing.
    pub(super) fn pin_current_thread(cpu: usize) {
        if cpu >= libc::CPU_SETSIZE as usize {
            return;
        }
        // SAFETY: a zeroed cpu_set_t is the empty set; CPU_SET writes inside it (cpu is in
        // range); sched_setaffinity only reads it.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set);
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod affinity {
    pub(super) fn allowed_cpus() -> Option<Vec<usize>> {
        None
    }

    pub(super) fn pin_current_thread(_: usize) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pool_per_size_and_a_bounded_number_of_them() {
        let a = pool(3).unwrap();
        let b = pool(3).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(a.current_num_threads(), 3);
        assert_eq!(pool(0).unwrap().current_num_threads(), 1);
        // Asking for many sizes keeps only the most recent MAX_POOLS of them.
        for threads in 1..=12 {
            assert_eq!(
                install(threads, rayon::current_num_threads).unwrap(),
                threads
            );
        }
        assert!(POOLS.lock().unwrap().kept.len() <= MAX_POOLS);
        assert!(matches!(
            pool(MAX_THREADS + 1),
            Err(PoolError::TooManyThreads { asked }) if asked == MAX_THREADS + 1
        ));
        assert!(matches!(
            pool(usize::MAX),
            Err(PoolError::TooManyThreads { .. })
        ));
    }

    #[test]
    fn a_runner_stops_mapping_when_told() {
        let n = 3 * STOP_SLICE + 7;
        let expected: Vec<usize> = (0..n).map(|i| i * i).collect();
        for threads in [1, 2] {
            let runner = Runner::new(threads).unwrap();
            let go_on = AtomicBool::new(false);
            let all = runner.map_until(n, |i| i * i, &go_on).unwrap();
            assert_eq!(all.as_ref(), Some(&expected));
            // Told to stop in the first slice: no later slice is computed.
            let stop = AtomicBool::new(false);
            let computed = std::sync::atomic::AtomicUsize::new(0);
            let stopped = runner.map_until(
                n,
                |i| {
                    computed.fetch_add(1, Ordering::Relaxed);
                    stop.store(true, Ordering::Relaxed);
                    i
                },
                &stop,
            );
            assert_eq!(stopped.unwrap(), None);
            assert!(computed.into_inner() <= STOP_SLICE);
        }
    }

    #[test]
    fn a_runner_maps_in_order_on_any_thread_count() {
        let n = 3 * MIN_TASK + 7;
        let expected: Vec<usize> = (0..n).map(|i| i * i).collect();
        for threads in [1, 2, 3] {
            let runner = Runner::new(threads).unwrap();
            assert_eq!(runner.threads(), threads);
            assert_eq!(runner.map(n, |i| i * i).unwrap(), expected);
            // The first failing index is the one reported, whatever the split.
            let failed: Result<Vec<usize>, OutOfMemory> = runner.try_map(n, |i| {
                if i == 5 || i == n - 1 {
                    Err(OutOfMemory { count: i, size: 0 })
                } else {
                    Ok(i)
                }
            });
            assert_eq!(failed.unwrap_err().count, 5);
            assert_eq!(runner.run_for(10, || 1), 1);
            assert_eq!(runner.generates_in_parallel(SMALL_BATCH + 1), threads > 1);
        }
        assert!(!Runner::new(1).unwrap().parallel(usize::MAX));
        assert!(Runner::new(MAX_THREADS + 1).is_err());
        assert!(matches!(
            Runner::new(2).unwrap().map(usize::MAX, |i| i),
            Err(OutOfMemory {
                count: usize::MAX,
                size: 8
            })
        ));
    }

    #[test]
    fn default_threads_is_at_least_one_and_at_most_the_cap() {
        assert!((1..=MAX_THREADS).contains(&default_threads()));
    }

    #[test]
    fn workers_are_pinned_only_with_one_per_cpu() {
        assert_eq!(pin_plan(2, Some(vec![0, 3])), Some(vec![0, 3]));
        assert_eq!(pin_plan(2, Some(vec![0, 1, 2])), None);
        assert_eq!(pin_plan(4, Some(vec![0, 1])), None);
        assert_eq!(pin_plan(1, Some(vec![5])), None);
        assert_eq!(pin_plan(2, None), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_pool_with_a_worker_per_cpu_pins_each_to_its_own() {
        let allowed = affinity::allowed_cpus().expect("sched_getaffinity");
        if allowed.len() < 2 || std::env::var(PIN_THREADS_VAR).is_ok_and(|v| v.trim() == "0") {
            return; // nothing to pin on this machine, or pinning turned off
        }
        let masks = pool(allowed.len())
            .unwrap()
            .broadcast(|_| affinity::allowed_cpus().expect("sched_getaffinity"));
        let pinned: Vec<usize> = masks.iter().map(|m| m[0]).collect();
        assert!(masks.iter().all(|m| m.len() == 1), "{masks:?}");
        assert_eq!(pinned, allowed);
        // A pool of another size is left to the scheduler.
        let free = pool(allowed.len() + 1)
            .unwrap()
            .broadcast(|_| affinity::allowed_cpus().expect("sched_getaffinity"));
        assert!(free.iter().all(|m| *m == allowed), "{free:?}");
    }
}
