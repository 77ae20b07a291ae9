//! The doubling cube in evaluation: cubeful values from cubeless probabilities.
//!
//! A net gives cubeless chances; a player with the cube needs cubeful values: what the
//! position is worth when either side may double later, and whether to double, take or
//! pass now. bgfast uses Rick Janowski's model (money) and its match-play form (as GNU
//! Backgammon does, with the cash points of a live cube found from the match equity table
//! level by level). A position's cubeful value is a mix of two extremes:
//!
//! - the **dead cube** value: the cubeless value, as if nobody could ever double again;
//! - the **fully live cube** value: as if the game moved in small steps, so that each side
//!   doubles exactly at its opponent's take point and cashes exactly at its own cash point:
//!   a piecewise linear function of the winning chances between those points.
//!
//! `value = (1 - x) dead + x live`, with `x` the **cube life index** (cube efficiency):
//! 0 is a dead cube, 1 a perfectly efficient one. [`DEFAULT_CUBE_LIFE`] = 0.68 is GNU
//! Backgammon's value for contact positions.
//!
//! A cube below a game's limit counts the doubles left: its live take and cash points are
//! found level by level from the limit down (one double from it, the taker owns a dead
//! cube), in money play as in a match; a cube without a limit of its own ([`MAX_CUBE`])
//! gets Janowski's closed form, their limit.
//!
//! Money values are per unit of the current cube (a double/pass is worth exactly 1.0); match
//! values are match-winning chances (MWC) of the side to move, read from a [`Met`].
//! Everything here is seen from the side to move, about to roll.

use core::fmt;

use bgfast_core::Position;

use crate::eval::Probabilities;

/// GNU Backgammon's cube life index for contact positions, the default of cubeful rollouts.
pub const DEFAULT_CUBE_LIFE: f64 = 0.68;

/// The cube life index of a cubeful evaluation: one number everywhere, or GNU Backgammon's
/// by the kind of position.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum CubeLife {
    /// The same index for every position.
    Fixed(f64),
    /// GNU Backgammon's (`EvalEfficiency`): 0.68 while contact is possible; in a race
    /// `0.55 + pips / 800` of the side on roll, kept from 0.6 to 0.7; 0.6 once both sides
    /// are bearing off (every checker home). Short races hold less cube leverage.
    ByPosition,
}

impl CubeLife {
    /// The index for `pos`, its side on roll about to decide.
    #[inline]
    pub fn at(self, pos: &Position) -> f64 {
        match self {
            CubeLife::Fixed(x) => x,
            CubeLife::ByPosition => {
                if !pos.is_race() {
                    DEFAULT_CUBE_LIFE
                } else if pos.mover().all_home() && pos.opponent().all_home() {
                    0.6
                } else {
                    (0.55 + f64::from(pos.mover().pips()) * 0.001_25).clamp(0.6, 0.7)
                }
            }
        }
    }
}

/// The highest cube value: 32768 (2^15), the largest a GNU Backgammon Match ID can hold and
/// the limit of bgfast's games (R17).
pub const MAX_CUBE: u32 = 1 << 15;

/// Who holds the cube, seen from the side to move (R17).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CubeOwner {
    /// In the middle: either side may double.
    Centred,
    /// Owned by the side to move: only it may redouble.
    Mover,
    /// Owned by the opponent: the side to move may not double.
    Opponent,
}

impl CubeOwner {
    /// The same owner seen by the other side.
    #[inline]
    pub const fn flipped(self) -> CubeOwner {
        match self {
            CubeOwner::Centred => CubeOwner::Centred,
            CubeOwner::Mover => CubeOwner::Opponent,
            CubeOwner::Opponent => CubeOwner::Mover,
        }
    }
}

/// The cube: its value (a power of two, 1 to [`MAX_CUBE`]), its owner, and the highest value
/// the game lets it reach (a power of two from its value to [`MAX_CUBE`]; 1 a game without
/// a cube).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Cube {
    value: u32,
    owner: CubeOwner,
    limit: u32,
}

impl Cube {
    /// The cube at the start of a game: 1, in the middle, limited only by [`MAX_CUBE`].
    pub const START: Cube = Cube {
        value: 1,
        owner: CubeOwner::Centred,
        limit: MAX_CUBE,
    };

    /// A cube of `value` held by `owner`, limited only by [`MAX_CUBE`]; `None` unless
    /// `value` is a power of two from 1 to [`MAX_CUBE`] (R17).
    pub const fn new(value: u32, owner: CubeOwner) -> Option<Cube> {
        Cube::limited(value, owner, MAX_CUBE)
    }

    /// A cube of `value` held by `owner` that may not pass `limit` (a game's maximum cube,
    /// R17); `None` unless both are powers of two with `value <= limit <= MAX_CUBE`.
    pub const fn limited(value: u32, owner: CubeOwner, limit: u32) -> Option<Cube> {
        if value.is_power_of_two() && limit.is_power_of_two() && value <= limit && limit <= MAX_CUBE
        {
            Some(Cube {
                value,
                owner,
                limit,
            })
        } else {
            None
        }
    }

    /// The value.
    #[inline]
    pub const fn value(self) -> u32 {
        self.value
    }

    /// The owner, seen from the side to move.
    #[inline]
    pub const fn owner(self) -> CubeOwner {
        self.owner
    }

    /// The highest value the cube may reach.
    #[inline]
    pub const fn limit(self) -> u32 {
        self.limit
    }

    /// Whether anyone may ever double this cube again: twice its value is within its limit.
    /// A cube that may not is dead for both sides.
    #[inline]
    pub const fn may_turn(self) -> bool {
        self.value * 2 <= self.limit
    }

    /// How many more times the cube may be turned before its limit (0 for a dead cube).
    #[inline]
    pub const fn doubles_left(self) -> u32 {
        (self.limit / self.value).trailing_zeros()
    }

    /// The same cube seen by the other side.
    #[inline]
    pub const fn flipped(self) -> Cube {
        Cube {
            owner: self.owner.flipped(),
            ..self
        }
    }

    /// The cube after the side to move doubles and the opponent takes (R19): twice the
    /// value, owned by the taker. `None` past the cube's limit.
    #[inline]
    pub const fn taken(self) -> Option<Cube> {
        Cube::limited(self.value * 2, CubeOwner::Opponent, self.limit)
    }

    /// The cube after the side to move doubles and the opponent beavers (redoubles at once,
    /// the doubler keeping the cube): four times the value, owned by the doubler. `None`
    /// past the cube's limit.
    #[inline]
    pub const fn beavered(self) -> Option<Cube> {
        Cube::limited(self.value * 4, CubeOwner::Mover, self.limit)
    }
}

/// An error in a match equity table or a match score.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MetError(pub String);

impl fmt::Display for MetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MetError {}

/// How far `mwc(a, b) + mwc(b, a)` may be from 1 in a table: the rounding of a table
/// published to three decimals, each entry rounded on its own (as Python's `bgfast.met`).
const COMPLEMENT_TOLERANCE: f64 = 1e-3;

/// A match equity table: the match-winning chances of a player `a` points away against `b`
/// away, before a game (R20, R21).
///
/// `pre` is the table for games that are not post-Crawford (an entry with a 1-away side is
/// the Crawford game's value); `post` holds the trailer's chances `n` away against a
/// 1-away leader in a post-Crawford game.
#[derive(Clone, PartialEq, Debug)]
pub struct Met {
    size: usize,
    /// `pre[(a - 1) * size + (b - 1)]`.
    pre: Vec<f64>,
    /// `post[n - 1]`.
    post: Vec<f64>,
}

