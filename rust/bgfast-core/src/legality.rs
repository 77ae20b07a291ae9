//! Checked play: which legal move a written play denotes, and why a play is illegal.
//!
//! A play means its result (RULES.md "A move is its result"): the written paths are applied
//! to the position and the resulting position is looked up among the generator's distinct
//! results. A condensed path such as `24/13` does not hit on the way unless an intermediate
//! point is written (`24/18*/13`); every written landing point hits a blot standing there.
//!
//! When the play is not legal, the rules are simulated step by step to name the one broken:
//! the dice must cover the written pips (R4, R5), each single-die step must be lawful (R1,
//! R7, R11–R14), and a play whose steps are all lawful but which is not among the legal
//! results uses fewer dice than possible (R8) or the lower die (R9).

use core::fmt;

use crate::checkers::{Checkers, BAR};
use crate::codec::move_text::{ParsedMove, PointText, Stop};
use crate::dice::Dice;
use crate::movegen::MoveList;
use crate::mv::{Move, OFF};
use crate::position::Position;

/// Why a play is not legal in a position for a roll, naming the rule broken.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IllegalMove {
    /// The game is over: no one moves (R15).
    GameOver,
    /// A pass was given but the roll can be played (R8, R10).
    MustPlay,
    /// No checker of the mover stands on `point` (25: the bar) when it should move (R1).
    NoChecker {
        /// The point, in the mover's numbering (25 is the bar).
        point: u8,
    },
    /// The written pips cannot be made from the dice of a non-double (R4).
    DiceMismatch {
        /// The roll.
        dice: Dice,
    },
    /// The written pips cannot be made from four moves of a double's number (R5).
    DoublesMismatch {
        /// The roll.
        dice: Dice,
    },
    /// A checker would land or stop on a point with two or more opposing checkers (R7).
    Blocked {
        /// The point, in the mover's numbering.
        point: u8,
    },
    /// A condensed path would stop on a blot on the way, which hits it (R11); the text must
    /// write the point with `*` to mean that result.
    HitOnTheWay {
        /// Where the path starts.
        from: u8,
        /// Where it ends.
        to: u8,
        /// The point on the way where a blot stands.
        point: u8,
    },
    /// `*` marks a point where no blot can be hit (R11).
    NoBlot {
        /// The point, in the mover's numbering.
        point: u8,
    },
    /// A checker other than the one on the bar moves while a checker is on the bar (R12).
    BarFirst,
    /// A checker is borne off while some checker is outside the home board (R13).
    BearOffGate,
    /// A die higher than the point bears a checker off while a checker stands higher (R14).
    HigherChecker {
        /// The die's number.
        die: u8,
        /// The point borne off from.
        from: u8,
    },
    /// The play uses fewer dice than some legal play does (R8).
    TooFewDice {
        /// Dice the written play uses.
        played: u8,
        /// Dice every legal play uses.
        possible: u8,
        /// Whether the roll is a double.
        double: bool,
    },
    /// Only one die can be played and the text plays the lower one (R9).
    HigherDie {
        /// The higher die, which must be played.
        die: u8,
    },
    /// A path or step that names no real checker move: points are 1..=24, 25 the bar
    /// (sources only), 0 off (destinations only), each path moving downward (R1).
    BadPath {
        /// The point moved from, as given.
        from: u8,
        /// The point moved to, as given.
        to: u8,
    },
    /// The play reaches no legal result for a reason not named above.
    NotLegal,
    /// Moving the checkers as written would leave both sides on the bar against closed
    /// home boards (R12): no game reaches that position, so not even a play recorded as
    /// illegal may make it ([`Position::play_physically`]).
    BothBarred,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            IllegalMove::GameOver => write!(f, "R15: the game is over; no one moves"),
            IllegalMove::MustPlay => {
                write!(f, "R8: a legal play exists, so the roll must be played; a pass is not legal")
            }
            // "Left": a checker may have been there before the play's earlier steps took it.
            IllegalMove::NoChecker { point: BAR } => {
                write!(f, "R1: the mover has no checker left on the bar to move")
            }
            IllegalMove::NoChecker { point } => {
                write!(f, "R1: the mover has no checker left on point {point} to move")
            }
            IllegalMove::DiceMismatch { dice } => write!(
                f,
                "R4: the move does not use the dice {}-{} (one move of {} and one of {})",
                dice.high().pips(),
                dice.low().pips(),
                dice.high().pips(),
                dice.low().pips()
            ),
            IllegalMove::DoublesMismatch { dice } => write!(
                f,
                "R5: the move does not use the dice {0}-{0} (up to four moves of {0})",
                dice.high().pips()
            ),
            IllegalMove::Blocked { point } => write!(
                f,
                "R7: point {point} is blocked (two or more opposing checkers); no checker may land or stop there"
            ),
            IllegalMove::HitOnTheWay { from, to, point } => write!(
                f,
                "R11: {}/{} stops on the blot on point {point} on the way and hits it; write {}/{point}*/{}",
                PointText(from),
                PointText(to),
                PointText(from),
                PointText(to)
            ),
            IllegalMove::NoBlot { point } => {
                write!(f, "R11: '*' on point {point}, but there is no blot there to hit")
            }
            IllegalMove::BarFirst => write!(
                f,
                "R12: the checker on the bar must enter first; no other checker may move while one is on the bar"
            ),
            IllegalMove::BearOffGate => {
                write!(f, "R13: cannot bear off while checkers are outside the home board")
            }
            IllegalMove::HigherChecker { die, from } => write!(
                f,
                "R14: a {die} cannot bear off from the {from}-point while a checker stands higher"
            ),
            IllegalMove::TooFewDice { played, possible, double: false } => write!(
                f,
                "R8: both dice must be played when possible (this play uses {played} of {possible})"
            ),
            IllegalMove::TooFewDice { played, possible, double: true } => write!(
                f,
                "R8: as many dice as possible must be played: {possible} can be, this play uses {played}"
            ),
            IllegalMove::HigherDie { die } => {
                write!(f, "R9: the higher die {die} must be played")
            }
            IllegalMove::BadPath { from, to } => write!(
                f,
                "R1: {from}/{to} is not a checker move (points are 1..24, 25 the bar, 0 off, moving toward 1)"
            ),
            IllegalMove::NotLegal => write!(f, "R8: the play reaches no legal result"),
            IllegalMove::BothBarred => write!(
                f,
                "R12: the play would leave both sides on the bar against closed home boards; \
                 no game reaches that position"
            ),
        }
    }
}

