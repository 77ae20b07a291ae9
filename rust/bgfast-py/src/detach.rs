//! Long native work that Ctrl-C stops.
//!
//! Python runs signal handlers only on its main thread, between bytecodes: while a native
//! call runs, a Ctrl-C waits for it to return. Work that may take long (a rollout, perft, a
//! table build) runs on a helper thread instead, while the calling thread, detached from
//! the interpreter, wakes every [`POLL`] to let Python run its handlers (and the caller
//! report progress). A handler that raises (`KeyboardInterrupt`) sets the work's cancel
//! flag; the work stops at its next check and the exception is raised once it has.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use pyo3::prelude::*;

use crate::errors::Error;

/// How often the waiting thread lets Python handle signals (and report progress).
pub const POLL: Duration = Duration::from_millis(50);

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
