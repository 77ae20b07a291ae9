//! The fast forward passes: SIMD chosen at run time, sparse and incremental first layers.