impl IllegalMove {
    /// The id of the rule broken (RULES.md), which also leads the message: `"R8"`.
    pub const fn rule(&self) -> &'static str {
        match self {
            IllegalMove::GameOver => "R15",
            IllegalMove::MustPlay | IllegalMove::TooFewDice { .. } | IllegalMove::NotLegal => "R8",
            IllegalMove::NoChecker { .. } | IllegalMove::BadPath { .. } => "R1",
            IllegalMove::BothBarred => "R12",
            IllegalMove::DiceMismatch { .. } => "R4",
            IllegalMove::DoublesMismatch { .. } => "R5",
            IllegalMove::Blocked { .. } => "R7",
            IllegalMove::HitOnTheWay { .. } | IllegalMove::NoBlot { .. } => "R11",
            IllegalMove::BarFirst => "R12",
            IllegalMove::BearOffGate => "R13",
            IllegalMove::HigherChecker { .. } => "R14",
            IllegalMove::HigherDie { .. } => "R9",
        }
    }
}

impl std::error::Error for IllegalMove {}

/// Finds the legal move that `parsed` denotes in `position` for `dice`: the play whose result
/// equals the text's result. Returns the generator's move and the result (opponent to move).
///
/// ```
/// use bgfast_core::codec::move_text::parse;
/// use bgfast_core::{resolve, Dice, Position};
///
/// let dice = Dice::from_pips(6, 5).unwrap();
/// let (mv, _) = resolve(&Position::START, dice, &parse("24/13").unwrap()).unwrap();
/// assert_eq!(mv.to_string(), "24/13");
/// let err = resolve(&Position::START, dice, &parse("24/18").unwrap()).unwrap_err();
/// assert!(err.to_string().starts_with("R8"));
/// ```
pub fn resolve(
    position: &Position,
    dice: Dice,
    parsed: &ParsedMove,
) -> Result<(Move, Position), IllegalMove> {
    with_moves(position, dice, |list| resolve_in(list, dice, parsed))
}

/// Runs `f` on the legal moves of `position` for `dice`, generated into this thread's
/// reusable list (a `MoveList` is large, and checked play is called often).
fn with_moves<R>(position: &Position, dice: Dice, f: impl FnOnce(&MoveList) -> R) -> R {
    thread_local! {
        static LIST: core::cell::RefCell<MoveList> = core::cell::RefCell::new(MoveList::new());
    }
    let mut f = Some(f);
    let kept = LIST.try_with(|list| {
        let mut list = list.try_borrow_mut().ok()?;
        position.generate_moves(dice, &mut list);
        f.take().map(|f| f(&list))
    });
    // A fresh list if `f` re-enters on one thread, or if the thread is exiting (its
    // thread-locals destroyed: a caller's thread-local destructor may check a move).
    match (kept, f) {
        (Ok(Some(value)), _) => value,
        (_, Some(f)) => f(&position.legal_moves(dice)),
        (_, None) => unreachable!("f ran exactly when it returned a value"),
    }
}

