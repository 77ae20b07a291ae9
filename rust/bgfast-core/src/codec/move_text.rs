//! Move notation: `24/18 13/11*`, `bar/22`, `6/off`, `8/2(2)`, `13/10*/7` (RULES.md "Notation").
//!
//! This module owns the text form only: [`format()`] writes a [`Move`] the way GNU Backgammon
//! prints it, and [`parse`] turns text into plain data ([`ParsedMove`]) checking syntax alone.
//! Whether the text is a legal play in some position is the job of [`crate::resolve`].
//!
//! A pass (no legal play, R10) formats as the empty string, as in GNU Backgammon, which has no
//! text for it; user interfaces may show it as "(no move)". The empty string (or text holding
//! only separators) parses back to the pass.

use core::fmt;

use crate::checkers::BAR;
use crate::mv::{Move, OFF};

/// The most single-die steps a play can hold (a double, R5).
const MAX_STEPS: usize = 4;

/// Writes `mv` in standard notation, as GNU Backgammon's `FormatMove` does.
///
/// Steps are sorted highest source first; one checker's consecutive steps merge into a chain
/// (`24/18 18/13` is `24/13`), keeping an intermediate point only where it hits
/// (`13/10*/7`); identical paths are counted (`8/2(2)`); `*` marks the first landing on
/// each point where a blot is hit. A pass is `""`.
///
/// ```
/// use bgfast_core::codec::move_text;
/// use bgfast_core::{Dice, Position};
///
/// let moves = Position::START.legal_moves(Dice::from_pips(6, 6).unwrap());
/// let texts: Vec<String> = moves.iter().map(|(mv, _)| move_text::format(&mv)).collect();
/// assert!(texts.contains(&"24/18(2) 13/7(2)".to_string()));
/// ```
pub fn format(mv: &Move) -> String {
    let mut out = String::new();
    write_move(&mut out, mv).expect("writing to a String cannot fail");
    out
}

impl fmt::Display for Move {
    /// The standard notation of [`format()`]; a pass writes nothing.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_move(f, self)
    }
}

/// A checker's path while formatting: its points (source, hit intermediates, destination).
#[derive(Clone, Copy, Default)]
struct Chain {
    points: [u8; MAX_STEPS + 1],
    len: usize,
    count: u8,
}

impl Chain {
    fn dest(&self) -> u8 {
        self.points[self.len - 1]
    }

    fn same_path(&self, other: &Chain) -> bool {
        self.points[..self.len] == other.points[..other.len]
    }
}

fn write_move(out: &mut impl fmt::Write, mv: &Move) -> fmt::Result {
    // Points where this move hits: a blot stood there before the move (only the first step
    // landing there carries the flag, in whatever order the steps were played).
    let hit_points: u32 = mv
        .steps()
        .iter()
        .filter(|s| s.hit)
        .fold(0, |acc, s| acc | bit(s.to));
    let mut steps: Vec<(u8, u8)> = mv.steps().iter().map(|s| (s.from, s.to)).collect();
    // Highest source first, then highest destination: a chain's later steps follow its first.
    steps.sort_by(|a, b| b.cmp(a));

    let mut chains: Vec<Chain> = Vec::with_capacity(steps.len());
    let mut merged = [false; MAX_STEPS];
    for i in 0..steps.len() {
        if merged[i] {
            continue;
        }
        let mut chain = Chain {
            count: 1,
            len: 2,
            ..Chain::default()
        };
        chain.points[0] = steps[i].0;
        chain.points[1] = steps[i].1;
        for j in i + 1..steps.len() {
            let dest = chain.dest();
            if !merged[j] && dest != OFF && steps[j].0 == dest {
                if hit_points & bit(dest) != 0 {
                    // Keep the point where the checker hits.
                    chain.points[chain.len] = steps[j].1;
                    chain.len += 1;
                } else {
                    chain.points[chain.len - 1] = steps[j].1;
                }
                merged[j] = true;
            }
        }
        chains.push(chain);
    }

    // Count identical paths: `8/2 8/2` is `8/2(2)`.
    let mut paths: Vec<Chain> = Vec::with_capacity(chains.len());
    for chain in chains {
        match paths.iter_mut().find(|p| p.same_path(&chain)) {
            Some(p) => p.count += 1,
            None => paths.push(chain),
        }
    }

    let mut starred = 0u32;
    for (i, path) in paths.iter().enumerate() {
        if i > 0 {
            out.write_char(' ')?;
        }
        write_point(out, path.points[0])?;
        for (k, &point) in path.points[1..path.len].iter().enumerate() {
            out.write_char('/')?;
            write_point(out, point)?;
            let intermediate = k + 2 < path.len;
            // Kept intermediates are always hits; the destination is starred once per point.
            if intermediate || (hit_points & bit(point) != 0 && starred & bit(point) == 0) {
                out.write_char('*')?;
                starred |= bit(point);
            }
        }
        if path.count > 1 {
            write!(out, "({})", path.count)?;
        }
    }
    Ok(())
}