impl Met {
    /// A table covering scores up to `size` away: `pre` row-major (`size * size` entries,
    /// `pre[(a-1) * size + (b-1)]` for `a`-away against `b`-away), `post` (`size` entries,
    /// the trailer `n`-away against a 1-away leader, post-Crawford). Every entry must be a
    /// probability.
    pub fn new(pre: Vec<f64>, post: Vec<f64>) -> Result<Met, MetError> {
        let size = post.len();
        if size == 0 || pre.len() != size * size {
            return Err(MetError(format!(
                "a match equity table needs size x size pre-Crawford entries and size \
                 post-Crawford ones: got {} and {size}",
                pre.len()
            )));
        }
        if let Some(bad) = pre.iter().chain(&post).find(|p| !(0.0..=1.0).contains(*p)) {
            return Err(MetError(format!(
                "match equity table entry {bad} is not a probability"
            )));
        }
        // The checks of Python's `bgfast.met`: one side wins the match, and nobody gains by
        // being further behind (R20).
        let at = |a: usize, b: usize| pre[(a - 1) * size + (b - 1)];
        for a in 1..=size {
            for b in a..=size {
                let sum = at(a, b) + at(b, a);
                if (sum - 1.0).abs() > COMPLEMENT_TOLERANCE {
                    return Err(MetError(format!(
                        "mwc at {a},{b} and {b},{a} add up to {sum}, not 1 (one side wins)"
                    )));
                }
            }
        }
        if (post[0] - 0.5).abs() > COMPLEMENT_TOLERANCE {
            return Err(MetError(format!(
                "post-Crawford mwc at 1-away against 1-away is {}, not 0.5",
                post[0]
            )));
        }
        for a in 2..=size {
            if let Some(b) = (1..=size).find(|&b| at(a, b) > at(a - 1, b)) {
                return Err(MetError(format!("mwc increases with my_away at {a},{b}")));
            }
            if post[a - 1] > post[a - 2] {
                return Err(MetError(format!(
                    "post-Crawford mwc increases with my_away at {a}"
                )));
            }
        }
        Ok(Met { size, pre, post })
    }

    /// The longest score the table covers, in points away.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The names of the tables bgfast ships, the default first: Kazaross-XG2 (eXtreme
    /// Gammon and GNU Backgammon rollouts), Rockwell-Kazaross and Woolsey, as GNU
    /// Backgammon ships them (each file's comments say its source and notice).
    pub const SHIPPED: [&'static str; 3] = ["kazaross-xg2", "rockwell-kazaross", "woolsey"];

    /// The files of [`Met::SHIPPED`], in its order (`data/met/` of this crate, which Python's
    /// `bgfast.met` reads through the bindings too: one copy of each table).
    const SHIPPED_TEXTS: [&'static str; 3] = [
        include_str!("../data/met/met_kazaross_xg2.csv"),
        include_str!("../data/met/met_rockwell_kazaross.csv"),
        include_str!("../data/met/met_woolsey.csv"),
    ];

    /// The name in [`Met::SHIPPED`] that `name` spells, in any case and with `_` or a
    /// space for `-` ("Kazaross_XG2"), as Python's `bgfast.met` reads names; `None` for
    /// another table.
    pub fn shipped_name(name: &str) -> Option<&'static str> {
        let key = name.trim().to_lowercase().replace(['_', ' '], "-");
        Met::SHIPPED.into_iter().find(|&n| n == key)
    }

    /// The text of a shipped table's file ([`Met::from_csv`] reads it), by a name
    /// [`Met::shipped_name`] knows.
    pub fn shipped_text(name: &str) -> Option<&'static str> {
        let name = Met::shipped_name(name)?;
        let k = Met::SHIPPED.iter().position(|&n| n == name)?;
        Some(Met::SHIPPED_TEXTS[k])
    }

    /// A table bgfast ships, by a name [`Met::shipped_name`] knows, read once per process;
    /// `None` for another name.
    pub fn shipped(name: &str) -> Option<&'static Met> {
        use std::sync::OnceLock;
        static TABLES: [OnceLock<Met>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let name = Met::shipped_name(name)?;
        let k = Met::SHIPPED.iter().position(|&n| n == name)?;
        Some(TABLES[k].get_or_init(|| {
            Met::from_csv(Met::SHIPPED_TEXTS[k]).expect("a shipped table is well formed (tested)")
        }))
    }

    /// A table in bgfast's CSV form (the shipped tables' files): lines starting with `#`
    /// are comments, then the header `table,my_away,opp_away,mwc` and one row per entry:
    /// `pre,a,b,p` for `a`-away against `b`-away before a game (an entry with a 1-away side
    /// is the Crawford game's), `post,n,1,p` for the trailer `n`-away against a 1-away
    /// leader after the Crawford game. Every entry from 1 to the table's size must be
    /// there, once.
    pub fn from_csv(text: &str) -> Result<Met, MetError> {
        let bad = |line: usize, why: String| MetError(format!("line {line}: {why}"));
        let mut rows = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
        match rows.next() {
            Some((_, header)) if header.trim() == "table,my_away,opp_away,mwc" => {}
            Some((i, header)) => {
                return Err(bad(
                    i + 1,
                    format!("expected the header table,my_away,opp_away,mwc, found {header:?}"),
                ))
            }
            None => return Err(MetError("no header, no entries".into())),
        }
        let mut entries: Vec<(usize, bool, usize, usize, f64)> = Vec::new();
        for (i, line) in rows {
            let fields: Vec<&str> = line.trim().split(',').collect();
            let [kind, a, b, p] = fields[..] else {
                return Err(bad(
                    i + 1,
                    format!("expected 4 fields, found {}", fields.len()),
                ));
            };
            let away = |t: &str| t.parse::<usize>().ok().filter(|&n| (1..=64).contains(&n));
            let (Some(a), Some(b)) = (away(a), away(b)) else {
                return Err(bad(i + 1, "scores away are from 1 to 64".into()));
            };
            let p = match p.parse::<f64>() {
                Ok(p) if (0.0..=1.0).contains(&p) => p,
                _ => return Err(bad(i + 1, format!("{p:?} is not a probability"))),
            };
            let post = match kind {
                "pre" => false,
                "post" if b == 1 => true,
                _ => return Err(bad(i + 1, format!("{kind},{a},{b} is no entry of a table"))),
            };
            entries.push((i + 1, post, a, b, p));
        }
        let size = entries.iter().map(|e| e.2).max().unwrap_or(0);
        let mut pre: Vec<Option<f64>> = vec![None; size * size];
        let mut post: Vec<Option<f64>> = vec![None; size];
        for &(line, is_post, a, b, p) in &entries {
            let slot = if is_post {
                &mut post[a - 1]
            } else if b <= size {
                &mut pre[(a - 1) * size + (b - 1)]
            } else {
                return Err(bad(
                    line,
                    format!("{a} against {b} lies outside the {size} x {size} table"),
                ));
            };
            if slot.replace(p).is_some() {
                return Err(bad(
                    line,
                    format!("the entry for {a} against {b} is given twice"),
                ));
            }
        }
        let missing = |cells: &[Option<f64>]| cells.iter().position(Option::is_none);
        if let Some(k) = missing(&pre) {
            let (a, b) = (k / size + 1, k % size + 1);
            return Err(MetError(format!(
                "the pre-Crawford entry for {a} against {b} is missing"
            )));
        }
        if let Some(k) = missing(&post) {
            return Err(MetError(format!(
                "the post-Crawford entry for {} away is missing",
                k + 1
            )));
        }
        let pre = pre.into_iter().flatten().collect();
        let post = post.into_iter().flatten().collect();
        Met::new(pre, post)
    }

    /// The chances of the player `mine` points away against `theirs` away at the start of
    /// a game; `post_crawford` reads a score with a 1-away side as post-Crawford. A side at
    /// 0 or less away has won the match. Scores past the table are clamped to its edge
    /// (callers check them first: [`MatchScore::new`]).
    pub fn mwc(&self, mine: i64, theirs: i64, post_crawford: bool) -> f64 {
        if mine <= 0 {
            return 1.0;
        }
        if theirs <= 0 {
            return 0.0;
        }
        let clamp = |n: i64| (n.min(self.size as i64) - 1) as usize;
        if post_crawford && mine == 1 {
            return 1.0 - self.post[clamp(theirs)];
        }
        if post_crawford && theirs == 1 {
            return self.post[clamp(mine)];
        }
        self.pre[clamp(mine) * self.size + clamp(theirs)]
    }
}

