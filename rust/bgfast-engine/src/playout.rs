//! Checker-play policies: what chooses a play when no net does, and how a game's end reads
//! for the side that rolled first.
//!
//! Rollouts ([`crate::rollout`]) and duels ([`crate::duel`]) play games with these.

use crate::net::{Net, NetPolicy};
use crate::pubeval;
use bgfast_core::bearoff::{index::index_unchecked, OneSided};
use bgfast_core::rng::GameRng;
use bgfast_core::{MoveList, Position, Side, WinKind};

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
    table: &'static OneSided,
    pubeval: PubevalPolicy,
}

impl RacePolicy {
    /// A race player over `table` (a process-wide table, such as
    /// [`bgfast_core::bearoff::shared_one_sided`]).
    pub fn new(table: &'static OneSided) -> RacePolicy {
        RacePolicy {
            table,
            pubeval: PubevalPolicy::new(),
        }
    }

    /// A race player over the one-sided table of this process
    /// ([`bgfast_core::bearoff::shared_one_sided`]: built on first use, about a tenth of a
    /// second on all cores, and shared with every other user of it, `Position.epc` too).
    pub fn shared() -> RacePolicy {
        RacePolicy::new(bgfast_core::bearoff::shared_one_sided())
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

/// The longest game played out: a game still going after this many plies is stopped.
/// Real games last a few hundred plies at most; the bound only keeps a policy that never
/// finishes a game from running forever.
pub const MAX_PLIES: u32 = 1 << 16;

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

    #[test]
    fn race_policy_plays_the_bearoff_perfect_move() {
        use bgfast_core::bearoff::HomeBoard;
        let mut race = RacePolicy::shared();
        let table = race.table;
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
