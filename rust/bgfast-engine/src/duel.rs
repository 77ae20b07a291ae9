//! Duels: head-to-head cubeless money games between two policies, on common dice.
//!
//! Deal `k` of a duel with seed `s` is one sequence of dice, drawn from
//! [`GameRng::new(s, k)`]: an opening roll (R3, never a double) and the rolls after it. The
//! deal is played twice, once with policy A on roll first and once with B, so luck cancels
//! between the two games and only the difference in play remains. Policies that draw random
//! numbers (the random policy) draw them from a separate stream, so they never shift the
//! dice. Tallies are integer counts: any thread count or split of the deals gives the same
//! totals.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use bgfast_engine::duel::Duel;
//! use bgfast_engine::playout::{PubevalPolicy, RandomPolicy};
//!
//! let never = AtomicBool::new(false);
//! let t = Duel { seed: 1 }.run(0..50, PubevalPolicy::new, || RandomPolicy, 2, &never)?;
//! assert_eq!(t.games(), 100);
//! assert!(t.points_per_game() > 0.5); // pubeval crushes random play
//! # Ok::<(), bgfast_core::threads::PoolError>(())
//! ```

use core::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use bgfast_core::rng::GameRng;
use bgfast_core::threads::{checked_threads, PoolError};
use bgfast_core::{MoveList, Position};
use rayon::prelude::*;

use crate::blocks;
use crate::playout::{end_for_root, GameEnd, Policy, MAX_PLIES};

/// Added to the seed for the policies' own random numbers, so they never touch the dice.
const POLICY_STREAM: u64 = 0xD1CE_5EED_0FF0_0D00;

/// Deals per unit of parallel work; cancellation is checked between deals.
const BLOCK: u64 = 16;

/// A duel's settings: the seed that fixes every deal.
#[derive(Clone, Copy, Debug)]
pub struct Duel {
    /// Deal `k`'s dice come from `(seed, k)` only.
    pub seed: u64,
}

/// What the games of a duel gave, for policy A. Integer counts: adding is exact.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct DuelTally {
    /// Deals played (each two games).
    pub deals: u64,
    /// A's points over every game (single 1, gammon 2, backgammon 3; negative when lost).
    pub points: i64,
    /// The sum over deals of the square of A's points in the deal's two games: the
    /// variance of a deal, from which the standard error comes.
    pub deal_points_squared: u64,
    /// A's wins by kind: single, gammon, backgammon.
    pub wins: [u64; 3],
    /// A's losses by kind.
    pub losses: [u64; 3],
    /// Games stopped at [`MAX_PLIES`], unfinished (0 points).
    pub truncated: u64,
}

impl DuelTally {
    /// Games played: two per deal.
    pub fn games(&self) -> u64 {
        2 * self.deals
    }

    /// A's mean points per game.
    pub fn points_per_game(&self) -> f64 {
        self.points as f64 / self.games() as f64
    }

    /// The standard error of [`DuelTally::points_per_game`], from the spread of the deals
    /// (the two games of a deal share their dice, so they are not independent; the deals
    /// are). NaN below two deals.
    pub fn stderr(&self) -> f64 {
        let n = self.deals as f64;
        if self.deals < 2 {
            return f64::NAN;
        }
        let mean = self.points as f64 / n;
        let variance = (self.deal_points_squared as f64 - n * mean * mean) / (n - 1.0);
        // Per game: a deal's points are two games' worth.
        variance.max(0.0).sqrt() / n.sqrt() / 2.0
    }

    fn record(&mut self, end: GameEnd) -> i64 {
        match end {
            GameEnd::Won(k) => {
                self.wins[k as usize - 1] += 1;
                k.points() as i64
            }
            GameEnd::Lost(k) => {
                self.losses[k as usize - 1] += 1;
                -(k.points() as i64)
            }
            GameEnd::Truncated => {
                self.truncated += 1;
                0
            }
        }
    }