/// Money-game rules that change what the cube is worth.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct MoneyRules {
    /// Gammons and backgammons count single while the cube is in the middle (R23).
    pub jacoby: bool,
    /// A player who is doubled may redouble at once, keeping the cube ("beaver").
    pub beavers: bool,
}

/// A match score seen from the side to move.
#[derive(Clone, Copy, Debug)]
pub struct MatchScore<'a> {
    met: &'a Met,
    /// Points away: the side to move, then the opponent.
    away: [u32; 2],
    /// This game is the Crawford game (no cube, R21).
    crawford: bool,
}

impl<'a> MatchScore<'a> {
    /// The score with the side to move `mover_away` points from winning and the opponent
    /// `opponent_away`; `crawford` if this game is the Crawford game (one side must then be
    /// 1-away). Both must be 1 to the table's size.
    pub fn new(
        met: &'a Met,
        mover_away: u32,
        opponent_away: u32,
        crawford: bool,
    ) -> Result<MatchScore<'a>, MetError> {
        for (who, away) in [
            ("the side to move", mover_away),
            ("the opponent", opponent_away),
        ] {
            if away == 0 || away as usize > met.size() {
                return Err(MetError(format!(
                    "{who} is {away} points away: the match equity table covers 1 to {} (R20)",
                    met.size()
                )));
            }
        }
        if crawford && mover_away != 1 && opponent_away != 1 {
            return Err(MetError(format!(
                "the Crawford game needs a side 1-away (R21), not {mover_away}-away against \
                 {opponent_away}-away"
            )));
        }
        Ok(MatchScore {
            met,
            away: [mover_away, opponent_away],
            crawford,
        })
    }

    /// Points away: the side to move, then the opponent.
    pub fn away(&self) -> [u32; 2] {
        self.away
    }

    /// Whether this game is the Crawford game.
    pub fn is_crawford(&self) -> bool {
        self.crawford
    }

    /// Whether this game is played after the Crawford game (a side 1-away, cube back).
    pub fn is_post_crawford(&self) -> bool {
        !self.crawford && self.away.contains(&1)
    }

    /// The same score seen by the other side.
    pub fn flipped(&self) -> MatchScore<'a> {
        MatchScore {
            away: [self.away[1], self.away[0]],
            ..*self
        }
    }

    /// The table.
    pub fn met(&self) -> &'a Met {
        self.met
    }

    /// The chances of `player` (0 the side to move, 1 the opponent) once `winner` has won
    /// `points` in this game. The next game is post-Crawford once a side has been 1-away
    /// in a game (this one is the Crawford game or is already post-Crawford); a side first
    /// reaching 1-away makes it the Crawford game (the table's 1-away entries).
    ///
    /// # Panics
    /// If `player` or `winner` is not 0 or 1.
    pub fn mwc_after(&self, player: usize, winner: usize, points: u32) -> f64 {
        let mut away = self.away.map(i64::from);
        away[winner] -= i64::from(points);
        let post = self.crawford || self.away.contains(&1);
        self.met.mwc(away[player], away[1 - player], post)
    }
}

/// What a game is played for: money, or a match score.
#[derive(Clone, Copy, Debug)]
pub enum Stakes<'a> {
    /// A money game.
    Money(MoneyRules),
    /// A match game.
    Match(MatchScore<'a>),
}

impl<'a> Stakes<'a> {
    /// The same stakes seen by the other side.
    pub fn flipped(&self) -> Stakes<'a> {
        match self {
            Stakes::Money(rules) => Stakes::Money(*rules),
            Stakes::Match(score) => Stakes::Match(score.flipped()),
        }
    }
}

/// The side to move's cube decision and the values behind it.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct CubeDecision {
    /// The value of not doubling now.
    pub no_double: f64,
    /// The value of doubling when the opponent takes.
    pub double_take: f64,
    /// The value of doubling when the opponent passes.
    pub double_pass: f64,
    /// Whether the side to move doubles (it may, and both answers are worth at least not
    /// doubling).
    pub double: bool,
    /// Whether the opponent takes a double (taking beats passing for it).
    pub take: bool,
    /// Whether the opponent beavers a double it takes (money play with beavers, when it is
    /// the favourite after taking, but not by more than twice the cube: a beaver may be
    /// passed). The side to move does not double a double that would be beavered when twice
    /// the take is worth less to it than not doubling.
    pub beaver: bool,
}

impl CubeDecision {
    /// The value of the position after the side to move's decision and the opponent's
    /// answer.
    pub fn value(&self) -> f64 {
        match (self.double, self.take) {
            (false, _) => self.no_double,
            (true, true) => self.double_take,
            (true, false) => self.double_pass,
        }
    }

    /// Too good to double: the opponent would pass, and playing on for a gammon is worth
    /// more than cashing.
    pub fn too_good(&self) -> bool {
        !self.take && self.no_double > self.double_pass
    }
}

/// The cube seen from the side to move, with the stakes: everything a cubeful value needs
/// besides the chances.
///
/// Its values take a cube life index `x` from 0 (a dead cube) to 1 (a fully live one) and
/// chances as a net gives them (each at most the one it is part of, wins at most 1). Both
/// are trusted here, on the hot path of cubeful rollouts: an `x` outside 0 to 1 or a NaN
/// gives a meaningless value, not an error. [`crate::rollout::Spec::check`] checks a
/// rollout's index, and the Python and C bindings check what they are given.
#[derive(Clone, Copy, Debug)]
pub struct CubeContext<'a> {
    /// Money or the match score.
    pub stakes: Stakes<'a>,
    /// The cube.
    pub cube: Cube,
}

/// Chances of single wins and losses (gammons counted apart): the outcomes' shares.
#[derive(Clone, Copy, Debug)]
struct Ratios {
    /// Of the side to move's wins: gammons (without backgammons), backgammons.
    win: [f64; 2],
    /// Of its losses: gammons (without backgammons), backgammons.
    lose: [f64; 2],
}

impl Ratios {
    fn of(p: &Probabilities) -> Ratios {
        let win = f64::from(p.win);
        let share = |part: f32, of: f64| if of > 0.0 { f64::from(part) / of } else { 0.0 };
        Ratios {
            win: [
                share(p.win_gammon - p.win_backgammon, win),
                share(p.win_backgammon, win),
            ],
            lose: [
                share(p.lose_gammon - p.lose_backgammon, 1.0 - win),
                share(p.lose_backgammon, 1.0 - win),
            ],
        }
    }

    /// The shares of the wins of `player` (0 the side to move, 1 the opponent).
    fn of_player(&self, player: usize) -> [f64; 2] {
        if player == 0 {
            self.win
        } else {
            self.lose
        }
    }
}

