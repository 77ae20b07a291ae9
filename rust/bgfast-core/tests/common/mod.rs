//! Fixtures shared by the integration tests.

use bgfast_core::codec::gnubg_id;
use bgfast_core::Position;

/// The positions of a corpus in `tests/data/` (one Position ID a line; see NOTICE.md).
pub fn corpus(name: &str) -> Vec<Position> {
    let path = format!("{}/../../tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| gnubg_id::decode(l.trim()).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}
