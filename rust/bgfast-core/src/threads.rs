//! Thread pools by size, each built once and kept for the life of the process.
//!
//! Building a rayon pool starts its threads, and callers that work in many short calls pay
//! that every time: the Python layer runs a rollout in chunks (to report progress and to
//! stop on Ctrl-C) and batch calls come one after another. So every entry point that takes a
//! thread count runs on the pool of that size from here.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rayon::{ThreadPool, ThreadPoolBuildError};

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
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("bgfast-{i}"))
        .build()?;
    let pool = Arc::new(pool);
    pools.insert(threads, Arc::clone(&pool));
    Ok(pool)
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
}