/// [`resolve`] against moves already generated: `list` must hold the moves of its origin for
/// `dice` (as [`Position::generate_moves`] leaves it).
pub fn resolve_in(
    list: &MoveList,
    dice: Dice,
    parsed: &ParsedMove,
) -> Result<(Move, Position), IllegalMove> {
    if list.is_empty() {
        return Err(IllegalMove::GameOver);
    }
    let origin = list.origin();
    if parsed.is_pass() {
        return if list.mv(0).is_pass() {
            Ok((Move::PASS, list.result(0)))
        } else {
            Err(IllegalMove::MustPlay)
        };
    }
    let outcome = simulate(&origin, dice, parsed)?;
    for &(result, _) in &outcome.results {
        if let Some(i) = (0..list.len()).find(|&i| list.result(i) == result) {
            return Ok((list.mv(i), result));
        }
    }
    // Every written step is lawful, yet the result is not legal: too few dice (R8) or the
    // lower die alone (R9).
    let possible = list.mv(0).steps().len() as u8;
    let played = outcome
        .results
        .iter()
        .map(|&(_, used)| used.len)
        .max()
        .unwrap_or(0);
    if played < possible {
        return Err(IllegalMove::TooFewDice {
            played,
            possible,
            double: dice.is_double(),
        });
    }
    if !dice.is_double() && possible == 1 {
        return Err(IllegalMove::HigherDie {
            die: dice.high().pips(),
        });
    }
    Err(IllegalMove::NotLegal)
}

impl Position {
    /// Plays `mv` after checking that it is legal for `dice`: its result must be one of the
    /// legal results (the order and grouping of its steps do not matter). Returns the new
    /// position with the opponent to move; on error `self` is untouched and the error names
    /// the rule broken.
    ///
    /// Generates the legal moves to check (into a list kept per thread, which allocates only
    /// on a thread's first call); engines replaying generator output should use
    /// [`Position::play_unchecked`].
    pub fn play(&self, dice: Dice, mv: &Move) -> Result<Position, IllegalMove> {
        resolve(self, dice, &ParsedMove::from(mv)).map(|(_, result)| result)
    }

    /// The legal move of `self` whose steps are exactly those of `wanted`, in their order:
    /// the roll that generates it and its result (the opponent to move), or `None` if no
    /// roll does. A pass is found for a roll with no legal play (R10), if there is one.
    ///
    /// This is how a move recorded as its steps (a pickled `Move`, a log) is checked and
    /// found again: only rolls whose dice fit the steps' lengths are generated (a step that
    /// lands on the board used a die of exactly its length, a bear-off one at least as
    /// long, R14), one or two for most moves.
    ///
    /// ```
    /// use bgfast_core::{Dice, Position};
    ///
    /// let moves = Position::START.legal_moves(Dice::from_pips(3, 1).unwrap());
    /// let (mv, result) = moves.iter().next().unwrap();
    /// assert_eq!(Position::START.find_move(&mv), Some((Dice::from_pips(3, 1).unwrap(), result)));
    /// ```
    pub fn find_move(&self, wanted: &Move) -> Option<(Dice, Position)> {
        let fits = |dice: Dice| {
            wanted
                .steps()
                .iter()
                .all(|s| match s.from.checked_sub(s.to) {
                    Some(d) if s.to == OFF => d <= dice.high().pips(),
                    Some(d) => d == dice.high().pips() || d == dice.low().pips(),
                    None => false,
                })
        };
        Dice::ALL_21
            .into_iter()
            .filter(|&d| fits(d))
            .find_map(|dice| {
                with_moves(self, dice, |list| {
                    (0..list.len())
                        .find(|&i| list.mv(i) == *wanted)
                        .map(|i| (dice, list.result(i)))
                })
            })
    }

    /// Plays `mv` without checking it; returns the new position with the opponent to move.
    ///
    /// Assumes `mv` is legal in `self` for some roll, such as a move from
    /// [`Position::generate_moves`] on this position: every step's `from` holds a checker of
    /// the mover when the step is played, `to` is below `from`, and a landing point holds at
    /// most one opposing checker, which is hit (the `hit` flags are not read). A move that
    /// breaks these assumptions panics in debug builds and gives a meaningless position in
    /// release builds, which other functions may then panic on: use [`Position::play`] for a
    /// move from outside.
    #[must_use]
    pub fn play_unchecked(&self, mv: &Move) -> Position {
        let mut mover = self.mover();
        let mut opponent = self.opponent();
        for s in mv.steps() {
            debug_assert!(
                s.from <= BAR && s.to < s.from,
                "a step goes down from 1..=25"
            );
            debug_assert!(
                mover.count(s.from) > 0,
                "a step from a point without a checker"
            );
            mover = mover.minus(s.from, 1);
            if s.to != OFF {
                mover = mover.plus(s.to, 1);
                let theirs = BAR - s.to;
                if opponent.count(theirs) != 0 {
                    debug_assert_eq!(opponent.count(theirs), 1, "landing on a blocked point");
                    opponent = opponent.minus(theirs, 1).plus(BAR, 1);
                }
            }
        }
        Position::from_sides_unchecked(opponent, mover)
    }
}