impl<'a> CubeContext<'a> {
    /// The context of the other side (after the turn passes).
    pub fn flipped(&self) -> CubeContext<'a> {
        CubeContext {
            stakes: self.stakes.flipped(),
            cube: self.cube.flipped(),
        }
    }

    /// Whether the side to move may double now: the cube is in the middle or its own, below
    /// its limit; in a match, not in the Crawford game (R21), not when the cube is dead
    /// for it (its current value already wins the match), not when it is the 1-away leader
    /// after the Crawford game (a double could only help the trailer).
    pub fn may_double(&self) -> bool {
        if self.cube.owner == CubeOwner::Opponent || !self.cube.may_turn() {
            return false;
        }
        match &self.stakes {
            Stakes::Money(_) => true,
            Stakes::Match(score) => {
                let [mine, _] = score.away;
                !score.crawford
                    && mine > self.cube.value
                    && !(score.is_post_crawford() && mine == 1)
            }
        }
    }

    /// The value of a double the opponent passes: 1.0 in money (per unit of the current
    /// cube), the chances after winning the cube's value in a match.
    pub fn double_pass(&self) -> f64 {
        match &self.stakes {
            Stakes::Money(_) => 1.0,
            Stakes::Match(score) => score.mwc_after(0, 0, self.cube.value),
        }
    }

    /// The cubeless (dead cube) value: money equity per unit of cube (gammons count single
    /// while the cube is in the middle under the Jacoby rule, R23), or the match chances if
    /// the cube never moved again.
    pub fn dead(&self, p: &Probabilities) -> f64 {
        match &self.stakes {
            Stakes::Money(rules) => {
                let win = f64::from(p.win);
                if rules.jacoby && self.cube.owner == CubeOwner::Centred {
                    2.0 * win - 1.0
                } else {
                    f64::from(p.equity())
                }
            }
            Stakes::Match(score) => Outcomes::at(score, self.cube.value).dead(p),
        }
    }

    /// The value of not doubling now: Janowski's cubeful value with cube life `x`; the dead
    /// cube's value when nobody may double again (the cube at its limit).
    pub fn no_double(&self, p: &Probabilities, x: f64) -> f64 {
        self.no_double_with(None, p, x)
    }

    /// The value of doubling when the opponent takes: the opponent then owns twice the
    /// cube (money values stay per unit of the cube before the double, so they double).
    pub fn double_take(&self, p: &Probabilities, x: f64) -> f64 {
        match self.taken() {
            Some(after) => self.per_unit_now(after.no_double_with(None, p, x)),
            None => self.no_double(p, x),
        }
    }

    /// The side to move's decision, the opponent's answer and their values. A side that may
    /// not double gets `double = false` (the other values are still filled in).
    pub fn decide(&self, p: &Probabilities, x: f64) -> CubeDecision {
        self.decision(self.no_double(p, x), self.double_take(p, x))
    }

    /// The value of the position after the best cube action by both sides (the no-double
    /// value when the side to move may not double).
    pub fn value(&self, p: &Probabilities, x: f64) -> f64 {
        if self.may_double() {
            self.decide(p, x).value()
        } else {
            self.no_double(p, x)
        }
    }

    /// The context after the side to move doubles and the opponent takes (`None` past the
    /// cube's limit).
    fn taken(&self) -> Option<CubeContext<'a>> {
        self.cube.taken().map(|cube| CubeContext {
            stakes: self.stakes,
            cube,
        })
    }

    /// A value of the context after a take, per unit of the cube now.
    fn per_unit_now(&self, value: f64) -> f64 {
        match &self.stakes {
            Stakes::Money(_) => 2.0 * value,
            Stakes::Match(_) => value,
        }
    }

    /// The decision with these values of not doubling and of a double taken.
    fn decision(&self, no_double: f64, double_take: f64) -> CubeDecision {
        let double_pass = self.double_pass();
        // The taker passes when taking is no better for it (GNU Backgammon's convention).
        let take = double_take < double_pass;
        let best_answer = double_take.min(double_pass);
        // A beaver may be passed (R19), so it is worth min(-2 DT, 2) to the taker (DT per
        // unit of the cube now): more than a take only for -2 <= DT < 0.
        let beaver = take
            && (-2.0..0.0).contains(&double_take)
            && matches!(self.stakes, Stakes::Money(MoneyRules { beavers: true, .. }))
            && self.cube.beavered().is_some();
        // GNU Backgammon's "no double, beaver": the double would be beavered, and twice the
        // take is worth less than not doubling.
        let beavered_away = beaver && 2.0 * double_take < no_double;
        // A double worth exactly not doubling is made, as GNU Backgammon names it (the
        // value is the same either way).
        let double = self.may_double() && best_answer >= no_double && !beavered_away;
        CubeDecision {
            no_double,
            double_take,
            double_pass,
            double,
            take,
            beaver,
        }
    }

    /// What the match score says about the live cube now, worked out for any chances:
    /// `None` in money play and wherever the cube is dead.
    fn match_terms(&self) -> Option<MatchTerms> {
        match &self.stakes {
            Stakes::Match(score) if self.cube.may_turn() && self.match_cube_alive(score) => {
                Some(MatchTerms::new(score, self.cube))
            }
            _ => None,
        }
    }

    /// [`CubeContext::no_double`], with this context's [`CubeContext::match_terms`] if
    /// they were kept (else the match terms are worked out on the way, level by level).
    fn no_double_with(&self, kept: Option<&MatchTerms>, p: &Probabilities, x: f64) -> f64 {
        if !self.cube.may_turn() {
            return self.dead(p);
        }
        match &self.stakes {
            Stakes::Money(rules) => self.money_no_double(rules, p, x),
            Stakes::Match(score) if !self.match_cube_alive(score) => self.dead(p),
            Stakes::Match(score) => {
                let ratios = Ratios::of(p);
                let (outcomes, cash_points) = match kept {
                    Some(terms) => (
                        terms.outcomes,
                        cash_points(terms.levels.iter().copied(), &ratios),
                    ),
                    None => (
                        Outcomes::at(score, self.cube.value),
                        cash_points(level_terms(score, self.cube), &ratios),
                    ),
                };
                self.match_no_double(&outcomes, cash_points, &ratios, p, x)
            }
        }
    }

    fn money_no_double(&self, rules: &MoneyRules, p: &Probabilities, x: f64) -> f64 {
        let dead = self.dead(p);
        let win = f64::from(p.win);
        // Nearly sure games: the cube is as good as dead (and W or L would divide by ~0).
        if win <= 1e-7 || win >= 1.0 - 1e-7 {
            return dead;
        }
        // The average value of a win and of a loss.
        let w = 1.0 + f64::from(p.win_gammon + p.win_backgammon) / win;
        let l = 1.0 + f64::from(p.lose_gammon + p.lose_backgammon) / (1.0 - win);
        let [take_point, cash_point] = self.money_points(w, l);
        let jacoby = rules.jacoby;
        // Lines through the live cube's corners: (0, -L), the take point at -1, the cash
        // point at +1, and (1, W).
        let live = match self.cube.owner {
            CubeOwner::Centred => {
                if win < take_point {
                    if jacoby {
                        -1.0
                    } else {
                        -l + (l - 1.0) * win / take_point
                    }
                } else if win < cash_point {
                    -1.0 + 2.0 * (win - take_point) / (cash_point - take_point)
                } else if jacoby {
                    1.0
                } else {
                    1.0 + (w - 1.0) * (win - cash_point) / (1.0 - cash_point)
                }
            }
            CubeOwner::Mover => {
                if win < cash_point {
                    -l + (1.0 + l) * win / cash_point
                } else {
                    1.0 + (w - 1.0) * (win - cash_point) / (1.0 - cash_point)
                }
            }
            CubeOwner::Opponent => {
                if win < take_point {
                    -l + (l - 1.0) * win / take_point
                } else {
                    -1.0 + (w + 1.0) * (win - take_point) / (1.0 - take_point)
                }
            }
        };
        dead * (1.0 - x) + live * x
    }

    /// The side to move's live-cube take point and cash point in money play (the winning
    /// chances at which it takes a double at the most, and doubles the opponent out), from
    /// the average values of its wins `w` and its losses `l`. Without a cube limit,
    /// Janowski's: each side doubles at the other's take point however often the cube has
    /// turned. With a limit, found level by level from it down, as the match model finds
    /// its cash points (those converge to Janowski's a few levels below the limit).
    fn money_points(&self, w: f64, l: f64) -> [f64; 2] {
        if self.cube.limit == MAX_CUBE {
            return [(l - 0.5) / (w + l + 0.5), (l + 1.0) / (w + l + 0.5)];
        }
        // Side k's average win and loss (0 the side to move, 1 the opponent).
        let (wins, losses) = ([w, l], [l, w]);
        // At the highest value that may be turned the doubled cube is dead: side k cashes
        // where the taker's dead-cube equity, twice the cubeless one, is worth a pass.
        let mut cash = [0, 1].map(|k| (losses[k] + 0.5) / (wins[k] + losses[k]));
        let mut level = self.cube.limit / 2;
        while level > self.cube.value {
            level /= 2;
            // The taker owns a live cube it cashes with at its own cash point one level up
            // (its equity runs from -L at 0 to +1 there); it takes while that is worth at
            // least half a pass.
            let above = cash;
            cash = [0, 1].map(|k| {
                let o = 1 - k;
                1.0 - above[o] * (losses[o] - 0.5) / (losses[o] + 1.0)
            });
        }
        [1.0 - cash[1], cash[0]]
    }

    /// Whether the cube can still matter in this match game (else the value is the dead
    /// cube's): not the Crawford game, not dead for both sides, and not 2-away against
    /// 2-away (where the first double is automatic, GNU Backgammon's convention).
    fn match_cube_alive(&self, score: &MatchScore<'_>) -> bool {
        let [mine, theirs] = score.away;
        let c = self.cube.value;
        let dead_for_both = mine <= c && theirs <= c;
        let two_away_each = mine == 2 && theirs == 2;
        !(score.crawford || dead_for_both || two_away_each)
    }

    /// The value of not doubling in a match, with the side to move's chances after each
    /// end of the game and both sides' live-cube cash points.
    fn match_no_double(
        &self,
        outcomes: &Outcomes,
        [mover_cash_point, opponent_cash_point]: [f64; 2],
        ratios: &Ratios,
        p: &Probabilities,
        x: f64,
    ) -> f64 {
        let dead = outcomes.dead(p);
        let Outcomes { won, lost } = *outcomes;
        let win_all = spread(ratios.win, won);
        let lose_all = spread(ratios.lose, lost);
        let (cash, opponent_cash) = (won[0], lost[0]);
        // The live cube: straight lines between the points where the opponent cashes
        // (win = 1 - its cash point), where we cash (our cash point), and the ends.
        let too_good = mover_cash_point;
        let opponent_too_good = 1.0 - opponent_cash_point;
        let win = f64::from(p.win);
        let line = |x0: f64, y0: f64, x1: f64, y1: f64| {
            if x1 > x0 {
                y0 + (y1 - y0) * (win - x0) / (x1 - x0)
            } else {
                y1
            }
        };
        let live = match self.cube.owner {
            CubeOwner::Centred => {
                if win <= opponent_too_good {
                    line(0.0, lose_all, opponent_too_good, opponent_cash)
                } else if win < too_good {
                    line(opponent_too_good, opponent_cash, too_good, cash)
                } else {
                    line(too_good, cash, 1.0, win_all)
                }
            }
            CubeOwner::Mover => {
                if win <= too_good {
                    line(0.0, lose_all, too_good, cash)
                } else {
                    line(too_good, cash, 1.0, win_all)
                }
            }
            CubeOwner::Opponent => {
                if win <= opponent_too_good {
                    line(0.0, lose_all, opponent_too_good, opponent_cash)
                } else {
                    line(opponent_too_good, opponent_cash, 1.0, win_all)
                }
            }
        };
        dead * (1.0 - x) + live * x
    }
}

