//! Text and binary forms of positions and moves, one module per notation.

pub mod ascii;
pub mod gnubg_id;
pub mod move_text;
