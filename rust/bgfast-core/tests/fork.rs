//! A process forked after the thread pools ran must get working pools of its own (the
//! default start method of Python's `multiprocessing` on Linux forks). Alone in its test
//! binary: forking while other tests' threads hold locks would make the child hang on them.

#![cfg(target_os = "linux")]

use bgfast_core::threads;

#[test]
fn a_forked_child_gets_working_pools() {
    // The parent's 2-worker pool exists (and has run work) before the fork.
    assert_eq!(
        threads::install(2, || rayon::join(|| 1, || 2)).unwrap(),
        (1, 2)
    );
    // SAFETY: the child only runs async-signal-unsafe Rust code that this test controls
    // (thread creation and the pool), then leaves with _exit; the parent only waits.
    let child = unsafe { libc::fork() };
    assert!(child >= 0, "fork failed");
    if child == 0 {
        let ok = threads::install(2, || rayon::join(|| 1, || 2)).is_ok_and(|r| r == (1, 2));
        // SAFETY: _exit ends the child at once, without running the parent's handlers.
        unsafe { libc::_exit(if ok { 0 } else { 1 }) };
    }
    // The child either finishes or hangs; bound the wait so a regression fails.
    let mut status = 0;
    for _ in 0..600 {
        // SAFETY: waitpid on our own child with a valid status pointer.
        let done = unsafe { libc::waitpid(child, &mut status, libc::WNOHANG) };
        if done == child {
            assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // SAFETY: killing our own child.
    unsafe { libc::kill(child, libc::SIGKILL) };
    panic!("the forked child hung on its first threaded call");
}