    fn record_deal(&mut self, a_first: GameEnd, b_first: GameEnd) {
        let deal = self.record(a_first) + self.record(b_first);
        self.deals += 1;
        self.points += deal;
        self.deal_points_squared += (deal * deal) as u64;
    }
}

impl core::ops::Add for DuelTally {
    type Output = DuelTally;

    /// The sum of two tallies.
    fn add(mut self, other: DuelTally) -> DuelTally {
        self.deals += other.deals;
        self.points += other.points;
        self.deal_points_squared += other.deal_points_squared;
        for k in 0..3 {
            self.wins[k] += other.wins[k];
            self.losses[k] += other.losses[k];
        }
        self.truncated += other.truncated;
        self
    }
}

/// How a game ended for the side that rolled first.
fn play_game(
    first: &mut dyn Policy,
    second: &mut dyn Policy,
    mut dice_rng: GameRng,
    policy_rng: &mut GameRng,
    list: &mut MoveList,
) -> GameEnd {
    let mut pos = Position::START;
    let mut dice = dice_rng.opening_roll();
    for plies in 1..=MAX_PLIES {
        pos.generate_moves(dice, list);
        let player: &mut dyn Policy = if plies % 2 == 1 {
            &mut *first
        } else {
            &mut *second
        };
        let i = if list.len() == 1 {
            0
        } else {
            player.choose(list, policy_rng)
        };
        pos = list.result(i);
        if let Some(end) = end_for_root(&pos, plies) {
            return end;
        }
        dice = dice_rng.roll();
    }
    GameEnd::Truncated
}

/// A's result when it plays second: the mirror of the first player's.
fn mirrored(end: GameEnd) -> GameEnd {
    match end {
        GameEnd::Won(k) => GameEnd::Lost(k),
        GameEnd::Lost(k) => GameEnd::Won(k),
        GameEnd::Truncated => GameEnd::Truncated,
    }
}

impl Duel {
    /// Plays deal `deal` twice (A first, then B first on the same dice) and returns A's
    /// results `(A first, B first)`.
    pub fn play_deal(
        &self,
        deal: u64,
        a: &mut dyn Policy,
        b: &mut dyn Policy,
        list: &mut MoveList,
    ) -> (GameEnd, GameEnd) {
        let dice = GameRng::new(self.seed, deal);
        let mut policy_rng = GameRng::new(self.seed.wrapping_add(POLICY_STREAM), deal);
        let a_first = play_game(a, b, dice.clone(), &mut policy_rng, list);
        let b_first = mirrored(play_game(b, a, dice, &mut policy_rng, list));
        (a_first, b_first)
    }

