//! bindings
