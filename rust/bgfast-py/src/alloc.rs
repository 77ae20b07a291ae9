//! Fallible allocation for buffers whose size the caller's input decides.
//!
//! Rust aborts the process when an allocation fails, and a batch of 200,000 positions asks
//! for gigabytes: under a memory limit that would kill the interpreter. Every buffer sized
//! from input is allocated here instead, and a refusal becomes a `MemoryError` that leaves
//! the process as it was.

use crate::errors::Error;

/// The error for `count` elements of `size` bytes that could not be allocated.
pub fn out_of_memory(count: usize, size: usize) -> Error {
    Error::Memory(format!(
        "cannot allocate {} bytes for this call's {count} items",
        count.saturating_mul(size)
    ))
}

/// An empty vector with room for `n` elements, or `MemoryError`.
pub fn vec_with_capacity<T>(n: usize) -> Result<Vec<T>, Error> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| out_of_memory(n, size_of::<T>()))?;
    Ok(v)
}

/// A vector of `n` copies of `value`, or `MemoryError`.
pub fn vec_filled<T: Clone>(n: usize, value: T) -> Result<Vec<T>, Error> {
    let mut v = vec_with_capacity(n)?;
    v.resize(n, value);
    Ok(v)
}

/// A zeroed `rows` by `width` float32 matrix, row-major, or `MemoryError`.
///
/// Zeroed by the allocator: a large matrix comes as fresh pages that the kernel zeroes at
/// their first touch, by the work that writes them (and can be interrupted), not in one
/// uninterruptible sweep of gigabytes up front.
pub fn matrix(rows: usize, width: usize) -> Result<Vec<f32>, Error> {
    let too_large = || out_of_memory(rows, width.saturating_mul(size_of::<f32>()));
    let n = rows.checked_mul(width).ok_or_else(too_large)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let layout = std::alloc::Layout::array::<f32>(n).map_err(|_| too_large())?;
    // SAFETY: the layout's size is not zero; all-zero bits are 0.0 in every f32, so the n
    // elements are initialised; the pointer comes from the global allocator with the
    // layout of a Vec<f32> of capacity n, as Vec::from_raw_parts requires.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout).cast::<f32>();
        if ptr.is_null() {
            return Err(too_large());
        }
        Ok(Vec::from_raw_parts(ptr, n, n))
    }
}
