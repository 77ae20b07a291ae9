//! Move notation (`24/18 13/11*`, `bar/22`, `6/off`). Interim: one step per token; chains,
//! repeats and parsing come with the full notation module.

use crate::mv::Move;

/// Formats a move as space-separated steps, highest source first.
pub fn format(mv: &Move) -> String {
    let mut steps = mv.steps().to_vec();
    steps.sort_by(|a, b| b.from.cmp(&a.from).then(b.to.cmp(&a.to)));
    let point = |p: u8, bar: bool| match p {
        25 if bar => "bar".to_string(),
        0 if !bar => "off".to_string(),
        p => p.to_string(),
    };
    steps
        .iter()
        .map(|s| {
            format!(
                "{}/{}{}",
                point(s.from, true),
                point(s.to, false),
                if s.hit { "*" } else { "" }
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}
