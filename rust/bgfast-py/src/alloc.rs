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
pub fn matrix(rows: usize, width: usize) -> Result<Vec<f32>, Error> {
    let n = rows
        .checked_mul(width)
        .ok_or_else(|| out_of_memory(rows, width.saturating_mul(size_of::<f32>())))?;
    vec_filled(n, 0.0f32)
}
