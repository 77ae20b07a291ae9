//! Analysis-grade rollouts: many games from a position, with the cube, the match score,
//! truncation, exact bear-offs and variance reduction, for one position, several
//! candidate plays or a cube decision on common dice.
//!
//! A rollout plays games `k` in a range; game `k` takes every roll from `(seed, k)` alone
//! ([`dice`]), so any thread count, shard layout, branch or candidate sees the same dice
//! in game `k` (common random numbers), and sums are exact ([`moments`]): the answer never
//! depends on how the work was split.
//!
//! Each game reports seven [`Outputs`] for one side, "the player": the five cubeless
//! chances (win, win gammon, win backgammon, lose gammon, lose backgammon; gammons include
//! backgammons), the cubeless equity (R16), and the **value** the rollout is about:
//!
//! | stakes | cubeless | cubeful |
//! |---|---|---|
//! | money | cubeless equity (singles while the cube is centred under Jacoby) | cubeful equity per unit of the starting cube |
//! | match | match-winning chances with the cube fixed | match-winning chances |
//!
//! How a game ends ([`End`]): played to the end (R15, R16); a double passed (the doubler
//! wins the cube's value, R19; the cubeless outputs are then the evaluator's chances, as
//! GNU Backgammon reports them); truncated after `truncate` plies and scored by the
//! evaluator (the cubeful value including the cube action of the side on roll); entering
//! the two-sided bear-off database's range (6 points, up to 6 checkers a side) with
//! `bearoff`, scored exactly (cubeless, or the database's cubeful money equity; in cubeful
//! match play such games play on, as the database knows no match scores); or stopped by
//! the [`MAX_PLIES`] cap.
//!
//! With variance reduction, before each roll the evaluator scores the best play of every
//! one of the 21 rolls; the difference between the rolled roll's value and their mean is
//! that roll's luck, and the game's outputs have the sum of their luck removed. The
//! correction has mean zero whatever the policy does, so the estimate stays unbiased; it
//! removes most of the dice's noise when the evaluator is good.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use bgfast_core::Position;
//! use bgfast_engine::cube::{Cube, CubeContext, CubeLife, MoneyRules, Stakes};
//! use bgfast_engine::net::Net;
//! use bgfast_engine::rollout::{output, run, Branch, Player, Spec};
//!
//! let net = Net::wildbg();
//! let spec = Spec {
//!     seed: 1,
//!     quasi_random: true,
//!     truncate: Some(10),
//!     bearoff: None,
//!     variance_reduction: true,
//!     evaluator: Some(net),
//!     cube_life: Some(CubeLife::Fixed(0.68)),
//! };
//! let money = CubeContext { stakes: Stakes::Money(MoneyRules::default()), cube: Cube::START };
//! let start = [Branch::position(Position::START, money)];
//! let never = AtomicBool::new(false);
//! let sums = run(&spec, &start, || Player::Net(net), 0..36, 2, &never)?;
//! let (cubeful, stderr) = sums.branches[0].outputs[output::VALUE].mean_and_stderr(sums.games);
//! assert!(cubeful.abs() < 1.0 && stderr < 0.5);
//! // The same games on one thread give the same bits.
//! assert_eq!(sums, run(&spec, &start, || Player::Net(net), 0..36, 1, &never)?);
//! # Ok::<(), bgfast_engine::rollout::RunError>(())
//! ```

pub mod dice;
pub mod lockstep;
pub mod moments;
mod run;
mod trial;

use core::fmt;
use core::num::NonZeroU32;

use bgfast_core::bearoff::TwoSided;
use bgfast_core::threads::PoolError;
use bgfast_core::Position;

use crate::cube::{Cube, CubeContext, CubeLife, Stakes};
use crate::net::Net;
use crate::playout::AnyPolicy;
pub use moments::{Sums, Wide};
pub use run::{run, BranchSums, RolloutSums};
pub use trial::Workspace;

/// A game still going after this many plies is scored as if truncated there (by the
/// evaluator, or 0 without one).
pub use crate::playout::MAX_PLIES;

/// The most branches one run takes: every play of a roll (the most any roll has) rolled
/// out together. The paired sums grow with the square of the branches.
pub const MAX_BRANCHES: usize = bgfast_core::MAX_PLAYS;

/// Refuses more than [`MAX_BRANCHES`] branches, as [`run`] and [`lockstep::Lockstep::new`]
/// do before any game.
pub fn check_branches(branches: usize) -> Result<(), SpecError> {
    if branches > MAX_BRANCHES {
        return Err(SpecError::TooManyBranches { asked: branches });
    }
    Ok(())
}

/// The most games a [`lockstep::Lockstep`] keeps in progress at once.
pub const MAX_SLOTS: usize = 1 << 22;

/// The quantities each game reports.
pub const OUTPUTS: usize = 7;