/// The mask bit of a point; a malformed step's point beyond 31 (never produced by the
/// generator) has none rather than overflowing.
fn bit(point: u8) -> u32 {
    1u32.checked_shl(point as u32).unwrap_or(0)
}

fn write_point(out: &mut impl fmt::Write, point: u8) -> fmt::Result {
    match point {
        BAR => out.write_str("bar"),
        OFF => out.write_str("off"),
        p => write!(out, "{p}"),
    }
}

/// A point a written path stops on: 1..=24, or 0 (borne off), with the `*` mark.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Stop {
    /// The point landed on, in the mover's numbering; 0 means borne off.
    pub point: u8,
    /// Whether the text marks a hit here with `*`.
    pub hit: bool,
}

/// One written checker path such as `13/10*/7` or `8/2(2)`: unvalidated against any position.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct WrittenPath {
    /// Where the checker starts: 1..=24, or 25 for the bar.
    pub from: u8,
    /// The points written after the source, strictly descending; the last may be 0 (off).
    pub stops: Vec<Stop>,
    /// How many checkers take this path: 1..=4 (`(n)`).
    pub repeat: u8,
    /// Byte offset of the path in the parsed text (for messages).
    pub at: usize,
}

impl WrittenPath {
    /// The segments `(from, stop)` between consecutive written points, in order.
    pub fn segments(&self) -> impl Iterator<Item = (u8, Stop)> + '_ {
        let froms = core::iter::once(self.from).chain(self.stops.iter().map(|s| s.point));
        froms.zip(self.stops.iter().copied())
    }
}

/// A move as written: checker paths with hit marks and repeat counts, syntax checked only.
///
/// An empty list is the pass.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ParsedMove {
    /// The paths in the order written.
    pub paths: Vec<WrittenPath>,
}

impl ParsedMove {
    /// Whether the text names no checker move (a pass).
    pub fn is_pass(&self) -> bool {
        self.paths.is_empty()
    }

    /// The number of written segments, counting repeats: a lower bound on the dice used.
    pub fn segment_count(&self) -> usize {
        self.paths
            .iter()
            .map(|p| p.stops.len() * p.repeat as usize)
            .sum()
    }
}

impl From<&Move> for ParsedMove {
    /// Each step as its own path, `*` where the step hits.
    fn from(mv: &Move) -> ParsedMove {
        ParsedMove {
            paths: mv
                .steps()
                .iter()
                .map(|s| WrittenPath {
                    from: s.from,
                    stops: vec![Stop {
                        point: s.to,
                        hit: s.hit,
                    }],
                    repeat: 1,
                    at: 0,
                })
                .collect(),
        }
    }
}