/// Up to four dice values.
#[derive(Clone, Copy, Default, Debug)]
struct DicePool {
    dice: [u8; 4],
    len: u8,
}

impl DicePool {
    fn of(dice: Dice) -> DicePool {
        let (h, l) = (dice.high().pips(), dice.low().pips());
        if dice.is_double() {
            DicePool {
                dice: [h; 4],
                len: 4,
            }
        } else {
            DicePool {
                dice: [h, l, 0, 0],
                len: 2,
            }
        }
    }

    fn values(&self) -> &[u8] {
        &self.dice[..self.len as usize]
    }

    fn without(&self, index: usize) -> DicePool {
        let mut next = *self;
        next.dice.copy_within(index + 1..self.len as usize, index);
        next.len -= 1;
        next
    }

    fn push(&mut self, die: u8) {
        self.dice[self.len as usize] = die;
        self.len += 1;
    }
}

/// One written segment between consecutive written points, as far as it has been played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Segment {
    /// Where its checker stands now (its written start before any die is played).
    at: u8,
    /// The written point it ends on (0: off) and its `*` mark.
    to: Stop,
    /// The whole written path's ends, for messages.
    path_from: u8,
    path_to: u8,
}

impl Segment {
    fn done(&self) -> bool {
        self.at == self.to.point
    }

    fn pips(&self) -> u8 {
        self.at - self.to.point
    }

    fn off(&self) -> bool {
        self.to.point == OFF
    }
}

/// The written segments, each path repeated as often as written.
fn segments(parsed: &ParsedMove) -> Vec<Segment> {
    let mut out = Vec::with_capacity(4);
    for path in &parsed.paths {
        let path_to = path.stops.last().map_or(path.from, |s| s.point);
        for _ in 0..path.repeat {
            for (from, to) in path.segments() {
                out.push(Segment {
                    at: from,
                    to,
                    path_from: path.from,
                    path_to,
                });
            }
        }
    }
    out
}

/// Whether the dice can finish every unfinished segment at once, ignoring the board (R4,
/// R5): each segment needs dice summing to its pips, and a segment to `off` may overshoot
/// with its last die (R14 is checked on the board).
fn dice_cover(segments: &[Segment], pool: DicePool) -> bool {
    /// Ordered choices of dice for the first unfinished segment (`sum` pips of it already
    /// chosen), then the rest.
    fn cover(segments: &[Segment], pool: DicePool, sum: u8) -> bool {
        let Some(first) = segments.iter().position(|s| !s.done()) else {
            return true;
        };
        let seg = segments[first];
        let mut tried = 0u8;
        for (i, &die) in pool.values().iter().enumerate() {
            if tried & (1 << die) != 0 {
                continue;
            }
            tried |= 1 << die;
            let total = sum + die;
            let left = pool.without(i);
            let ok = if total == seg.pips() || (seg.off() && total > seg.pips()) {
                cover(&segments[first + 1..], left, 0)
            } else {
                total < seg.pips() && cover(&segments[first..], left, total)
            };
            if ok {
                return true;
            }
        }
        false
    }
    cover(segments, pool, 0)
}

/// The board while a written play is simulated.
#[derive(Clone, Copy)]
struct Board {
    mover: Checkers,
    opponent: Checkers,
    /// Points (mover's numbering) where this play has hit.
    hits: u32,
    /// Dice used so far.
    used: DicePool,
}

/// Every way the written play can be carried out step by step: results with the dice used.
struct Outcome {
    results: Vec<(Position, DicePool)>,
}

struct Search {
    results: Vec<(Position, DicePool)>,
    /// The error of the attempt that got furthest, with its progress.
    best_error: Option<(u8, IllegalMove)>,
}

impl Search {
    fn fail(&mut self, steps: u8, error: IllegalMove) {
        // Among attempts that got as far, a route that only lacks a written hit is the most
        // telling: the play exists, written differently.
        let progress = 2 * steps + matches!(error, IllegalMove::HitOnTheWay { .. }) as u8;
        if self.best_error.is_none_or(|(p, _)| progress > p) {
            self.best_error = Some((progress, error));
        }
    }
}