/// The cube model of one context and cube life, with what the match score says worked out
/// once: the values of many positions at the same stakes. ([`CubeContext`]'s own methods
/// work the same terms out on the way, for one position.)
#[derive(Clone, Debug)]
pub struct CubeModel<'a> {
    context: CubeContext<'a>,
    x: f64,
    /// The match terms of the cube now.
    now: Option<MatchTerms>,
    /// The context after a double is taken, with its match terms (`None` past the limit).
    taken: Option<(CubeContext<'a>, Option<MatchTerms>)>,
}

impl<'a> CubeModel<'a> {
    /// The model of `context` with cube life `x`.
    pub fn new(context: CubeContext<'a>, x: f64) -> CubeModel<'a> {
        CubeModel {
            context,
            x,
            now: context.match_terms(),
            taken: context.taken().map(|after| (after, after.match_terms())),
        }
    }

    /// [`CubeContext::no_double`].
    pub fn no_double(&self, p: &Probabilities) -> f64 {
        self.context.no_double_with(self.now.as_ref(), p, self.x)
    }

    /// [`CubeContext::double_take`].
    pub fn double_take(&self, p: &Probabilities) -> f64 {
        match &self.taken {
            Some((after, terms)) => {
                self.context
                    .per_unit_now(after.no_double_with(terms.as_ref(), p, self.x))
            }
            None => self.no_double(p),
        }
    }

    /// [`CubeContext::decide`].
    pub fn decide(&self, p: &Probabilities) -> CubeDecision {
        self.context
            .decision(self.no_double(p), self.double_take(p))
    }
}

/// The side to move's match-winning chances after each end of the game at one cube value.
#[derive(Clone, Copy, Debug)]
struct Outcomes {
    /// After winning 1, 2 and 3 times the cube (a single game, a gammon, a backgammon).
    won: [f64; 3],
    /// After losing them.
    lost: [f64; 3],
}

impl Outcomes {
    fn at(score: &MatchScore<'_>, cube: u32) -> Outcomes {
        Outcomes {
            won: [1, 2, 3].map(|k| score.mwc_after(0, 0, k * cube)),
            lost: [1, 2, 3].map(|k| score.mwc_after(0, 1, k * cube)),
        }
    }