/// What is wrong with the syntax of a move text.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum SyntaxReason {
    /// A character that has no place in a move.
    UnexpectedChar(char),
    /// A path needs at least `from/to`.
    MissingDestination,
    /// A point was expected (a number, `bar` or `off`).
    ExpectedPoint,
    /// A number outside 0..=25, as written (its digits, however many).
    PointOutOfRange(String),
    /// `off` (or 0) written as a source.
    OffAsSource,
    /// `bar` (or 25) written as a destination.
    BarAsDestination,
    /// A path must go downward: `to` below `from` (R1: checkers move from 24 toward 1).
    Upward {
        /// The point moved from.
        from: u8,
        /// The point written after it.
        to: u8,
    },
    /// Nothing may follow `off` in a path.
    AfterOff,
    /// `*` after the source or after `off`: it marks a point where a blot is hit.
    MisplacedHit,
    /// A repeat count outside 1..=4, or a malformed `(n)`.
    BadRepeat,
    /// More than four single-die steps written (R5: at most four).
    TooManySteps(usize),
}

impl fmt::Display for SyntaxReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SyntaxReason::UnexpectedChar(c) => write!(f, "unexpected character {c:?}"),
            SyntaxReason::MissingDestination => write!(f, "a path needs a destination: from/to"),
            SyntaxReason::ExpectedPoint => {
                write!(
                    f,
                    "expected a point: a number 1..24, 'bar' (25) or 'off' (0)"
                )
            }
            SyntaxReason::PointOutOfRange(n) => {
                write!(
                    f,
                    "point {n} is outside 1..24 (use 25 or 'bar', 0 or 'off')"
                )
            }
            SyntaxReason::OffAsSource => write!(f, "a checker cannot move from 'off'"),
            SyntaxReason::BarAsDestination => write!(f, "a checker cannot move to the bar"),
            SyntaxReason::Upward { from, to } => {
                write!(
                    f,
                    "{}/{} moves upward; checkers move from 24 toward 1 (R1)",
                    PointText(*from),
                    PointText(*to)
                )
            }
            SyntaxReason::AfterOff => write!(f, "nothing can follow 'off' in a path"),
            SyntaxReason::MisplacedHit => {
                write!(
                    f,
                    "'*' marks a point landed on where a blot is hit, not a source or 'off'"
                )
            }
            SyntaxReason::BadRepeat => write!(f, "a repeat is written (1) to (4)"),
            SyntaxReason::TooManySteps(n) => {
                write!(f, "{n} steps written; a play has at most four (R5)")
            }
        }
    }
}

/// Why a text is not a move: where the problem is found, and the reason.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MoveTextError {
    /// Offset in the text, in characters and bytes alike: the parser steps over ASCII only
    /// and stops at the first other character, so everything before this offset is ASCII.
    pub at: usize,
    /// What is wrong.
    pub reason: SyntaxReason,
}

impl fmt::Display for MoveTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid move text at character {}: {}",
            self.at, self.reason
        )
    }
}

impl std::error::Error for MoveTextError {}

/// A point as written: `bar`, `off` or its number.
pub(crate) struct PointText(pub(crate) u8);

impl fmt::Display for PointText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_point(f, self.0)
    }
}