/// Checks that plain data (which callers may build by hand) names real points.
pub(crate) fn check_paths(parsed: &ParsedMove) -> Result<(), IllegalMove> {
    for path in &parsed.paths {
        let mut from = path.from;
        if path.stops.is_empty() || !(1..=4).contains(&path.repeat) {
            return Err(IllegalMove::BadPath { from, to: from });
        }
        if from == OFF || from > BAR {
            return Err(IllegalMove::BadPath {
                from,
                to: path.stops[0].point,
            });
        }
        for stop in &path.stops {
            if stop.point >= from || (stop.point == OFF && stop.hit) {
                return Err(IllegalMove::BadPath {
                    from,
                    to: stop.point,
                });
            }
            from = stop.point;
        }
    }
    Ok(())
}

fn simulate(position: &Position, dice: Dice, parsed: &ParsedMove) -> Result<Outcome, IllegalMove> {
    check_paths(parsed)?;
    let mut segments = segments(parsed);
    let pool = DicePool::of(dice);
    if segments.len() > 4 || !dice_cover(&segments, pool) {
        return Err(if dice.is_double() {
            IllegalMove::DoublesMismatch { dice }
        } else {
            IllegalMove::DiceMismatch { dice }
        });
    }
    let board = Board {
        mover: position.mover(),
        opponent: position.opponent(),
        hits: 0,
        used: DicePool::default(),
    };
    let mut search = Search {
        results: Vec::new(),
        best_error: None,
    };
    play_steps(&mut segments, board, pool, &mut search);
    if search.results.is_empty() {
        return Err(search.best_error.map_or(IllegalMove::NotLegal, |(_, e)| e));
    }
    Ok(Outcome {
        results: search.results,
    })
}

/// Plays the written segments one die at a time, always moving a checker from the highest
/// point still to move. That order is the most permissive: it enters from the bar first,
/// brings checkers home before any bears off, and empties higher points before a die bears
/// off from a lower one; a checker arriving on a point arrives before one leaves it. So the
/// written steps are lawful in some order exactly when they are lawful in this one.
fn play_steps(segments: &mut [Segment], board: Board, pool: DicePool, search: &mut Search) {
    let Some(top) = segments.iter().filter(|s| !s.done()).map(|s| s.at).max() else {
        let result = Position::from_sides_unchecked(board.opponent, board.mover);
        search.results.push((result, board.used));
        return;
    };
    for i in 0..segments.len() {
        let seg = segments[i];
        if seg.done() || seg.at != top || segments[..i].contains(&seg) {
            continue; // identical segments would only repeat the search
        }
        let mut tried = 0u8;
        for (k, &die) in pool.values().iter().enumerate() {
            if tried & (1 << die) != 0 || (!seg.off() && die > seg.pips()) {
                continue;
            }
            tried |= 1 << die;
            let left = pool.without(k);
            // Only try dice that leave the others able to finish every segment.
            segments[i].at = seg.at.saturating_sub(die);
            if dice_cover(segments, left) {
                let mut next = board;
                match step(&mut next, &seg, die) {
                    Ok(_) => play_steps(segments, next, left, search),
                    Err(e) => search.fail(board.used.len, e),
                }
            }
            segments[i].at = seg.at;
        }
    }
}

