//! Running a rollout's games on threads: every branch plays game `k` on the same dice, and
//! the per-game outputs are summed exactly.

use core::ops::{Add, Range};
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::dice::Rotation;
use super::moments::{Sums, Wide};
use super::trial::{Trial, Workspace};
use super::{output, Branch, End, Player, RunError, Spec, ENDS, OUTPUTS};
use crate::blocks;
use crate::eval::Probabilities;

/// Games per unit of parallel work; cancellation is checked between games.
const BLOCK: u64 = 16;

/// The exact sums of one branch's games.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct BranchSums {
    /// Sums and sums of squares of each output.
    pub outputs: [Sums; OUTPUTS],
    /// Games by how they ended, in [`End`] order.
    pub ends: [u64; ENDS],
}

/// The exact sums of a rollout's games.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct RolloutSums {
    /// Games played (by every branch).
    pub games: u64,
    /// Each branch's sums.
    pub branches: Vec<BranchSums>,
    /// Sums of the products of the branches' values in the same game, for `i <= j` in
    /// row-major upper-triangular order (`cross[cross_index(i, j)]`), for paired standard errors.
    pub cross: Vec<Wide>,
}

impl RolloutSums {
    /// Empty sums for `branches` branches.
    pub fn new(branches: usize) -> RolloutSums {
        RolloutSums {
            games: 0,
            branches: vec![BranchSums::default(); branches],
            cross: vec![Wide::ZERO; branches * (branches + 1) / 2],
        }
    }

    /// Where the product of branches `i <= j` is kept in `cross`.
    pub fn cross_index(&self, i: usize, j: usize) -> usize {
        let (i, j) = (i.min(j), i.max(j));
        let n = self.branches.len();
        i * n - i * (i + 1) / 2 + j
    }

    pub(crate) fn record(&mut self, game: &[(super::Outputs, End)]) {
        self.games += 1;
        for (sums, (outputs, end)) in self.branches.iter_mut().zip(game) {
            for (s, &v) in sums.outputs.iter_mut().zip(outputs) {
                s.record(v);
            }
            sums.ends[*end as usize] += 1;
        }
        if game.len() > 1 {
            for i in 0..game.len() {
                for j in i..game.len() {
                    let k = self.cross_index(i, j);
                    let product = game[i].0[output::VALUE] * game[j].0[output::VALUE];
                    self.cross[k] += Wide::from_f64(product);
                }
            }
        }
    }
}

impl Add for RolloutSums {
    type Output = RolloutSums;

    fn add(mut self, other: RolloutSums) -> RolloutSums {
        self.games += other.games;
        for (a, b) in self.branches.iter_mut().zip(other.branches) {
            for (x, y) in a.outputs.iter_mut().zip(b.outputs) {
                *x = *x + y;
            }
            for (x, y) in a.ends.iter_mut().zip(b.ends) {
                *x += y;
            }
        }
        for (a, b) in self.cross.iter_mut().zip(other.cross) {
            *a += b;
        }
        self
    }
}

/// Plays games `games` of every branch on `threads` threads (1 = this thread only) with
/// `make_player()` choosing the plays (one player per unit of work), and sums their
/// outputs. Stops starting games once `cancel` is set; the sums then hold the games that
/// finished in every branch. The sums are the same for any thread count.
///
/// Refuses, before any game, settings [`Spec::check`] refuses, more than
/// [`super::MAX_BRANCHES`] branches (the paired sums take memory in the square of their
/// number) and threads the pool cannot have ([`bgfast_core::threads::checked_threads`]),
/// however few the games.
pub fn run<'a, F>(
    spec: &Spec<'a>,
    branches: &[Branch<'a>],
    make_player: F,
    games: Range<u64>,
    threads: usize,
    cancel: &AtomicBool,
) -> Result<RolloutSums, RunError>
where
    F: Fn() -> Player<'a> + Sync,
{
    spec.check()?;
    super::check_branches(branches.len())?;
    let threads = bgfast_core::threads::checked_threads(threads)?;
    spec.prepare_bearoff(branches);
    let rotation = spec.quasi_random.then(|| Rotation::new(spec.seed));
    // The evaluator's chances of each starting position, computed once.
    let roots: Vec<Option<Probabilities>> = branches
        .iter()
        .map(|b| {
            spec.evaluator
                .map(|net| crate::eval::Evaluator::evaluate_one(net, &b.position))
        })
        .collect();
    let play = |player: &mut Player<'a>, ws: &mut Workspace, range: Range<u64>| {
        let mut sums = RolloutSums::new(branches.len());
        let mut game_outputs = Vec::with_capacity(branches.len());
        for game in range {
            if cancel.load(Ordering::Relaxed) {
                break;
            }
            game_outputs.clear();
            for (branch, root) in branches.iter().zip(&roots) {
                let trial = Trial::new(spec, rotation.as_ref(), branch, game, *root);
                game_outputs.push(trial.play_out(spec, player, ws));
            }
            sums.record(&game_outputs);
        }
        sums
    };
    let alone = || play(&mut make_player(), &mut Workspace::new(), games.clone());
    if threads <= 1 || blocks::len(&games) <= BLOCK {
        return Ok(alone());
    }
    let work = || {
        blocks::blocks(games.clone(), BLOCK)
            .map_init(
                || (make_player(), Workspace::new()),
                |(player, ws), block| play(player, ws, block),
            )
            .reduce(|| RolloutSums::new(branches.len()), |a, b| a + b)
    };
    Ok(bgfast_core::threads::install(threads, work)?)
}
