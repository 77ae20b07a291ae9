//! Playouts: complete cubeless games from a position, and rollouts over many of them.
//!
//! Game `k` of a rollout with seed `s` takes all its dice from [`GameRng::new(s, k)`], and
//! its first roll, when stratified, is the ordered roll `k mod 36`: so every roll gets its
//! exact share of each block of 36 games, and a game's course never depends on the thread
//! that plays it. Rollouts add integer counts, so 1, 2 or 64 threads (or any split of the
//! game range into shards) give bit-identical totals.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use bgfast_engine::playout::{PolicyKind, Rollout};
//! use bgfast_core::Position;
//!
//! let r = Rollout { position: Position::START, seed: 7, truncate: None, stratify: true };
//! let never = AtomicBool::new(false);
//! let one = r.run_builtin(0..72, PolicyKind::Pubeval, 1, &never);
//! let two = r.run_builtin(0..72, PolicyKind::Pubeval, 2, &never);
//! assert_eq!(one, two);
//! assert_eq!(one.games(), 72);
//! ```
//!
//! A policy that needs more than the board (a bear-off database for perfect bear-offs, a
//! neural net) implements [`Policy`] and holds what it needs; see [`Rollout::run`].

use core::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use crate::net::{Net, NetPolicy};
use crate::pubeval;
use bgfast_core::bearoff::{index::index_unchecked, OneSided};
use bgfast_core::rng::{ordered_roll, GameRng};
use bgfast_core::{Dice, MoveList, Position, Side, WinKind};

/// A checker-play policy: picks one of the legal results of a roll.
///
/// `list` holds at least two results (a forced play is never asked), generated from
/// `list.origin()`; `list.result(i)` has the opponent to move. A policy may draw from the
/// game's generator, which keeps games reproducible. A policy that needs more than the board
/// (a bear-off database, a net) holds it itself; `&mut self` lets it keep scratch buffers.
pub trait Policy {
    /// The index of the chosen result, `< list.len()`.
    fn choose(&mut self, list: &MoveList, rng: &mut GameRng) -> usize;
}

/// Chooses uniformly among the distinct legal results.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomPolicy;

impl Policy for RandomPolicy {
    #[inline]
    fn choose(&mut self, list: &MoveList, rng: &mut GameRng) -> usize {
        rng.below(list.len() as u32) as usize
    }
}

/// Tesauro's pubeval: the result with the highest score, race weights when the position
/// before the move is a race (the first of equals).
#[derive(Clone, Debug, Default)]
pub struct PubevalPolicy {
    tables: pubeval::Tables,
}

impl PubevalPolicy {
    /// A pubeval player.
    pub fn new() -> PubevalPolicy {
        PubevalPolicy {
            tables: pubeval::Tables::new(),
        }
    }
}

impl Policy for PubevalPolicy {
    #[inline]
    fn choose(&mut self, list: &MoveList, _rng: &mut GameRng) -> usize {
        self.tables.best(list)
    }
}

/// Bear-offs played perfectly from the one-sided bear-off database, pubeval elsewhere.
///
/// Once contact is broken and every checker of the side to move is home, it plays the
/// result whose home board has the fewest expected rolls to bear off (the first of equals):
/// the bear-off-perfect race play of [`OneSided::best_play`]. Before that it plays as
/// [`PubevalPolicy`].
#[derive(Clone, Debug)]
pub struct RacePolicy {
    table: Arc<OneSided>,
    pubeval: PubevalPolicy,
}

impl RacePolicy {
    /// A race player over `table`.
    pub fn new(table: Arc<OneSided>) -> RacePolicy {
        RacePolicy {
            table,
            pubeval: PubevalPolicy::new(),
        }
    }

    /// A race player over the one-sided table of this process, built on first use (about a
    /// tenth of a second on all cores) and shared by every later call.
    pub fn shared() -> RacePolicy {
        static TABLE: OnceLock<Arc<OneSided>> = OnceLock::new();
        let build = || {
            // On a pool of ours, never rayon's global one (a forked child cannot use it).
            bgfast_core::threads::install(bgfast_core::threads::default_threads(), OneSided::build)
                .unwrap_or_else(|_| OneSided::build())
        };
        RacePolicy::new(TABLE.get_or_init(|| Arc::new(build())).clone())
    }
}