/// Plays one die of `seg` on the board, checking R1, R7 and R11–R14.
fn step(b: &mut Board, seg: &Segment, die: u8) -> Result<(), IllegalMove> {
    let from = seg.at;
    if b.mover.count(from) == 0 {
        return Err(IllegalMove::NoChecker { point: from });
    }
    if from != BAR && b.mover.bar() > 0 {
        return Err(IllegalMove::BarFirst);
    }
    let to = from.saturating_sub(die);
    if to == OFF {
        if !b.mover.all_home() {
            return Err(IllegalMove::BearOffGate);
        }
        if die > from && (from + 1..=24).any(|p| b.mover.count(p) > 0) {
            return Err(IllegalMove::HigherChecker { die, from });
        }
        b.mover = b.mover.minus(from, 1);
    } else {
        let theirs = BAR - to;
        // Only the written points are landings that may hit.
        let written = to == seg.to.point;
        match b.opponent.count(theirs) {
            0 => {
                if written && seg.to.hit && b.hits & (1 << to) == 0 {
                    return Err(IllegalMove::NoBlot { point: to });
                }
            }
            1 => {
                if !written {
                    return Err(IllegalMove::HitOnTheWay {
                        from: seg.path_from,
                        to: seg.path_to,
                        point: to,
                    });
                }
                b.opponent = b.opponent.minus(theirs, 1).plus(BAR, 1);
                b.hits |= 1 << to;
            }
            _ => return Err(IllegalMove::Blocked { point: to }),
        }
        b.mover = b.mover.minus(from, 1).plus(to, 1);
    }
    b.used.push(die);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::move_text::parse;

    /// A position from (point, count) lists for the mover and the opponent, each in its own
    /// numbering (25 = bar).
    fn pos(mover: &[(usize, i32)], opponent: &[(usize, i32)]) -> Position {
        let side = |pairs: &[(usize, i32)]| {
            let mut c = [0; 25];
            for &(p, n) in pairs {
                c[p - 1] = n;
            }
            c
        };
        Position::from_counts(&side(mover), &side(opponent)).unwrap()
    }

    fn dice(a: u8, b: u8) -> Dice {
        Dice::from_pips(a, b).unwrap()
    }

    fn check(position: &Position, roll: Dice, text: &str) -> Result<String, IllegalMove> {
        let parsed = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        resolve(position, roll, &parsed).map(|(mv, _)| mv.to_string())
    }

    fn error(position: &Position, roll: Dice, text: &str) -> IllegalMove {
        let e = check(position, roll, text).expect_err(text);
        // The rule id leads the message.
        let msg = e.to_string();
        assert!(msg.starts_with(&format!("{}: ", e.rule())), "{msg}");
        e
    }

    #[test]
    fn written_order_and_chains_do_not_matter() {
        let start = Position::START;
        assert_eq!(
            check(&start, dice(3, 1), "8/5 6/5"),
            check(&start, dice(3, 1), "6/5 8/5")
        );
        assert_eq!(check(&start, dice(6, 1), "13/7 8/7").unwrap(), "13/7 8/7");
        assert_eq!(check(&start, dice(6, 5), "24/18/13").unwrap(), "24/13");
        // A written intermediate point is a landing: 19 is blocked even though 18 is open.
        assert_eq!(
            check(&start, dice(6, 5), "24/19/13"),
            Err(IllegalMove::Blocked { point: 19 })
        );
        assert_eq!(
            check(&start, dice(6, 5), "bar/14").unwrap_err(),
            IllegalMove::NoChecker { point: 25 }
        );
        assert_eq!(
            check(&start, dice(6, 6), "24/18(2) 13/7(2)").unwrap(),
            "24/18(2) 13/7(2)"
        );
        assert_eq!(
            check(&start, dice(6, 6), "13/7 24/18 24/18 13/7").unwrap(),
            "24/18(2) 13/7(2)"
        );
        assert_eq!(
            check(&start, dice(6, 6), "13/7(2)")
                .unwrap_err()
                .to_string()
                .get(..2),
            Some("R8")
        );
        assert_eq!(check(&start, dice(2, 1), "13/11 6/5").unwrap(), "13/11 6/5");
        assert_eq!(check(&start, dice(2, 1), "13/10").unwrap(), "13/10");
    }

    #[test]
    fn hits_on_the_way_must_be_written_r11() {
        // Mover: checker on 13; opponent blot on the mover's 10 (their 15).
        let p = pos(&[(13, 1), (6, 14)], &[(15, 1), (1, 14)]);
        assert_eq!(
            check(&p, dice(3, 3), "13/10*/7 6/3(2)").unwrap(),
            "13/10*/7 6/3(2)"
        );
        // A written landing point hits with or without the '*'.
        assert_eq!(
            check(&p, dice(3, 3), "13/10/7 6/3(2)").unwrap(),
            "13/10*/7 6/3(2)"
        );
        assert_eq!(check(&p, dice(6, 3), "13/10*/4").unwrap(), "13/10*/4");
        // 13/4 can go via 7 without hitting.
        assert_eq!(check(&p, dice(6, 3), "13/4").unwrap(), "13/4");
        // Block 7: the only route stops on the blot.
        let p = pos(&[(13, 1), (6, 14)], &[(15, 1), (18, 2), (1, 12)]);
        assert_eq!(
            error(&p, dice(6, 3), "13/4"),
            IllegalMove::HitOnTheWay {
                from: 13,
                to: 4,
                point: 10
            }
        );
        assert_eq!(
            error(&p, dice(6, 3), "13/7*/4"),
            IllegalMove::Blocked { point: 7 }
        );
        let e = error(&p, dice(6, 3), "13/4");
        assert!(e.to_string().contains("13/10*/4"), "{e}");
        // A '*' with nothing to hit.
        let e = error(&Position::START, dice(6, 5), "24/18* 13/8");
        assert_eq!(e, IllegalMove::NoBlot { point: 18 });
        assert!(e.to_string().starts_with("R11"));
    }

    #[test]
    fn r1_no_checker() {
        let e = error(&Position::START, dice(6, 5), "23/17 13/8");
        assert_eq!(e, IllegalMove::NoChecker { point: 23 });
        assert!(e.to_string().starts_with("R1:"), "{e}");
    }

    #[test]
    fn r4_dice_mismatch() {
        let e = error(&Position::START, dice(6, 4), "13/4");
        assert_eq!(e, IllegalMove::DiceMismatch { dice: dice(6, 4) });
        assert!(
            e.to_string()
                .starts_with("R4: the move does not use the dice 6-4"),
            "{e}"
        );
        // Two sixes from one six.
        assert_eq!(
            error(&Position::START, dice(6, 4), "24/18 13/7"),
            IllegalMove::DiceMismatch { dice: dice(6, 4) }
        );
        // More moves than dice.
        assert_eq!(
            error(&Position::START, dice(6, 4), "24/18 13/9 8/7"),
            IllegalMove::DiceMismatch { dice: dice(6, 4) }
        );
    }

    #[test]
    fn r5_doubles_mismatch() {
        let e = error(&Position::START, dice(3, 3), "13/9 8/5");
        assert_eq!(e, IllegalMove::DoublesMismatch { dice: dice(3, 3) });
        assert!(e.to_string().starts_with("R5"), "{e}");
        // Five moves of 3 do not fit in four.
        assert_eq!(
            error(&Position::START, dice(3, 3), "24/15 13/7"),
            IllegalMove::DoublesMismatch { dice: dice(3, 3) }
        );
    }

    #[test]
    fn r7_blocked() {
        // The start: the opponent holds the mover's 19 (their 6) and 17 (their 8).
        let e = error(&Position::START, dice(5, 2), "24/19 24/22");
        assert_eq!(e, IllegalMove::Blocked { point: 19 });
        assert!(e.to_string().starts_with("R7: point 19 is blocked"), "{e}");
        // Stopping on a blocked point on the way: 24/17 with 5-2 stops on 19 or 22... 19 is
        // blocked, 22 open, 17 itself is blocked.
        assert_eq!(
            error(&Position::START, dice(5, 2), "24/17"),
            IllegalMove::Blocked { point: 17 }
        );
        // Both intermediate points of 13/2 (6-5) are... use a built position instead.
        let p = pos(&[(13, 2), (6, 13)], &[(18, 2), (17, 2), (1, 11)]);
        assert_eq!(
            error(&p, dice(6, 5), "13/2"),
            IllegalMove::Blocked { point: 7 }
        );
    }

    #[test]
    fn r8_both_dice_when_possible() {
        let e = error(&Position::START, dice(6, 5), "24/18");
        assert_eq!(
            e,
            IllegalMove::TooFewDice {
                played: 1,
                possible: 2,
                double: false
            }
        );
        assert!(
            e.to_string()
                .starts_with("R8: both dice must be played when possible"),
            "{e}"
        );
        // A play that blocks the other die when another play uses both: mover has one
        // checker on 10 and others home; 6-5: 10/4 then the 5 can play 6/1... build a case
        // where the first die chosen leaves the second unplayable.
        let p = pos(&[(14, 1), (1, 14)], &[(4, 2), (2, 2), (1, 11)]);
        // Mover's 21 and 23 blocked (the opponent's 4 and 2). 14/9 with 5 then the 6 from 9
        // lands on 3 (fine); 14/8 with 6 then 5 from 8 lands on 3. So both dice are playable.
        assert_eq!(check(&p, dice(6, 5), "14/3").unwrap(), "14/3");
        assert_eq!(
            error(&p, dice(6, 5), "14/8"),
            IllegalMove::TooFewDice {
                played: 1,
                possible: 2,
                double: false
            }
        );
        // Doubles: as many as possible.
        let e = error(&Position::START, dice(6, 6), "24/18 13/7");
        assert_eq!(
            e,
            IllegalMove::TooFewDice {
                played: 2,
                possible: 4,
                double: true
            }
        );
        assert!(e.to_string().starts_with("R8"), "{e}");
        // A pass when a play exists.
        assert_eq!(
            error(&Position::START, dice(6, 6), ""),
            IllegalMove::MustPlay
        );
    }

    #[test]
    fn r9_higher_die() {
        // Mover: one checker on 12, the rest off... one checker on 12 and opponent blocks so
        // that after either die the other is blocked: the 5 lands on 7, the 3 on 9; from 7 a
        // 3 lands on 4 (blocked), from 9 a 5 lands on 4 (blocked).
        let p = pos(&[(12, 1), (1, 14)], &[(21, 2), (1, 13)]);
        let e = error(&p, dice(5, 3), "12/9");
        assert_eq!(e, IllegalMove::HigherDie { die: 5 });
        assert!(
            e.to_string()
                .starts_with("R9: the higher die 5 must be played"),
            "{e}"
        );
        assert_eq!(check(&p, dice(5, 3), "12/7").unwrap(), "12/7");
    }

    #[test]
    fn r12_bar_first() {
        let p = pos(
            &[(25, 1), (13, 5), (8, 3), (6, 5), (24, 1)],
            &[(24, 2), (13, 5), (8, 3), (6, 5)],
        );
        let e = error(&p, dice(6, 4), "13/7 24/20");
        assert_eq!(e, IllegalMove::BarFirst);
        assert!(
            e.to_string()
                .starts_with("R12: the checker on the bar must enter first"),
            "{e}"
        );
        assert_eq!(check(&p, dice(6, 4), "bar/21 13/7").unwrap(), "bar/21 13/7");
        assert_eq!(check(&p, dice(6, 4), "bar/15").unwrap(), "bar/15");
        // Two on the bar: the second must enter before the first moves on.
        let p = pos(
            &[(25, 2), (13, 5), (8, 3), (6, 5)],
            &[(24, 2), (13, 5), (8, 3), (6, 5)],
        );
        assert_eq!(error(&p, dice(6, 4), "bar/15"), IllegalMove::BarFirst);
        // Entering on a blocked point.
        assert_eq!(
            error(&p, dice(6, 4), "bar/19 bar/21"),
            IllegalMove::Blocked { point: 19 }
        );
    }

    #[test]
    fn r13_bear_off_gate() {
        let p = pos(&[(8, 1), (6, 4), (5, 10)], &[(24, 15)]);
        let e = error(&p, dice(6, 5), "6/off 5/off");
        assert_eq!(e, IllegalMove::BearOffGate);
        assert!(
            e.to_string()
                .starts_with("R13: cannot bear off while checkers are outside the home board"),
            "{e}"
        );
        // Bringing the last checker home first opens the gate.
        assert_eq!(check(&p, dice(6, 3), "8/5 6/off").unwrap(), "8/5 6/off");
        assert_eq!(check(&p, dice(6, 3), "6/off 8/5").unwrap(), "8/5 6/off");
    }

    #[test]
    fn r14_higher_die_bears_off_only_from_the_highest() {
        let p = pos(&[(5, 1), (4, 14)], &[(24, 15)]);
        let e = error(&p, dice(6, 1), "4/off 4/3");
        assert_eq!(e, IllegalMove::HigherChecker { die: 6, from: 4 });
        assert!(
            e.to_string().starts_with(
                "R14: a 6 cannot bear off from the 4-point while a checker stands higher"
            ),
            "{e}"
        );
        assert_eq!(check(&p, dice(6, 1), "5/off 4/3").unwrap(), "5/off 4/3");
        // Moving the higher checker first makes the 4-point the highest.
        assert_eq!(check(&p, dice(6, 1), "5/4 4/off").unwrap(), "5/off");
    }

    #[test]
    fn pass_when_nothing_plays_r10() {
        // Mover on the bar against a closed board.
        let p = pos(
            &[(25, 1), (6, 14)],
            &[(1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (6, 2), (24, 3)],
        );
        let (mv, result) = resolve(&p, dice(6, 5), &parse("").unwrap()).unwrap();
        assert!(mv.is_pass());
        assert_eq!(result, p.flipped());
        assert_eq!(
            error(&p, dice(6, 5), "bar/19"),
            IllegalMove::Blocked { point: 19 }
        );
    }

    #[test]
    fn game_over() {
        let p = pos(&[(1, 1)], &[]);
        assert_eq!(error(&p, dice(2, 1), "1/off"), IllegalMove::GameOver);
    }

    #[test]
    fn play_checks_and_play_unchecked_agrees() {
        let start = Position::START;
        for roll in Dice::ALL_21 {
            for (mv, result) in start.legal_moves(roll).iter() {
                assert_eq!(start.play(roll, &mv), Ok(result));
                assert_eq!(start.play_unchecked(&mv), result);
            }
        }
        let bad = Move::from_steps(&[crate::mv::Step {
            from: 24,
            to: 18,
            hit: false,
        }])
        .unwrap();
        assert_eq!(
            start.play(dice(6, 5), &bad),
            Err(IllegalMove::TooFewDice {
                played: 1,
                possible: 2,
                double: false
            })
        );
        let garbage = Move::from_steps(&[crate::mv::Step {
            from: 30,
            to: 40,
            hit: false,
        }])
        .unwrap();
        assert_eq!(
            start.play(dice(6, 5), &garbage),
            Err(IllegalMove::BadPath { from: 30, to: 40 })
        );
        let upward = Move::from_steps(&[crate::mv::Step {
            from: 3,
            to: 9,
            hit: false,
        }])
        .unwrap();
        assert_eq!(
            start.play(dice(6, 5), &upward),
            Err(IllegalMove::BadPath { from: 3, to: 9 })
        );
        let pass = Move::PASS;
        assert_eq!(start.play(dice(6, 5), &pass), Err(IllegalMove::MustPlay));
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "a step from a point without a checker")]
    fn play_unchecked_from_an_empty_point_panics_in_debug_builds() {
        let from_empty = Move::from_steps(&[crate::mv::Step {
            from: 1,
            to: 0,
            hit: false,
        }])
        .unwrap();
        let _ = Position::START.play_unchecked(&from_empty);
    }
}