/// Parses a move text: paths separated by whitespace or commas.
///
/// Points are numbers (`25` is the bar, `0` is off), `bar` or `off` in any case; `*` after a
/// landing point marks a hit; `(n)` after a path repeats it for `n` checkers (1..=4). Only
/// the syntax is checked: see [`crate::resolve`] for legality.
///
/// ```
/// use bgfast_core::codec::move_text::{parse, Stop};
///
/// let parsed = parse("bar/22 13/10*/7").unwrap();
/// assert_eq!(parsed.paths[0].from, 25);
/// assert_eq!(parsed.paths[1].stops, vec![Stop { point: 10, hit: true }, Stop { point: 7, hit: false }]);
/// assert!(parse("7/9").is_err());
/// ```
pub fn parse(text: &str) -> Result<ParsedMove, MoveTextError> {
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
    };
    let mut paths = Vec::new();
    let mut steps = 0usize;
    loop {
        parser.skip_separators();
        if parser.pos >= parser.bytes.len() {
            break;
        }
        let path = parser.path()?;
        steps += path.stops.len() * path.repeat as usize;
        if steps > MAX_STEPS {
            return Err(parser.error_at(path.at, SyntaxReason::TooManySteps(steps)));
        }
        paths.push(path);
    }
    Ok(ParsedMove { paths })
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn error(&self, reason: SyntaxReason) -> MoveTextError {
        self.error_at(self.pos, reason)
    }

    fn error_at(&self, at: usize, reason: SyntaxReason) -> MoveTextError {
        debug_assert!(self.bytes[..at].is_ascii());
        MoveTextError { at, reason }
    }

    fn unexpected(&self) -> MoveTextError {
        let c = core::str::from_utf8(&self.bytes[self.pos..])
            .ok()
            .and_then(|s| s.chars().next())
            .unwrap_or(char::REPLACEMENT_CHARACTER);
        self.error(SyntaxReason::UnexpectedChar(c))
    }

    fn skip_separators(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r' | b',')) {
            self.pos += 1;
        }
    }

    fn at_path_end(&self) -> bool {
        matches!(
            self.peek(),
            None | Some(b' ' | b'\t' | b'\n' | b'\r' | b',')
        )
    }

    /// A point: digits, `bar` or `off`, as 0..=25.
    fn point(&mut self) -> Result<u8, MoveTextError> {
        let start = self.pos;
        for (word, value) in [(&b"bar"[..], BAR), (&b"off"[..], OFF)] {
            let end = start + word.len();
            if end <= self.bytes.len() && self.bytes[start..end].eq_ignore_ascii_case(word) {
                self.pos = end;
                return Ok(value);
            }
        }
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(if self.at_path_end() {
                self.error(SyntaxReason::ExpectedPoint)
            } else {
                self.unexpected()
            });
        }
        // Any number of digits: leading zeros are harmless, and a point too large for any
        // integer type is reported as written, never as a saturated value.
        let digits = &self.text[start..self.pos];
        let value = digits.trim_start_matches('0');
        match value.parse::<u8>() {
            Ok(n) if n <= BAR => Ok(n),
            _ if value.is_empty() => Ok(OFF),
            _ => Err(self.error_at(start, SyntaxReason::PointOutOfRange(digits.to_string()))),
        }
    }

    fn path(&mut self) -> Result<WrittenPath, MoveTextError> {
        let at = self.pos;
        let from = self.point()?;
        if from == OFF {
            return Err(self.error_at(at, SyntaxReason::OffAsSource));
        }
        if self.peek() == Some(b'*') {
            return Err(self.error(SyntaxReason::MisplacedHit));
        }
        let mut stops = Vec::new();
        let mut last = from;
        while self.peek() == Some(b'/') {
            self.pos += 1;
            if last == OFF {
                return Err(self.error(SyntaxReason::AfterOff));
            }
            let point_at = self.pos;
            let point = self.point()?;
            if point == BAR {
                return Err(self.error_at(point_at, SyntaxReason::BarAsDestination));
            }
            if point >= last {
                let reason = SyntaxReason::Upward {
                    from: last,
                    to: point,
                };
                return Err(self.error_at(point_at, reason));
            }
            let hit = self.peek() == Some(b'*');
            if hit {
                if point == OFF {
                    return Err(self.error(SyntaxReason::MisplacedHit));
                }
                self.pos += 1;
            }
            stops.push(Stop { point, hit });
            last = point;
        }
        if stops.is_empty() {
            return Err(if self.at_path_end() {
                self.error(SyntaxReason::MissingDestination)
            } else {
                self.unexpected()
            });
        }
        let mut repeat = 1;
        if self.peek() == Some(b'(') {
            let open = self.pos;
            self.pos += 1;
            let mut n: u32 = 0;
            let digits = self.pos;
            while let Some(d @ b'0'..=b'9') = self.peek() {
                n = n.saturating_mul(10).saturating_add((d - b'0') as u32);
                self.pos += 1;
            }
            if self.pos == digits || self.peek() != Some(b')') || !(1..=4).contains(&n) {
                return Err(self.error_at(open, SyntaxReason::BadRepeat));
            }
            self.pos += 1;
            repeat = n as u8;
        }
        if !self.at_path_end() {
            return Err(self.unexpected());
        }
        Ok(WrittenPath {
            from,
            stops,
            repeat,
            at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mv::Step;

    fn step(from: u8, to: u8, hit: bool) -> Step {
        Step { from, to, hit }
    }

    fn text(steps: &[Step]) -> String {
        format(&Move::from_steps(steps).unwrap())
    }

    #[test]
    fn formats_like_gnubg() {
        assert_eq!(text(&[]), "");
        assert_eq!(
            text(&[step(13, 11, false), step(24, 18, false)]),
            "24/18 13/11"
        );
        // A chain without a hit is condensed.
        assert_eq!(text(&[step(24, 18, false), step(18, 13, false)]), "24/13");
        // A hit on the way keeps the intermediate point.
        assert_eq!(text(&[step(13, 10, true), step(10, 7, false)]), "13/10*/7");
        assert_eq!(text(&[step(8, 2, false), step(8, 2, false)]), "8/2(2)");
        assert_eq!(text(&[step(6, 5, false), step(8, 5, false)]), "8/5 6/5");
        assert_eq!(
            text(&[
                step(13, 7, false),
                step(13, 7, false),
                step(7, 1, false),
                step(7, 1, false)
            ]),
            "13/1(2)"
        );
        assert_eq!(
            text(&[step(25, 22, true), step(6, 0, false)]),
            "bar/22* 6/off"
        );
        // Only the first landing on a hit point gets the star, whichever step carried the flag.
        assert_eq!(text(&[step(8, 7, true), step(13, 7, false)]), "13/7* 8/7");
        assert_eq!(text(&[step(7, 1, true), step(7, 1, false)]), "7/1*(2)");
        assert_eq!(
            text(&[
                step(24, 20, true),
                step(20, 16, true),
                step(16, 12, true),
                step(12, 8, false)
            ]),
            "24/20*/16*/12*/8"
        );
    }

    #[test]
    fn malformed_steps_format_without_panicking() {
        // Only hand-built moves can hold these; the text is meaningless but harmless.
        assert_eq!(text(&[step(200, 100, true)]), "200/100");
    }

    #[test]
    fn display_is_format() {
        let mv = Move::from_steps(&[step(24, 18, false), step(13, 11, true)]).unwrap();
        assert_eq!(mv.to_string(), "24/18 13/11*");
    }

    fn path(from: u8, stops: &[(u8, bool)], repeat: u8) -> (u8, Vec<Stop>, u8) {
        (
            from,
            stops
                .iter()
                .map(|&(point, hit)| Stop { point, hit })
                .collect(),
            repeat,
        )
    }

    fn parsed(s: &str) -> Vec<(u8, Vec<Stop>, u8)> {
        parse(s)
            .unwrap_or_else(|e| panic!("{s}: {e}"))
            .paths
            .into_iter()
            .map(|p| (p.from, p.stops, p.repeat))
            .collect()
    }

    #[test]
    fn parses_the_notation() {
        assert_eq!(parsed("24/18"), vec![path(24, &[(18, false)], 1)]);
        assert_eq!(parsed("13/11*"), vec![path(13, &[(11, true)], 1)]);
        assert_eq!(parsed("bar/22"), parsed("25/22"));
        assert_eq!(parsed("BAR/22"), vec![path(25, &[(22, false)], 1)]);
        assert_eq!(parsed("6/off"), parsed("6/0"));
        assert_eq!(parsed("6/Off"), vec![path(6, &[(0, false)], 1)]);
        assert_eq!(parsed("8/2(2)"), vec![path(8, &[(2, false)], 2)]);
        assert_eq!(
            parsed("24/18/13"),
            vec![path(24, &[(18, false), (13, false)], 1)]
        );
        assert_eq!(
            parsed("13/10*/7"),
            vec![path(13, &[(10, true), (7, false)], 1)]
        );
        assert_eq!(
            parsed(" 24/18,13/11  8/5 "),
            vec![
                path(24, &[(18, false)], 1),
                path(13, &[(11, false)], 1),
                path(8, &[(5, false)], 1)
            ]
        );
        assert!(parse("").unwrap().is_pass());
        assert!(parse("  ,").unwrap().is_pass());
        assert_eq!(parse("13/7(4)").unwrap().segment_count(), 4);
    }

    fn out_of_range(digits: &str) -> SyntaxReason {
        SyntaxReason::PointOutOfRange(digits.to_string())
    }

    fn reason(s: &str) -> (usize, SyntaxReason) {
        let e = parse(s).expect_err(s);
        (e.at, e.reason)
    }

    #[test]
    fn syntax_errors_name_position_and_reason() {
        assert_eq!(reason("hello"), (0, SyntaxReason::UnexpectedChar('h')));
        assert_eq!(reason("24/18 x"), (6, SyntaxReason::UnexpectedChar('x')));
        assert_eq!(reason("24/18x"), (5, SyntaxReason::UnexpectedChar('x')));
        assert_eq!(reason("24"), (2, SyntaxReason::MissingDestination));
        assert_eq!(reason("24/"), (3, SyntaxReason::ExpectedPoint));
        assert_eq!(reason("26/20"), (0, out_of_range("26")));
        assert_eq!(reason("13/99999999999"), (3, out_of_range("99999999999")));
        // Regression: a 20-digit point was reported as 4294967295 (saturated).
        let e = parse("13/12345678901234567890").unwrap_err();
        assert_eq!(e.reason, out_of_range("12345678901234567890"));
        assert!(
            e.to_string()
                .contains("point 12345678901234567890 is outside"),
            "{e}"
        );
        assert_eq!(reason("256/3"), (0, out_of_range("256")));
        assert_eq!(reason("0026/3"), (0, out_of_range("0026")));
        assert_eq!(parsed("0024/00018"), vec![path(24, &[(18, false)], 1)]);
        assert_eq!(parsed("6/000"), vec![path(6, &[(0, false)], 1)]);
        assert_eq!(reason("off/3"), (0, SyntaxReason::OffAsSource));
        assert_eq!(reason("0/3"), (0, SyntaxReason::OffAsSource));
        assert_eq!(reason("3/bar"), (2, SyntaxReason::BarAsDestination));
        assert_eq!(reason("3/25"), (2, SyntaxReason::BarAsDestination));
        assert_eq!(reason("7/9"), (2, SyntaxReason::Upward { from: 7, to: 9 }));
        assert_eq!(reason("7/7"), (2, SyntaxReason::Upward { from: 7, to: 7 }));
        assert_eq!(reason("6/off/3"), (6, SyntaxReason::AfterOff));
        assert_eq!(reason("13*/7"), (2, SyntaxReason::MisplacedHit));
        assert_eq!(reason("3/off*"), (5, SyntaxReason::MisplacedHit));
        assert_eq!(reason("8/2(0)"), (3, SyntaxReason::BadRepeat));
        assert_eq!(reason("8/2(5)"), (3, SyntaxReason::BadRepeat));
        assert_eq!(reason("8/2(2"), (3, SyntaxReason::BadRepeat));
        assert_eq!(reason("8/2()"), (3, SyntaxReason::BadRepeat));
        assert_eq!(reason("13/7(3) 8/2(2)"), (8, SyntaxReason::TooManySteps(5)));
        assert_eq!(
            reason("24/20/16/12/8/4"),
            (0, SyntaxReason::TooManySteps(5))
        );
        assert_eq!(reason("8/2(2)x"), (6, SyntaxReason::UnexpectedChar('x')));
        assert_eq!(reason("8/é"), (2, SyntaxReason::UnexpectedChar('é')));
        // The first character that is not ASCII stops the parser: offsets count characters
        // and bytes alike ('é' and a no-break space are two bytes).
        assert_eq!(reason("8/7 éé 6/5"), (4, SyntaxReason::UnexpectedChar('é')));
        assert_eq!(
            reason("8/7,\u{a0}6/5"),
            (4, SyntaxReason::UnexpectedChar('\u{a0}'))
        );
        assert_eq!(
            reason("24/18 13/éé"),
            (9, SyntaxReason::UnexpectedChar('é'))
        );
        let msg = parse("7/9").unwrap_err().to_string();
        assert!(
            msg.contains("at character 2") && msg.contains("R1"),
            "{msg}"
        );
    }
}