impl Policy for RacePolicy {
    fn choose(&mut self, list: &MoveList, rng: &mut GameRng) -> usize {
        let origin = list.origin();
        if !(origin.is_race() && origin.mover().all_home()) {
            return self.pubeval.choose(list, rng);
        }
        let mut best = 0;
        let mut fewest = f64::INFINITY;
        for i in 0..list.len() {
            // The chooser is the result's row 1; all its checkers are on points 1..=6.
            let own = list.result(i).opponent();
            let counts: [u8; 6] = core::array::from_fn(|k| own.count(k as u8 + 1));
            let rolls = self.table.expected_rolls(index_unchecked(&counts));
            if rolls < fewest {
                fewest = rolls;
                best = i;
            }
        }
        best
    }
}

/// The built-in policies by name, for callers that pick one at run time.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum PolicyKind {
    /// [`RandomPolicy`].
    Random,
    /// [`PubevalPolicy`].
    Pubeval,
    /// [`RacePolicy`] over the process's shared one-sided table.
    Race,
}

impl PolicyKind {
    /// The policy named `name` (`"random"`, `"pubeval"` or `"race"`).
    pub fn from_name(name: &str) -> Option<PolicyKind> {
        match name {
            "random" => Some(PolicyKind::Random),
            "pubeval" => Some(PolicyKind::Pubeval),
            "race" => Some(PolicyKind::Race),
            _ => None,
        }
    }
}

/// A policy chosen at run time: a built-in one, or a net.
#[derive(Clone, Debug)]
pub enum AnyPolicy<'a> {
    /// [`RandomPolicy`].
    Random(RandomPolicy),
    /// [`PubevalPolicy`].
    Pubeval(PubevalPolicy),
    /// [`RacePolicy`].
    Race(RacePolicy),
    /// [`NetPolicy`].
    Net(NetPolicy<'a>),
}

impl AnyPolicy<'_> {
    /// A player of the built-in policy `kind`.
    ///
    /// Call it outside a thread pool and clone the player into the pool's work: the race
    /// policy builds the process's one-sided table on first use ([`RacePolicy::shared`]),
    /// and a pool worker blocked on that build may be handed other work that waits for it.
    pub fn builtin(kind: PolicyKind) -> AnyPolicy<'static> {
        match kind {
            PolicyKind::Random => AnyPolicy::Random(RandomPolicy),
            PolicyKind::Pubeval => AnyPolicy::Pubeval(PubevalPolicy::new()),
            PolicyKind::Race => AnyPolicy::Race(RacePolicy::shared()),
        }
    }

    /// A player of `net`.
    pub fn net(net: &Net) -> AnyPolicy<'_> {
        AnyPolicy::Net(NetPolicy::new(net))
    }
}

impl Policy for AnyPolicy<'_> {
    #[inline]
    fn choose(&mut self, list: &MoveList, rng: &mut GameRng) -> usize {
        match self {
            AnyPolicy::Random(p) => p.choose(list, rng),
            AnyPolicy::Pubeval(p) => p.choose(list, rng),
            AnyPolicy::Race(p) => p.choose(list, rng),
            AnyPolicy::Net(p) => p.choose(list, rng),
        }
    }
}

/// How one game of a rollout ended, for the side to move at the rollout's position.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GameEnd {
    /// The root's side to move won.
    Won(WinKind),
    /// The root's side to move lost.
    Lost(WinKind),
    /// Stopped after the ply limit, unfinished.
    Truncated,
}

/// Integer counts of game ends; adding tallies is exact and order-free.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Tally {
    /// Wins by kind: single, gammon, backgammon (each counted once, in its own kind).
    pub wins: [u64; 3],
    /// Losses by kind, as `wins`.
    pub losses: [u64; 3],
    /// Games stopped by the ply limit.
    pub truncated: u64,
}

impl Tally {
    /// Games counted.
    pub fn games(&self) -> u64 {
        self.wins.iter().sum::<u64>() + self.losses.iter().sum::<u64>() + self.truncated
    }

    /// Counts one game.
    #[inline]
    pub fn record(&mut self, end: GameEnd) {
        match end {
            GameEnd::Won(k) => self.wins[k as usize - 1] += 1,
            GameEnd::Lost(k) => self.losses[k as usize - 1] += 1,
            GameEnd::Truncated => self.truncated += 1,
        }
    }
}