    /// Plays deals `deals` on `threads` threads (1 = this thread only) and adds up A's
    /// results. Stops starting deals once `cancel` is set; the tally then counts the deals
    /// that finished. Any thread count gives the same tally for the same finished deals.
    /// Refuses, before any deal, threads the pool cannot have
    /// ([`bgfast_core::threads::checked_threads`]), however few the deals.
    pub fn run<A, B, FA, FB>(
        &self,
        deals: Range<u64>,
        make_a: FA,
        make_b: FB,
        threads: usize,
        cancel: &AtomicBool,
    ) -> Result<DuelTally, PoolError>
    where
        A: Policy,
        B: Policy,
        FA: Fn() -> A + Sync,
        FB: Fn() -> B + Sync,
    {
        let block = |r: Range<u64>| {
            let (mut a, mut b) = (make_a(), make_b());
            let mut list = MoveList::new();
            let mut tally = DuelTally::default();
            for deal in r {
                if cancel.load(Ordering::Relaxed) {
                    break;
                }
                let (first, second) = self.play_deal(deal, &mut a, &mut b, &mut list);
                tally.record_deal(first, second);
            }
            tally
        };
        if checked_threads(threads)? == 1 || blocks::len(&deals) <= BLOCK {
            return Ok(block(deals));
        }
        let work = || {
            blocks::blocks(deals.clone(), BLOCK)
                .map(block)
                .reduce(DuelTally::default, |x, y| x + y)
        };
        bgfast_core::threads::install(threads, work)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playout::{PubevalPolicy, RandomPolicy};

    #[test]
    fn a_policy_against_itself_scores_exactly_zero_on_every_deal() {
        // Deterministic and identical players: each deal's two games mirror each other.
        let never = AtomicBool::new(false);
        let t = Duel { seed: 3 }
            .run(0..40, PubevalPolicy::new, PubevalPolicy::new, 1, &never)
            .unwrap();
        assert_eq!(t.points, 0);
        assert_eq!(t.deal_points_squared, 0);
        assert_eq!(t.wins, t.losses);
    }

    #[test]
    fn threads_and_splits_do_not_change_the_tally() {
        let never = AtomicBool::new(false);
        let duel = Duel { seed: 9 };
        let one = duel
            .run(0..100, PubevalPolicy::new, || RandomPolicy, 1, &never)
            .unwrap();
        let two = duel
            .run(0..100, PubevalPolicy::new, || RandomPolicy, 2, &never)
            .unwrap();
        let split = duel
            .run(0..37, PubevalPolicy::new, || RandomPolicy, 2, &never)
            .unwrap()
            + duel
                .run(37..100, PubevalPolicy::new, || RandomPolicy, 1, &never)
                .unwrap();
        assert_eq!(one, two);
        assert_eq!(one, split);
        assert_eq!(one.games(), 200);
        assert!(one.stderr() > 0.0);
    }

    #[test]
    #[allow(clippy::reversed_empty_ranges)]
    fn the_last_deal_numbers_and_reversed_ranges_split_like_any_others() {
        let never = AtomicBool::new(false);
        let duel = Duel { seed: 9 };
        let top = u64::MAX - 40..u64::MAX;
        let one = duel
            .run(top.clone(), PubevalPolicy::new, || RandomPolicy, 1, &never)
            .unwrap();
        let two = duel
            .run(top, PubevalPolicy::new, || RandomPolicy, 2, &never)
            .unwrap();
        assert_eq!(one, two);
        assert_eq!(one.deals, 40);
        let none = duel
            .run(100..5, PubevalPolicy::new, || RandomPolicy, 2, &never)
            .unwrap();
        assert_eq!(none.deals, 0);
    }

    #[test]
    fn the_stronger_player_wins_from_either_seat() {
        let never = AtomicBool::new(false);
        let duel = Duel { seed: 4 };
        let ab = duel
            .run(0..30, PubevalPolicy::new, || RandomPolicy, 1, &never)
            .unwrap();
        let ba = duel
            .run(0..30, || RandomPolicy, PubevalPolicy::new, 1, &never)
            .unwrap();
        assert_eq!(ab.games(), ba.games());
        assert!(ab.points > 0 && ba.points < 0);
    }

    #[test]
    fn a_thread_count_the_pool_cannot_have_is_refused_however_few_the_deals() {
        let never = AtomicBool::new(false);
        let duel = Duel { seed: 1 };
        for deals in [0..1, 0..1000] {
            let t = duel.run(deals, PubevalPolicy::new, || RandomPolicy, 257, &never);
            assert!(matches!(t, Err(PoolError::TooManyThreads { asked: 257 })));
        }
        let zero = duel.run(0..3, PubevalPolicy::new, || RandomPolicy, 0, &never);
        assert_eq!(
            zero.unwrap().deals,
            3,
            "0 threads runs on this thread, as 1 does"
        );
    }

    #[test]
    fn cancel_stops_before_any_deal() {
        let stop = AtomicBool::new(true);
        let t = Duel { seed: 1 }
            .run(0..1000, PubevalPolicy::new, || RandomPolicy, 2, &stop)
            .unwrap();
        assert_eq!(t.deals, 0);
    }
}