    /// The match chances if the cube never moved again.
    fn dead(&self, p: &Probabilities) -> f64 {
        let Outcomes { won, lost } = self;
        // Written so that equal outcome values cancel exactly (at double match point every
        // win is 1.0 and every loss 0.0, and the value is the win chance).
        lost[0]
            + f64::from(p.win) * (won[0] - lost[0])
            + f64::from(p.win_gammon) * (won[1] - won[0])
            + f64::from(p.win_backgammon) * (won[2] - won[1])
            - f64::from(p.lose_gammon) * (lost[0] - lost[1])
            - f64::from(p.lose_backgammon) * (lost[1] - lost[2])
    }
}

/// The chances of single wins, gammons and backgammons `values` averaged with the shares
/// `[gammons, backgammons]` of a side's wins (or losses).
fn spread([g, b]: [f64; 2], values: [f64; 3]) -> f64 {
    (1.0 - g - b) * values[0] + g * values[1] + b * values[2]
}

/// What the match equity table says about one side's live-cube cash point at one cube
/// level, whatever the chances.
#[derive(Clone, Copy, Debug)]
enum CashTerms {
    /// The doubled cube is dead: the side cashes at the opponent's dead-cube take point.
    /// Its chances when the opponent passes, after a take and a win (single, gammon,
    /// backgammon) and after a take and a loss.
    Dead {
        pass: f64,
        take_win: [f64; 3],
        take_lose: [f64; 3],
    },
    /// The taker owns a live cube it cashes with one level up. The side's chances when the
    /// opponent passes, after a take and a win, and when it passes the redouble.
    Live {
        pass: f64,
        take_win: [f64; 3],
        redouble_pass: f64,
    },
}

/// Both sides' cash-point terms at every level a match cube can reach, from the highest
/// that can still be turned down to the cube's value (one that can still be turned at this
/// score and within the cube's limit).
///
/// The cash points are found from the top down: at the highest cube level that can still
/// be turned (by the score or by the game's cube limit), the doubled cube is dead, and the
/// cash point is the opponent's dead-cube take point (counting the taker's automatic
/// redouble when only the doubler can win the match with the doubled cube and the limit
/// allows it). Below it, the taker owns a live cube it will cash with at its own cash
/// point one level up, which moves the take point.
fn level_terms<'s>(
    score: &'s MatchScore<'_>,
    cube: Cube,
) -> impl Iterator<Item = [CashTerms; 2]> + 's {
    // Points needed minus one: the "normalised score" of the live-cube formulas.
    let needed = score.away.map(|a| i64::from(a) - 1);
    let c = i64::from(cube.value);
    let limit = i64::from(cube.limit);
    let mut top = c;
    while needed[0] >= 2 * top && needed[1] >= 2 * top && 4 * top <= limit {
        top *= 2;
    }
    let levels = core::iter::successors(Some(top), move |&level| (level > c).then_some(level / 2));
    levels.map(move |level| {
        [0, 1].map(|k| {
            let o = 1 - k;
            // Chances of player k after a win or a loss of `points`.
            let won = |points: i64| score.mwc_after(k, k, points as u32);
            let lost = |points: i64| score.mwc_after(k, o, points as u32);
            let take_win = |v: i64| [won(2 * v), won(4 * v), won(6 * v)];
            let pass = won(level);
            // The doubled cube may not be turned again.
            let at_limit = 4 * level > limit;
            if at_limit || needed[0] < 2 * level || needed[1] < 2 * level {
                // The doubled cube is dead; the taker redoubles at once when only the
                // doubler can win the match with it (and the limit allows it).
                let redoubles = !at_limit && needed[k] < 2 * level && needed[o] >= 2 * level;
                let effective = if redoubles { 2 * level } else { level };
                CashTerms::Dead {
                    pass,
                    take_win: take_win(effective),
                    take_lose: [
                        lost(2 * effective),
                        lost(4 * effective),
                        lost(6 * effective),
                    ],
                }
            } else {
                CashTerms::Live {
                    pass,
                    take_win: take_win(level),
                    redouble_pass: lost(2 * level),
                }
            }
        })
    })
}

/// The live-cube cash points of both sides at the lowest of `levels` (top down, as
/// [`level_terms`] gives them): the winning chances at which each would double the other
/// out, for chances with these shares of gammons.
fn cash_points(levels: impl IntoIterator<Item = [CashTerms; 2]>, ratios: &Ratios) -> [f64; 2] {
    let mut above = [0.0f64; 2];
    for level in levels {
        let mut here = [0.0f64; 2];
        for (k, point) in here.iter_mut().enumerate() {
            let o = 1 - k;
            let (mine, theirs) = (ratios.of_player(k), ratios.of_player(o));
            *point = match level[k] {
                CashTerms::Dead {
                    pass,
                    take_win,
                    take_lose,
                } => {
                    let take_lose = spread(theirs, take_lose);
                    ratio_or_half(take_lose - pass, take_lose - spread(mine, take_win))
                }
                CashTerms::Live {
                    pass,
                    take_win,
                    redouble_pass,
                } => {
                    // The taker cashes at its own cash point one level up: we pass there.
                    let take_win = spread(mine, take_win);
                    1.0 - above[o] * ratio_or_half(pass - take_win, redouble_pass - take_win)
                }
            };
        }
        above = here;
    }
    above
}

/// What the match score says about a live cube at one value, kept for many chances: the
/// side to move's chances after each end of the game and [`level_terms`].
#[derive(Clone, Debug)]
struct MatchTerms {
    outcomes: Outcomes,
    levels: Vec<[CashTerms; 2]>,
}

impl MatchTerms {
    fn new(score: &MatchScore<'_>, cube: Cube) -> MatchTerms {
        MatchTerms {
            outcomes: Outcomes::at(score, cube.value),
            levels: level_terms(score, cube).collect(),
        }
    }
}