impl core::ops::Add for Tally {
    type Output = Tally;

    /// The sum of two tallies.
    fn add(mut self, other: Tally) -> Tally {
        for k in 0..3 {
            self.wins[k] += other.wins[k];
            self.losses[k] += other.losses[k];
        }
        self.truncated += other.truncated;
        self
    }
}

/// The end of a finished game relative to the player on roll at ply 0, given the final
/// position reached after `plies` plies (its side to move has just lost, R15).
#[inline]
pub(crate) fn end_for_root(final_pos: &Position, plies: u32) -> Option<GameEnd> {
    let o = final_pos.outcome()?;
    // After an even number of plies the root's side is on roll in `final_pos`.
    let root_is_mover = plies.is_multiple_of(2);
    let root_won = (o.winner == Side::Mover) == root_is_mover;
    Some(if root_won {
        GameEnd::Won(o.kind)
    } else {
        GameEnd::Lost(o.kind)
    })
}

/// A rollout's fixed settings: where, which dice, how far.
#[derive(Clone, Copy, Debug)]
pub struct Rollout {
    /// The position, its side to move about to roll.
    pub position: Position,
    /// The seed: game `k`'s dice come from `(seed, k)` only.
    pub seed: u64,
    /// Stop games after this many plies (counted as truncated), or play them out.
    pub truncate: Option<u32>,
    /// Give game `k` the ordered first roll `k mod 36` (variance reduction).
    pub stratify: bool,
}

/// Games per unit of parallel work; cancellation is checked between games.
const BLOCK: u64 = 32;

/// The longest game a rollout plays out: a game still going after this many plies is
/// stopped and counted as truncated. Real games last a few hundred plies at most; the bound
/// only keeps a policy that never finishes a game from running a rollout forever.
pub const MAX_PLIES: u32 = 1 << 16;

impl Rollout {
    /// The first roll of game `game`.
    #[inline]
    pub fn first_roll(&self, game: u64, rng: &mut GameRng) -> Dice {
        if self.stratify {
            ordered_roll((game % 36) as usize)
        } else {
            rng.roll()
        }
    }

    /// Plays game `game` out with `policy` (the same policy for both sides), at most
    /// [`MAX_PLIES`] plies.
    pub fn play_game<P: Policy>(&self, game: u64, policy: &mut P, list: &mut MoveList) -> GameEnd {
        let mut rng = GameRng::new(self.seed, game);
        if let Some(end) = end_for_root(&self.position, 0) {
            return end;
        }
        let mut dice = self.first_roll(game, &mut rng);
        let mut pos = self.position;
        let mut plies = 0u32;
        loop {
            if self.truncate.is_some_and(|t| plies >= t) || plies >= MAX_PLIES {
                return GameEnd::Truncated;
            }
            pos.generate_moves(dice, list);
            let i = if list.len() == 1 {
                0
            } else {
                policy.choose(list, &mut rng)
            };
            pos = list.result(i);
            plies += 1;
            if let Some(end) = end_for_root(&pos, plies) {
                return end;
            }
            dice = rng.roll();
        }
    }

    /// Plays games `games` on `threads` threads (1 = this thread only) and adds up their
    /// ends. Stops starting games once `cancel` is set; the tally then counts the games that
    /// finished. Any thread count gives the same tally for the same finished games.
    pub fn run<P, F>(
        &self,
        games: Range<u64>,
        make_policy: F,
        threads: usize,
        cancel: &AtomicBool,
    ) -> Tally
    where
        P: Policy,
        F: Fn() -> P + Sync,
    {
        let block = |r: Range<u64>| {
            let mut policy = make_policy();
            let mut list = MoveList::new();
            let mut tally = Tally::default();
            for game in r {
                if cancel.load(Ordering::Relaxed) {
                    break;
                }
                tally.record(self.play_game(game, &mut policy, &mut list));
            }
            tally
        };
        if threads <= 1 || games.end - games.start <= BLOCK {
            return block(games);
        }
        let blocks = (games.end - games.start).div_ceil(BLOCK);
        let work = || {
            (0..blocks)
                .into_par_iter()
                .map(|b| {
                    let lo = games.start + b * BLOCK;
                    block(lo..(lo + BLOCK).min(games.end))
                })
                .reduce(Tally::default, |a, b| a + b)
        };
        // Without a pool the same games on one thread give the same tally.
        bgfast_core::threads::install(threads, work).unwrap_or_else(|_| block(games))
    }

