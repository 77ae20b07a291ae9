//! A plain-text board for terminals and `str(position)`.
//!
//! The side to move is `X` and moves from its 24-point (top right) around to its 1-point
//! (bottom right), home board bottom right; the opponent is `O`. Columns are the mover's
//! point numbers; a stack taller than five shows its count on the fifth row.

use std::fmt::Write;

use crate::position::Position;

const ROWS: usize = 5;

/// Renders `position` as a multi-line ASCII board.
pub fn render(position: &Position) -> String {
    let mover = position.mover();
    let opponent = position.opponent();
    // Checkers on the mover's point p: X for the mover, O for the opponent (their 25 - p).
    let stack = |p: u8| -> (char, u8) {
        let x = mover.count(p);
        let o = opponent.count(25 - p);
        if x > 0 {
            ('X', x)
        } else {
            ('O', o)
        }
    };
    let cell = |p: u8, row: usize| -> String {
        let (c, n) = stack(p);
        if (n as usize) > row {
            if row == ROWS - 1 && n as usize > ROWS {
                format!("{n:>2} ")
            } else {
                format!(" {c} ")
            }
        } else {
            " . ".to_string()
        }
    };
    let mut out = String::new();
    let top: Vec<u8> = (13..=24).collect();
    let bottom: Vec<u8> = (1..=12).rev().collect();
    let header = |points: &[u8]| -> String {
        let mut s = String::from(" ");
        for (i, p) in points.iter().enumerate() {
            if i == 6 {
                s.push_str("   ");
            }
            let _ = write!(s, "{p:>3}");
        }
        s
    };
    let line = |points: &[u8], row: usize| -> String {
        let mut s = String::from("|");
        for (i, &p) in points.iter().enumerate() {
            if i == 6 {
                s.push_str("| |");
            }
            s.push_str(&cell(p, row));
        }
        s.push('|');
        s
    };
    let (mover_pips, opponent_pips) = position.pips();
    let _ = writeln!(out, "{}", header(&top));
    let _ = writeln!(out, "+{}+", "-".repeat(41));
    for row in 0..ROWS {
        let _ = writeln!(out, "{}", line(&top, row));
    }
    let _ = writeln!(
        out,
        "|{:^41}|",
        format!("bar  X:{}  O:{}", mover.bar(), opponent.bar())
    );
    for row in (0..ROWS).rev() {
        let _ = writeln!(out, "{}", line(&bottom, row));
    }
    let _ = writeln!(out, "+{}+", "-".repeat(41));
    let _ = writeln!(out, "{}", header(&bottom));
    let _ = writeln!(
        out,
        "X (to move): {mover_pips} pips, {} off    O: {opponent_pips} pips, {} off",
        mover.off(),
        opponent.off()
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_board_shows_both_sides() {
        let board = render(&Position::START);
        assert!(board.contains("167 pips"));
        let glyphs: usize = board
            .lines()
            .filter(|l| l.starts_with('|') && !l.contains("bar"))
            .map(|l| l.matches(['X', 'O']).count())
            .sum();
        assert_eq!(glyphs, 30, "{board}");
    }
}
