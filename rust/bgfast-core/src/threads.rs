//! Thread pools by size, each built once and kept for the life of the process.
//!
//! Building a rayon pool starts its threads, and callers that work in many short calls pay
//! that every time: the Python layer runs a rollout in chunks (to report progress and to
//! stop on Ctrl-C) and batch calls come one after another. So every entry point that takes a
//! thread count runs on the pool of that size from here.
//!
//! A pool with one worker for each CPU the process may run on pins worker `i` to the `i`-th
//! of those CPUs (on Linux; `BGFAST_PIN_THREADS=0` turns it off). Left to itself, Linux
//! sometimes wakes both workers of a 2-worker pool on the same CPU after the process has run
//! on one thread for a while, and a CPU that was busy that long does not pull work when it
//! goes idle; the pair then shares one CPU until the next periodic balance, 4 ms or more
//! later, which a 2 ms batch call never sees: calls ran at one thread's speed for whole
//! seconds (measured on 2-vCPU VMs; see BENCHMARKS.md).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rayon::{ThreadPool, ThreadPoolBuildError};

/// The variable that turns pinning off when set to `0`.
pub const PIN_THREADS_VAR: &str = "BGFAST_PIN_THREADS";

/// The shared pool of `threads` workers (1 if `threads` is 0), built on first use.
pub fn pool(threads: usize) -> Result<Arc<ThreadPool>, ThreadPoolBuildError> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<ThreadPool>>>> = OnceLock::new();
    let threads = threads.max(1);
    // Inserting is the only change made under the lock, so a poisoned lock is still good.
    let mut pools = POOLS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(pool) = pools.get(&threads) {
        return Ok(Arc::clone(pool));
    }
    let pinning_off = std::env::var(PIN_THREADS_VAR).is_ok_and(|v| v.trim() == "0");
    let cpus = if pinning_off {
        None
    } else {
        pin_plan(threads, affinity::allowed_cpus())
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("bgfast-{i}"))
        .start_handler(move |i| {
            if let Some(cpus) = &cpus {
                affinity::pin_current_thread(cpus[i]);
            }
        })
        .build()?;
    let pool = Arc::new(pool);
    pools.insert(threads, Arc::clone(&pool));
    Ok(pool)
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
    fn one_pool_per_size() {
        let a = pool(3).unwrap();
        let b = pool(3).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(a.current_num_threads(), 3);
        assert_eq!(pool(0).unwrap().current_num_threads(), 1);
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