/// `num / den`, or one half when the denominator vanishes (no spread between the outcomes:
/// any point is as good as another).
fn ratio_or_half(num: f64, den: f64) -> f64 {
    if den.abs() > 1e-12 {
        num / den
    } else {
        0.5
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_shipped_tables_read_as_python_reads_them() {
        for name in Met::SHIPPED {
            let met = Met::shipped(name).unwrap();
            // pre: mwc(a, b) + mwc(b, a) = 1, as the files' comments say.
            for a in 1..=met.size() as i64 {
                for b in 1..=met.size() as i64 {
                    let sum = met.mwc(a, b, false) + met.mwc(b, a, false);
                    assert!((sum - 1.0).abs() < 1e-5, "{name} {a},{b}: {sum}");
                }
            }
        }
        let xg2 = Met::shipped("kazaross-xg2").unwrap();
        assert_eq!(xg2.size(), 25);
        // Transcribed from the file: pre 1,2 and 2,1; post 2 against 1.
        assert_eq!(xg2.mwc(1, 2, false), 0.67736);
        assert_eq!(Met::shipped("woolsey").unwrap().size(), 15);
        assert_eq!(Met::shipped_name(" Kazaross_XG2"), Some("kazaross-xg2"));
        assert!(Met::shipped("no-such-table").is_none());
    }

    #[test]
    fn a_malformed_table_is_refused_naming_the_fault() {
        let said = |text: &str| Met::from_csv(text).unwrap_err().to_string();
        let header = "# a comment\ntable,my_away,opp_away,mwc\n";
        let said_with = |rows: &str| said(&format!("{header}{rows}"));
        assert!(said("").contains("no header"));
        assert!(said("table,a,b\n").contains("line 1: expected the header"));
        assert!(said_with("pre,1,1,0.5\n").contains("post-Crawford entry for 1 away is missing"));
        let twice = said_with("pre,1,1,0.5\npre,1,1,0.5\npost,1,1,0.5\n");
        assert!(
            twice.contains("line 4: the entry for 1 against 1 is given twice"),
            "{twice}"
        );
        assert!(said_with("pre,1,1,x\n").contains("line 3: \"x\" is not a probability"));
        // NaN is no probability, on its own line (it once passed for a missing entry).
        assert!(said_with("pre,1,1,NaN\npre,1,1,0.5\n").contains("line 3: \"NaN\""));
        assert!(said_with("pre,0,1,0.5\n").contains("from 1 to 64"));
        assert!(said_with("post,1,2,0.5\n").contains("no entry"));
        assert!(said_with("pre,1,1,1.5\npost,1,1,0.5\n").contains("line 3: \"1.5\""));
        assert!(
            said_with("pre,1,3,0.5\npost,1,1,0.5\n").contains("line 3: 1 against 3 lies outside")
        );
        // Python's checks: one side wins, nobody gains by being further behind (R20).
        let rows =
            "pre,1,1,0.5\npre,1,2,0.9\npre,2,1,0.9\npre,2,2,0.5\npost,1,1,0.5\npost,2,1,0.3\n";
        assert!(said_with(rows).contains("mwc at 1,2 and 2,1 add up to"));
        let rises =
            "pre,1,1,0.5\npre,1,2,0.4\npre,2,1,0.6\npre,2,2,0.5\npost,1,1,0.5\npost,2,1,0.3\n";
        assert!(said_with(rises).contains("mwc increases with my_away at 2,1"));
        let one = Met::from_csv(&format!("{header}pre,1,1,0.5\npost,1,1,0.5\n")).unwrap();
        assert_eq!(one.size(), 1);
    }

    use super::*;

    fn probs(win: f32, wg: f32, wbg: f32, lg: f32, lbg: f32) -> Probabilities {
        Probabilities::from_array([win, wg, wbg, lg, lbg])
    }

    fn money(owner: CubeOwner) -> CubeContext<'static> {
        CubeContext {
            stakes: Stakes::Money(MoneyRules::default()),
            cube: Cube::new(1, owner).unwrap(),
        }
    }

    /// A Woolsey-like table for tests: 1 - the chances fall with points needed.
    fn met() -> Met {
        let size = 11;
        let mut pre = vec![0.0; size * size];
        for a in 1..=size {
            for b in 1..=size {
                // A logistic curve in the points difference, symmetric: pre(a,b) + pre(b,a) = 1.
                let d = b as f64 - a as f64;
                pre[(a - 1) * size + (b - 1)] =
                    1.0 / (1.0 + (-0.35 * d / (a + b) as f64 * 4.0).exp());
            }
        }
        let post: Vec<f64> = (1..=size)
            .map(|n| {
                if n == 1 {
                    0.5
                } else {
                    0.5f64.powi(n as i32 / 2 + 1)
                }
            })
            .collect();
        Met::new(pre, post).unwrap()
    }

    #[test]
    fn gammonless_money_points_are_janowskis() {
        // Without gammons W = L = 1: the take point is 1/5 at x = 1 and a double/take is
        // worth exactly a double/pass there.
        let ctx = money(CubeOwner::Centred);
        let p = probs(0.8, 0.0, 0.0, 0.0, 0.0);
        let d = ctx.decide(&p, 1.0);
        assert!((d.double_take - 1.0).abs() < 1e-6, "{d:?}");
        // Dead cube (x = 0): equity 2p - 1 whoever owns the cube.
        for owner in [CubeOwner::Centred, CubeOwner::Mover, CubeOwner::Opponent] {
            let v = money(owner).no_double(&p, 0.0);
            assert!((v - 0.6).abs() < 1e-6);
        }
    }

    #[test]
    fn money_decisions_follow_the_chances() {
        let x = DEFAULT_CUBE_LIFE;
        let centred = money(CubeOwner::Centred);
        let weak = centred.decide(&probs(0.55, 0.1, 0.0, 0.1, 0.0), x);
        assert!(!weak.double && weak.take, "{weak:?}");
        let strong = centred.decide(&probs(0.72, 0.1, 0.0, 0.05, 0.0), x);
        assert!(strong.double && strong.take, "{strong:?}");
        let pass = centred.decide(&probs(0.85, 0.05, 0.0, 0.02, 0.0), x);
        assert!(pass.double && !pass.take && pass.value() == 1.0, "{pass:?}");
        let gammonish = centred.decide(&probs(0.9, 0.6, 0.05, 0.0, 0.0), x);
        assert!(!gammonish.double && gammonish.too_good(), "{gammonish:?}");
        // The opponent's cube: no double possible.
        let theirs = money(CubeOwner::Opponent).decide(&probs(0.85, 0.0, 0.0, 0.0, 0.0), x);
        assert!(!theirs.double);
    }

    #[test]
    fn owning_the_cube_is_worth_something() {
        let p = probs(0.6, 0.15, 0.01, 0.1, 0.01);
        let x = DEFAULT_CUBE_LIFE;
        let mine = money(CubeOwner::Mover).no_double(&p, x);
        let middle = money(CubeOwner::Centred).no_double(&p, x);
        let theirs = money(CubeOwner::Opponent).no_double(&p, x);
        assert!(mine > middle && middle > theirs, "{mine} {middle} {theirs}");
        // Seen from the other side, the same position's values mirror.
        let q = p.flipped();
        let mirror = money(CubeOwner::Opponent).no_double(&q, x);
        assert!((mirror + mine).abs() < 1e-6, "{mirror} {mine}");
    }

    /// Money with the cube centred at 1, under these options.
    fn centred_money(jacoby: bool, beavers: bool) -> CubeContext<'static> {
        CubeContext {
            stakes: Stakes::Money(MoneyRules { jacoby, beavers }),
            cube: Cube::START,
        }
    }

    #[test]
    fn jacoby_counts_gammons_single_with_a_centred_cube() {
        let ctx = centred_money(true, false);
        let p = probs(0.6, 0.3, 0.1, 0.1, 0.0);
        assert!((ctx.dead(&p) - 0.2).abs() < 1e-6);
    }

    #[test]
    fn beaver_when_the_taker_is_the_favourite() {
        let ctx = centred_money(false, true);
        let d = ctx.decide(&probs(0.35, 0.0, 0.0, 0.0, 0.0), DEFAULT_CUBE_LIFE);
        assert!(d.take && d.beaver && !d.double, "{d:?}");
    }

    #[test]
    fn a_beaver_beats_a_take_only_within_twice_the_cube() {
        let ctx = centred_money(false, true);
        // Passing a beaver costs the doubler 2: past that, the taker takes instead.
        for (double_take, beaver) in [(-0.5, true), (-2.0, true), (-2.13, false), (0.1, false)] {
            let d = ctx.decision(-3.0, double_take);
            assert_eq!((d.take, d.beaver), (true, beaver), "DT {double_take}");
        }
        // GNU Backgammon's "no double, beaver": a double that is worth more than not
        // doubling when taken, but less once beavered.
        let d = ctx.decision(-0.5, -0.3);
        assert!(d.beaver && !d.double, "{d:?}");
        let d = ctx.decision(-0.7, -0.3);
        assert!(d.beaver && d.double, "{d:?}");
        // The same chances as a gnubg check: double/take -2.13 is a take, not a beaver.
        let d = ctx.decide(
            &probs(0.25868, 0.01788, 0.0, 0.42216, 0.01004),
            DEFAULT_CUBE_LIFE,
        );
        assert!(d.double_take < -2.0 && d.take && !d.beaver, "{d:?}");
    }

    #[test]
    fn match_dead_cube_at_double_match_point_is_the_win_chance() {
        let met = met();
        let score = MatchScore::new(&met, 1, 1, false).unwrap();
        let ctx = CubeContext {
            stakes: Stakes::Match(score),
            cube: Cube::START,
        };
        let p = probs(0.37, 0.2, 0.01, 0.1, 0.02);
        assert_eq!(ctx.dead(&p), f64::from(p.win));
        assert_eq!(ctx.no_double(&p, DEFAULT_CUBE_LIFE), f64::from(p.win));
        assert!(!ctx.may_double(), "the cube is dead at DMP");
    }

    #[test]
    fn match_values_are_chances_and_mirror() {
        let met = met();
        let x = DEFAULT_CUBE_LIFE;
        for (a, b) in [(7, 7), (5, 3), (3, 5), (2, 4), (9, 2)] {
            let score = MatchScore::new(&met, a, b, false).unwrap();
            let p = probs(0.62, 0.18, 0.01, 0.09, 0.005);
            for owner in [CubeOwner::Centred, CubeOwner::Mover, CubeOwner::Opponent] {
                let ctx = CubeContext {
                    stakes: Stakes::Match(score),
                    cube: Cube::new(1, owner).unwrap(),
                };
                let v = ctx.no_double(&p, x);
                assert!((0.0..=1.0).contains(&v), "{a} {b} {owner:?}: {v}");
                let other = ctx.flipped().no_double(&p.flipped(), x);
                assert!(
                    (v + other - 1.0).abs() < 1e-9,
                    "{a} {b} {owner:?}: {v} + {other}"
                );
            }
        }
    }

    #[test]
    fn crawford_game_has_no_cube() {
        let met = met();
        let score = MatchScore::new(&met, 3, 1, true).unwrap();
        let ctx = CubeContext {
            stakes: Stakes::Match(score),
            cube: Cube::START,
        };
        assert!(!ctx.may_double());
        let p = probs(0.8, 0.2, 0.0, 0.0, 0.0);
        assert_eq!(ctx.no_double(&p, 1.0), ctx.dead(&p));
        // After the Crawford game, the trailer may double; the 1-away leader may not.
        let post = MatchScore::new(&met, 3, 1, false).unwrap();
        assert!(post.is_post_crawford());
        let trailer = CubeContext {
            stakes: Stakes::Match(post),
            cube: Cube::START,
        };
        assert!(trailer.may_double());
        assert!(!trailer.flipped().may_double());
        assert!(MatchScore::new(&met, 3, 2, true).is_err());
    }

    #[test]
    fn gnubg_cube_life_follows_the_kind_of_position() {
        let mut race = [0i32; 25];
        race[5] = 10;
        race[11] = 3;
        let mut other = [0i32; 25];
        other[4] = 15;
        let pos = Position::from_counts(&race, &other).unwrap();
        // 96 pips: 0.55 + 96 / 800 = 0.67.
        assert!(pos.is_race());
        assert!((CubeLife::ByPosition.at(&pos) - 0.67).abs() < 1e-12);
        assert_eq!(CubeLife::ByPosition.at(&Position::START), DEFAULT_CUBE_LIFE);
        let mut home = [0i32; 25];
        home[0] = 3;
        let bearoff = Position::from_counts(&home, &home).unwrap();
        assert_eq!(CubeLife::ByPosition.at(&bearoff), 0.6);
        assert_eq!(CubeLife::Fixed(0.5).at(&bearoff), 0.5);
    }

    #[test]
    fn cubes_are_powers_of_two_up_to_the_limit() {
        assert!(Cube::new(3, CubeOwner::Centred).is_none());
        assert!(Cube::new(0, CubeOwner::Centred).is_none());
        assert!(Cube::new(MAX_CUBE, CubeOwner::Mover)
            .unwrap()
            .taken()
            .is_none());
        let c = Cube::new(2, CubeOwner::Mover).unwrap();
        assert_eq!(c.taken(), Cube::new(4, CubeOwner::Opponent));
        assert_eq!(c.flipped().owner(), CubeOwner::Opponent);
        let small = Cube::limited(2, CubeOwner::Mover, 4).unwrap();
        assert_eq!(small.taken(), Cube::limited(4, CubeOwner::Opponent, 4));
        assert!(small.beavered().is_none() && small.taken().unwrap().taken().is_none());
        assert!(Cube::limited(4, CubeOwner::Mover, 2).is_none());
        assert!(Cube::limited(1, CubeOwner::Centred, 3).is_none());
        assert!(!Cube::limited(1, CubeOwner::Centred, 1).unwrap().may_turn());
        let left =
            |value, limit| Cube::limited(value, CubeOwner::Centred, limit).map(Cube::doubles_left);
        assert_eq!(left(1, 1), Some(0));
        assert_eq!(left(2, 16), Some(3));
        assert_eq!(left(1, MAX_CUBE), Some(15));
        assert_eq!(left(MAX_CUBE / 2, MAX_CUBE), Some(1));
        assert_eq!(left(MAX_CUBE, MAX_CUBE), Some(0));
    }

    #[test]
    fn a_cube_at_its_limit_is_dead_for_both_sides() {
        let p = Probabilities::from_array([0.7, 0.25, 0.02, 0.08, 0.01]);
        let money = MoneyRules {
            jacoby: false,
            beavers: false,
        };
        for owner in [CubeOwner::Mover, CubeOwner::Opponent, CubeOwner::Centred] {
            for (value, limit) in [(1, 1), (4, 4), (MAX_CUBE, MAX_CUBE)] {
                let context = CubeContext {
                    stakes: Stakes::Money(money),
                    cube: Cube::limited(value, owner, limit).unwrap(),
                };
                assert!(!context.may_double());
                assert_eq!(context.value(&p, 0.68), context.dead(&p));
                assert_eq!(context.no_double(&p, 1.0), f64::from(p.equity()));
            }
        }
        // Below its limit the same cube is alive: owning it is worth more than the dead value.
        let alive = CubeContext {
            stakes: Stakes::Money(money),
            cube: Cube::limited(4, CubeOwner::Mover, 8).unwrap(),
        };
        assert!(alive.no_double(&p, 0.68) > alive.dead(&p));
    }

    #[test]
    fn one_double_from_the_limit_the_taker_takes_as_with_a_dead_cube() {
        // Gammonless money, the cube one double from its limit: whoever takes owns a dead
        // cube, so the take point is 1/4 (not Janowski's live 1/5) and the cash point 3/4.
        let centred = |limit: u32| CubeContext {
            stakes: Stakes::Money(MoneyRules::default()),
            cube: Cube::limited(1, CubeOwner::Centred, limit).unwrap(),
        };
        for (win, value) in [(0.25, -1.0), (0.5, 0.0), (0.75, 1.0)] {
            let p = probs(win, 0.0, 0.0, 0.0, 0.0);
            assert!(
                (centred(2).no_double(&p, 1.0) - value).abs() < 1e-6,
                "{win}"
            );
        }
        // Without the limit the live cube cashes at 4/5: at 3/4 it is not yet worth a pass.
        let p = probs(0.75, 0.0, 0.0, 0.0, 0.0);
        assert!(centred(MAX_CUBE).no_double(&p, 1.0) < 0.9);
        // Two doubles from the limit, the points move towards Janowski's: the opponent
        // cashes (and we pass) at 1 - 3/4 * (1 - 1/2) / 2 = 0.8125 for it, 0.1875 for us.
        let p = probs(0.1875, 0.0, 0.0, 0.0, 0.0);
        assert!((centred(4).no_double(&p, 1.0) + 1.0).abs() < 1e-6);
    }

    #[test]
    fn a_far_limit_values_the_cube_as_janowski_does() {
        // The points found level by level converge to Janowski's closed form, which is
        // what a cube without a limit of its own gets.
        let p = probs(0.68, 0.3, 0.02, 0.12, 0.01);
        for owner in [CubeOwner::Centred, CubeOwner::Mover, CubeOwner::Opponent] {
            let at = |limit: u32| {
                CubeContext {
                    stakes: Stakes::Money(MoneyRules::default()),
                    cube: Cube::limited(1, owner, limit).unwrap(),
                }
                .decide(&p, 0.68)
            };
            let unlimited = at(MAX_CUBE);
            let mut errors = Vec::new();
            for doubles in 1..15 {
                let d = at(1 << doubles);
                errors.push((d.no_double - unlimited.no_double).abs());
            }
            assert!(errors[13] < 1e-6, "{owner:?} {errors:?}");
            assert!(
                errors[0] > 1e-3 && errors[6] < errors[0] / 10.0,
                "{owner:?} {errors:?}"
            );
        }
    }

    #[test]
    fn a_match_cube_stops_at_the_games_limit() {
        let met = met();
        // 11-away each: the cash points come down from a cube of 8 (10 points needed: a
        // cube of 16 would be dead).
        let score = MatchScore::new(&met, 11, 11, false).unwrap();
        let p = probs(0.7, 0.2, 0.01, 0.1, 0.005);
        let at = |limit: u32| {
            CubeContext {
                stakes: Stakes::Match(score),
                cube: Cube::limited(1, CubeOwner::Centred, limit).unwrap(),
            }
            .decide(&p, 0.68)
        };
        let unlimited = at(MAX_CUBE);
        // A limit that lets the cube reach the score's highest level changes nothing.
        assert_eq!(at(16), unlimited);
        assert_eq!(at(1 << 10), unlimited);
        // One that cuts the levels does; at one double from it the taker owns a dead cube.
        assert_ne!(at(8).no_double, unlimited.no_double);
        assert_ne!(at(4).no_double, at(8).no_double);
        let last = at(2);
        assert_ne!(last.no_double, at(4).no_double);
        let after_take = CubeContext {
            stakes: Stakes::Match(score),
            cube: Cube::limited(2, CubeOwner::Opponent, 2).unwrap(),
        };
        assert_eq!(last.double_take, after_take.dead(&p));
    }
}