    /// [`Rollout::run`] with a built-in policy.
    pub fn run_builtin(
        &self,
        games: Range<u64>,
        policy: PolicyKind,
        threads: usize,
        cancel: &AtomicBool,
    ) -> Tally {
        match policy {
            PolicyKind::Random => self.run(games, || RandomPolicy, threads, cancel),
            PolicyKind::Pubeval => self.run(games, PubevalPolicy::new, threads, cancel),
            PolicyKind::Race => {
                let race = RacePolicy::shared();
                self.run(games, || race.clone(), threads, cancel)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pairs: &[(usize, i32)]) -> [i32; 25] {
        let mut c = [0; 25];
        for &(p, n) in pairs {
            c[p - 1] = n;
        }
        c
    }

    fn rollout(position: Position, seed: u64) -> Rollout {
        Rollout {
            position,
            seed,
            truncate: None,
            stratify: true,
        }
    }

    #[test]
    fn thread_count_does_not_change_the_tally() {
        let r = rollout(Position::START, 42);
        let no = AtomicBool::new(false);
        for kind in [PolicyKind::Random, PolicyKind::Pubeval] {
            let one = r.run_builtin(0..500, kind, 1, &no);
            let two = r.run_builtin(0..500, kind, 2, &no);
            let split = r.run_builtin(0..123, kind, 2, &no) + r.run_builtin(123..500, kind, 1, &no);
            assert_eq!(one.games(), 500);
            assert_eq!(one, two);
            assert_eq!(one, split);
        }
    }

    #[test]
    fn won_whatever_the_dice_r15() {
        // The side to move has one checker on its 1-point: any roll bears it off.
        let pos = Position::from_counts(&counts(&[(1, 1)]), &counts(&[(19, 15)])).unwrap();
        let t = rollout(pos, 1).run_builtin(0..100, PolicyKind::Random, 1, &AtomicBool::new(false));
        assert_eq!(
            t.wins,
            [0, 0, 100],
            "the loser has all 15 in our home: backgammons (R16)"
        );
    }

    #[test]
    fn cancel_stops_before_any_game() {
        let t = rollout(Position::START, 1).run_builtin(
            0..1000,
            PolicyKind::Random,
            2,
            &AtomicBool::new(true),
        );
        assert_eq!(t.games(), 0);
    }

    #[test]
    fn truncation_counts_unfinished_games() {
        let mut r = rollout(Position::START, 3);
        r.truncate = Some(4);
        let t = r.run_builtin(0..50, PolicyKind::Pubeval, 1, &AtomicBool::new(false));
        assert_eq!(t.truncated, 50);
    }

    #[test]
    fn race_policy_plays_the_bearoff_perfect_move() {
        use bgfast_core::bearoff::HomeBoard;
        let mut race = RacePolicy::shared();
        let table = race.table.clone();
        let mut list = MoveList::new();
        let mut rng = GameRng::new(1, 1);
        // Bear-offs from assorted home boards against a far-away opponent.
        for seed in 0..40u64 {
            let mut r = GameRng::new(seed, 0);
            let mut home = [0i32; 25];
            for _ in 0..(1 + r.below(15)) {
                home[r.below(6) as usize] += 1;
            }
            let pos = Position::from_counts(&home, &counts(&[(6, 15)])).unwrap();
            for dice in bgfast_core::Dice::ALL_21 {
                pos.generate_moves(dice, &mut list);
                let chosen = list.result(race.choose(&list, &mut rng)).opponent();
                let chosen: [u8; 6] = core::array::from_fn(|k| chosen.count(k as u8 + 1));
                let board = HomeBoard::new(core::array::from_fn(|k| home[k] as u8)).unwrap();
                let best = table
                    .best_play(board, dice.high().pips(), dice.low().pips())
                    .unwrap();
                assert_eq!(
                    table.expected_rolls(index_unchecked(&chosen)),
                    table.expected_rolls(best.index()),
                    "{pos:?} {dice}"
                );
            }
        }
    }
}