/// Indexes into [`Outputs`].
pub mod output {
    /// The player wins.
    pub const WIN: usize = 0;
    /// The player wins a gammon or backgammon.
    pub const WIN_GAMMON: usize = 1;
    /// The player wins a backgammon.
    pub const WIN_BACKGAMMON: usize = 2;
    /// The player loses a gammon or backgammon.
    pub const LOSE_GAMMON: usize = 3;
    /// The player loses a backgammon.
    pub const LOSE_BACKGAMMON: usize = 4;
    /// Cubeless equity in points per game of one cube (R16).
    pub const EQUITY: usize = 5;
    /// The rollout's value: see the module docs.
    pub const VALUE: usize = 6;
}

/// One game's outputs for the player.
pub type Outputs = [f64; OUTPUTS];

/// How a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum End {
    /// Played to the end.
    Finished = 0,
    /// A double was passed.
    Passed = 1,
    /// Stopped after `truncate` plies, scored by the evaluator.
    Truncated = 2,
    /// Entered the two-sided bear-off database's range, scored exactly.
    Bearoff = 3,
    /// Stopped by [`MAX_PLIES`].
    Capped = 4,
}

/// The number of [`End`] kinds.
pub const ENDS: usize = 5;

/// A rollout's settings, shared by all its branches.
#[derive(Clone, Copy, Debug)]
pub struct Spec<'a> {
    /// Game `k`'s dice come from `(seed, k)` only.
    pub seed: u64,
    /// Rotate the first two rolls over all 1,296 pairs ([`dice`]).
    pub quasi_random: bool,
    /// Stop games after this many plies and score them by the evaluator (0: score the
    /// starting position itself).
    pub truncate: Option<u32>,
    /// End games exactly once both sides are in the two-sided database's range (a cubeful
    /// rollout needs a table with cubeful values, and ends money games only: cubeful match
    /// games play on).
    pub bearoff: Option<&'a TwoSided>,
    /// Remove each roll's luck, as measured by the evaluator.
    pub variance_reduction: bool,
    /// The net that scores truncated games, measures luck and takes cube decisions:
    /// required by each of them ([`Spec::check`]).
    pub evaluator: Option<&'a Net>,
    /// The cube life index of cubeful play (a fixed index from 0 to 1); `None` for a
    /// cubeless rollout (the cube stays where it is).
    pub cube_life: Option<CubeLife>,
}

/// Why a [`Spec`] cannot be rolled out.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum SpecError {
    /// Cubeful play, truncation or variance reduction asked for without an evaluator to
    /// score the positions: names the first of them.
    NoEvaluator {
        /// "cubeful play", "truncation" or "variance reduction".
        needed_by: &'static str,
    },
    /// A fixed cube life index outside 0 to 1, or not a number.
    CubeLife(f64),
    /// More branches than [`MAX_BRANCHES`]: their paired sums alone would take memory in
    /// the square of their number.
    TooManyBranches {
        /// The branches given.
        asked: usize,
    },
    /// A cubeful rollout given a two-sided table without cubeful values: its money games
    /// could not end with their exact cubeful value ([`TwoSided::has_cubeful`]).
    CubelessBearoff,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::NoEvaluator { needed_by } => {
                write!(
                    f,
                    "{needed_by} needs an evaluator (a net to score positions)"
                )
            }
            SpecError::CubeLife(x) => write!(f, "a cube life index is from 0 to 1, not {x}"),
            SpecError::TooManyBranches { asked } => write!(
                f,
                "a rollout takes at most {MAX_BRANCHES} lines (the most plays a roll has), \
                 got {asked}"
            ),
            SpecError::CubelessBearoff => write!(
                f,
                "a cubeful rollout ends bear-offs with the table's cubeful values, and this \
                 table has none: build it with them (TwoSided::build(true, ..)), or give none"
            ),
        }
    }
}

impl std::error::Error for SpecError {}

