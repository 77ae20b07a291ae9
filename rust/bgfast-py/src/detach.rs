//! Long native work that Ctrl-C stops.
//!
//! Python runs signal handlers only on its main thread, between bytecodes: while a native
//! call runs, a Ctrl-C waits for it to return. Work that may take long (a rollout, perft, a
//! table build) runs on a helper thread instead, while the calling thread, detached from
//! the interpreter, wakes every [`POLL`] to let Python run its handlers (and the caller
//! report progress). A handler that raises (`KeyboardInterrupt`) sets the work's cancel
//! flag; the work stops at its next check and the exception is raised once it has.
//!
//! Batch calls ([`batch`]) run the same way once they are large enough for a helper
//! thread's start (tens of microseconds) not to matter, and check the flag between items.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use pyo3::prelude::*;

use crate::errors::Error;

/// How often the waiting thread lets Python handle signals (and report progress).
pub const POLL: Duration = Duration::from_millis(50);

/// Items of work (a position evaluated, a roll's plays generated: a microsecond or less
/// each) from which a batch call runs on a helper thread that Ctrl-C can stop. Smaller calls
/// take a tenth of a second at most, and run on the calling thread: starting the helper
/// cost calls of 20 to 60 ms 2-5% (measured on the 2-vCPU VM of BENCHMARKS.md).
pub const INTERRUPTIBLE_FROM: usize = 1 << 20;

/// Runs a batch call's `work(cancel)` with the GIL released: through [`run`] when it has
/// `items` of work or more ([`INTERRUPTIBLE_FROM`]), so that Ctrl-C sets `cancel`, else on
/// this thread with a flag never set. `work` checks the flag between items and returns
/// [`Error::Interrupted`] once it sees it; Ctrl-C's `KeyboardInterrupt` is then raised.
pub fn batch<T: Send>(
    py: Python<'_>,
    items: usize,
    work: impl FnOnce(&AtomicBool) -> Result<T, Error> + Send,
) -> Result<T, Error> {
    if items < INTERRUPTIBLE_FROM {
        let never = AtomicBool::new(false);
        return py.detach(|| work(&never));
    }
    run(py, work, |_| Ok(()))?
}

/// Whether the caller asked the work to stop (see [`run`]).
pub fn stopping(cancel: &AtomicBool) -> bool {
    cancel.load(Ordering::Relaxed)
}

/// Runs `work(cancel)` with the GIL released, on a helper thread, while this thread calls
/// `tick` with the GIL every [`POLL`] and lets Python handle signals. The first error from
/// a signal handler or from `tick` sets `cancel` and is returned once `work` has returned;
/// `work` should check `cancel` now and then and stop early when it is set.
pub fn run<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(&AtomicBool) -> T + Send,
    mut tick: impl FnMut(Python<'_>) -> PyResult<()> + Send,
) -> Result<T, Error> {
    let cancel = AtomicBool::new(false);
    py.detach(|| {
        std::thread::scope(|scope| {
            let (finished, wait) = mpsc::channel::<()>();
            let cancel = &cancel;
            let worker = std::thread::Builder::new()
                .name("bgfast-call".to_string())
                .spawn_scoped(scope, move || {
                    let result = work(cancel);
                    // The receiver lives until this thread is joined.
                    let _ = finished.send(());
                    result
                })
                .map_err(|e| Error::Internal(format!("cannot start a thread: {e}")))?;
            let mut raised: Option<PyErr> = None;
            while let Err(RecvTimeoutError::Timeout) = wait.recv_timeout(POLL) {
                if raised.is_some() {
                    continue; // stopping: wait for the work to notice
                }
                let checked = Python::attach(|py| py.check_signals().and_then(|()| tick(py)));
                if let Err(e) = checked {
                    raised = Some(e);
                    cancel.store(true, Ordering::Relaxed);
                }
            }
            let result = worker
                .join()
                .map_err(|_| Error::Internal("a worker thread panicked".to_string()))?;
            match raised {
                Some(e) => Err(Error::Python(e)),
                None => Ok(result),
            }
        })
    })
}
