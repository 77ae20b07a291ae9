//! Output buffers for batch results: numpy borrows them, and gives them back.
//!
//! A batch call writes tens of megabytes of result rows. Fresh memory is not free: the kernel
//! zeroes every page on its first touch, which `perf` showed to be a quarter of a contact
//! `batch.all_rolls` call, on one thread even when the rows are written by two. So the bytes
//! of a result array stay owned by Rust: the array borrows them from a [`PooledBytes`]
//! object (its numpy `base`), and when the array and every view of it are gone the buffer
//! goes back to a small pool, where the next call finds its pages already mapped.
//!
//! The pool is bounded: it keeps at most [`KEEP`] buffers of at most [`MAX_KEPT`] bytes each
//! (so at most 128 MiB of idle memory), and none below [`MIN_POOLED`], which the allocator's
//! own free lists serve as well.

use std::sync::Mutex;

use numpy::ndarray::{ArrayViewMut, Dimension};
use numpy::PyArray;
use pyo3::prelude::*;

use crate::errors::Error;

/// Buffers kept for reuse. Two, because a loop that rebinds `results = batch.moves(...)`
/// frees one call's buffer only after the next call has taken another.
const KEEP: usize = 2;
/// The largest buffer kept (64 MiB, about 1.3 million result rows).
const MAX_KEPT: usize = 64 << 20;
/// The smallest buffer worth keeping (or asking the pool for).
const MIN_POOLED: usize = 2 << 20;
/// How many times larger than asked a kept buffer may be to be handed out. A call's first
/// guess and the buffer it grows to differ by up to 2x, so 4 lets calls of one size alternate.
const MAX_OVERSIZE: usize = 4;

static FREE: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

fn free_list() -> std::sync::MutexGuard<'static, Vec<Vec<u8>>> {
    // A panic while the lock was held cannot leave the list inconsistent (push and remove
    // only), so a poisoned lock is still good.
    FREE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// An empty buffer with room for at least `capacity` bytes: the largest kept buffer that
/// is large enough but at most [`MAX_OVERSIZE`] times so (`capacity` is a first guess that
/// the call may outgrow, and growing would move the buffer into fresh pages; a buffer far
/// too large would be pinned by a small result), or a fresh one (backed by huge pages where
/// Linux allows it). `MemoryError` if there is no memory for a fresh one.
pub fn take(capacity: usize) -> Result<Vec<u8>, Error> {
    let fits =
        |b: &Vec<u8>| (capacity..=capacity.saturating_mul(MAX_OVERSIZE)).contains(&b.capacity());
    let reused = if capacity < MIN_POOLED {
        None
    } else {
        let mut free = free_list();
        let best = free
            .iter()
            .enumerate()
            .filter(|(_, b)| fits(b))
            .max_by_key(|(_, b)| b.capacity())
            .map(|(i, _)| i);
        best.map(|i| free.swap_remove(i))
    };
    match reused {
        Some(buffer) => Ok(buffer),
        None => {
            let buffer = crate::alloc::vec_with_capacity(capacity)?;
            advise_huge_pages(&buffer);
            Ok(buffer)
        }
    }
}

/// Keeps `buffer` for a later [`take`] if the pool has room for it, else frees it.
fn give_back(mut buffer: Vec<u8>) {
    if !(MIN_POOLED..=MAX_KEPT).contains(&buffer.capacity()) {
        return;
    }
    buffer.clear();
    let mut free = free_list();
    if free.len() < KEEP {
        free.push(buffer);
    } else if let Some(smallest) = free.iter_mut().min_by_key(|b| b.capacity()) {
        // Keep the larger buffers: they serve every smaller request too.
        if smallest.capacity() < buffer.capacity() {
            *smallest = buffer;
        }
    }
}

/// Reserves room for `additional` more bytes, keeping the huge-page advice if it moves;
/// `MemoryError` (and the buffer unchanged) if there is no memory for it.
#[inline]
pub fn reserve(buffer: &mut Vec<u8>, additional: usize) -> Result<(), Error> {
    if buffer.capacity() - buffer.len() < additional {
        buffer
            .try_reserve(additional)
            .map_err(|_| crate::alloc::out_of_memory(buffer.len().saturating_add(additional), 1))?;
        advise_huge_pages(buffer);
    }
    Ok(())
}

/// Asks Linux to back the buffer with huge pages (transparent huge pages in `madvise` mode):
/// a fresh buffer then costs one page fault per 2 MiB instead of one per 4 KiB. The advice
/// covers whole 4 KiB pages around the allocation so that the kernel does not split its
/// mapping (a split mapping cannot grow in place with `mremap`). Only advice: failure
/// changes nothing.
#[cfg(target_os = "linux")]
fn advise_huge_pages(buffer: &Vec<u8>) {
    const PAGE: usize = 4096;
    if buffer.capacity() < MIN_POOLED {
        return;
    }
    let start = buffer.as_ptr() as usize / PAGE * PAGE;
    let end = (buffer.as_ptr() as usize + buffer.capacity()).div_ceil(PAGE) * PAGE;
    // SAFETY: every page in the range holds part of the buffer's allocation (the first and
    // last perhaps shared with the allocator's bookkeeping), and MADV_HUGEPAGE only changes
    // how the kernel backs pages, never their contents or protection.
    unsafe {
        libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_: &Vec<u8>) {}

/// The owner of a result array's bytes (the array's numpy `base`). Dropped when the array
/// and all its views are gone; its buffer then goes back to the pool.
#[pyclass(module = "bgfast._core", frozen)]
pub struct PooledBytes {
    buffer: Vec<u8>,
}

impl Drop for PooledBytes {
    fn drop(&mut self) {
        give_back(std::mem::take(&mut self.buffer));
    }
}

/// A C-ordered, writable uint8 array of `shape` over exactly the bytes of `buffer`, which
/// it borrows through a [`PooledBytes`] base.
pub fn into_array<'py, D: Dimension>(
    py: Python<'py>,
    shape: D,
    mut buffer: Vec<u8>,
) -> PyResult<Bound<'py, PyArray<u8, D>>> {
    if shape.size() != buffer.len() {
        return Err(Error::Internal(format!(
            "{} bytes for an array of shape {:?}",
            buffer.len(),
            shape.slice()
        ))
        .into());
    }
    // The array is writable, so it gets a pointer that may write: from `as_mut_ptr`, taken
    // while the Vec is still ours to borrow mutably. After this, Rust never reads or writes
    // the bytes again (`PooledBytes` is frozen and only frees or pools the Vec in `Drop`,
    // once numpy holds no view), so numpy's writes race with nothing.
    let data = buffer.as_mut_ptr();
    let owner = Bound::new(py, PooledBytes { buffer })?;
    // SAFETY: `data` points at the heap bytes of the Vec now owned by `owner`, which are
    // neither moved nor freed while `owner` lives, and `shape` covers exactly their length
    // (checked above). The array keeps `owner` alive as its base.
    unsafe {
        let view = ArrayViewMut::from_shape_ptr(shape, data);
        Ok(PyArray::borrow_from_array(&view, owner.into_any()))
    }
}