/// Why [`run`] played no game.
#[derive(Debug)]
pub enum RunError {
    /// The settings cannot be rolled out.
    Spec(SpecError),
    /// The threads asked for cannot be had.
    Pool(PoolError),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Spec(e) => e.fmt(f),
            RunError::Pool(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RunError {}

impl From<SpecError> for RunError {
    fn from(e: SpecError) -> RunError {
        RunError::Spec(e)
    }
}

impl From<PoolError> for RunError {
    fn from(e: PoolError) -> RunError {
        RunError::Pool(e)
    }
}

impl Spec<'_> {
    /// Checks that the settings can be rolled out: an evaluator for whatever needs one, a
    /// cube life index from 0 to 1, a bear-off table with cubeful values for a cubeful
    /// rollout. [`run`] and [`lockstep::Lockstep::new`] check it first.
    pub fn check(&self) -> Result<(), SpecError> {
        if self.cube_life.is_some() && self.bearoff.is_some_and(|t| !t.has_cubeful()) {
            return Err(SpecError::CubelessBearoff);
        }
        if self.evaluator.is_none() {
            let needs = [
                (self.cube_life.is_some(), "cubeful play"),
                (self.truncate.is_some(), "truncation"),
                (self.variance_reduction, "variance reduction"),
            ];
            if let Some(&(_, needed_by)) = needs.iter().find(|(on, _)| *on) {
                return Err(SpecError::NoEvaluator { needed_by });
            }
        }
        match self.cube_life {
            Some(CubeLife::Fixed(x)) if !(0.0..=1.0).contains(&x) => Err(SpecError::CubeLife(x)),
            _ => Ok(()),
        }
    }

    /// Builds the bear-off database's tables for the cube limits `branches` start from (a
    /// third of a second a double left at most), so that no game waits for them.
    fn prepare_bearoff(&self, branches: &[Branch<'_>]) {
        let Some(table) = self.bearoff.filter(|_| self.cube_life.is_some()) else {
            return;
        };
        for branch in branches {
            if let Stakes::Money(_) = branch.context.stakes {
                table.prepare_cube_limit(branch.cube().doubles_left());
            }
        }
    }
}

/// Who chooses the plays: a net (by the rollout's value, see [`Player::Net`]) or a
/// built-in policy.
#[derive(Clone, Debug)]
pub enum Player<'a> {
    /// A net: the play whose result is worth most to the mover, by the net's chances and
    /// the rollout's value (cubeless equity in a cubeless money rollout: wildbg's rule).
    Net(&'a Net),
    /// Random, pubeval or race (boxed: pubeval's tables are large).
    Policy(Box<AnyPolicy<'a>>),
}

/// One line of play rolled out: a starting position and cube, and whose outputs to report.
///
/// Every branch of a run plays game `k` on the same dice.
#[derive(Clone, Copy, Debug)]
pub struct Branch<'a> {
    /// The starting position, its side to move about to roll.
    pub position: Position,
    /// The cube and the stakes, seen from that side.
    pub context: CubeContext<'a>,
    /// Report for the side *not* to move in `position` (a candidate play's result, rolled
    /// out for the player who made it).
    pub for_opponent: bool,
    /// The first ply at which a side may turn the cube: 0 lets the side to move double
    /// before its first roll; 1 in a cube decision's no-double branch; later while the
    /// Holland rule holds the trailer back (see [`Branch::holding_cube`]).
    pub first_cube_ply: u32,
    /// Money values are per unit of this cube value (the cube before a decision).
    pub normaliser: NonZeroU32,
}

/// The value of `context`'s cube, which [`Cube`] keeps a power of two.
fn cube_value(context: &CubeContext<'_>) -> NonZeroU32 {
    NonZeroU32::new(context.cube.value()).expect("a cube's value is a power of two")
}

impl<'a> Branch<'a> {
    /// The position itself, for its side to move, who may double first.
    pub fn position(position: Position, context: CubeContext<'a>) -> Branch<'a> {
        Branch {
            position,
            context,
            for_opponent: false,
            first_cube_ply: 0,
            normaliser: cube_value(&context),
        }
    }

    /// The result of a play, for the player who made it: `context` is the cube and the
    /// stakes seen by that player before the play.
    pub fn after_play(result: Position, context: CubeContext<'a>) -> Branch<'a> {
        Branch {
            position: result,
            context: context.flipped(),
            for_opponent: true,
            first_cube_ply: 0,
            normaliser: cube_value(&context),
        }
    }

    /// A cube decision's branch where the side to move does not double now.
    pub fn no_double(position: Position, context: CubeContext<'a>) -> Branch<'a> {
        Branch {
            first_cube_ply: 1,
            ..Branch::position(position, context)
        }
    }

    /// The same branch with no cube action before its ply `plies` (ply 0 is its first
    /// turn): in a post-Crawford game played under the Holland rule the trailer may double
    /// only after both sides have rolled twice, which the caller counts in plies from the
    /// branch's start.
    pub fn holding_cube(self, plies: u32) -> Branch<'a> {
        Branch {
            first_cube_ply: self.first_cube_ply.max(plies),
            ..self
        }
    }

    /// A cube decision's branch where the side to move doubles and the opponent takes;
    /// money values stay per unit of the cube before the double. `None` past the cube's
    /// limit.
    pub fn double_take(position: Position, context: CubeContext<'a>) -> Option<Branch<'a>> {
        let taken = context.cube.taken()?;
        Some(Branch {
            context: CubeContext {
                stakes: context.stakes,
                cube: taken,
            },
            normaliser: cube_value(&context),
            ..Branch::position(position, context)
        })
    }

    /// Whether the branch's values are match-winning chances.
    pub fn is_match(&self) -> bool {
        matches!(self.context.stakes, Stakes::Match(_))
    }

    /// The starting cube.
    pub fn cube(&self) -> Cube {
        self.context.cube
    }
}
