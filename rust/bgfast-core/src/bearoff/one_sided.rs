//! The one-sided database: for each of the 54,264 positions of up to 15 checkers on the six
//! home points, the exact distribution of the number of rolls needed to bear off every
//! checker under the play that minimises the expected number of rolls, and the distribution
//! of rolls needed to bear off the first checker (under the play that minimises that
//! expectation), which is what gammon chances need.
//!
//! GNU Backgammon's `makebearoff` stores these as 16-bit fractions and rounds each
//! position's distribution before its parents use it; here every value is an `f64` computed
//! from exact children, so the tables agree with GNU Backgammon's to its stored precision.

use rayon::prelude::*;

use super::index::{BearoffError, HomeBoard, MAX_CHECKERS, ONE_SIDED_POSITIONS, POINTS};
use super::moves::{children_indexes, new_scratch, single_die_indexes, ROLLS};

/// Entries in a distribution: entry `n` is the probability of needing exactly `n` rolls.
/// The worst case is 30 rolls (15 checkers on the 6-point and 2-1 every time).
pub const MAX_ROLLS: usize = 32;

/// Average pips in a roll (doubles count four times): 49/6. The effective pip count is the
/// expected number of rolls times this.
pub const PIPS_PER_ROLL: f64 = 49.0 / 6.0;

/// A probability distribution over the number of rolls, entry `n` for exactly `n` rolls.
pub type Distribution = [f64; MAX_ROLLS];

/// Where one distribution lives in the packed value array: its first non-zero entry and
/// how many entries follow.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(crate) struct Span {
    pub(crate) offset: u32,
    pub(crate) start: u8,
    pub(crate) len: u8,
}

/// The one-sided bear-off database (6 points, up to 15 checkers).
#[derive(Clone, PartialEq, Debug)]
pub struct OneSided {
    /// Span of each position's rolls distribution (bear off all), by bear-off index.
    pub(crate) rolls: Vec<Span>,
    /// Span of each position's first-checker distribution, by bear-off index.
    pub(crate) gammon: Vec<Span>,
    /// The non-zero ranges of every distribution, packed.
    pub(crate) values: Vec<f64>,
    /// Expected rolls to bear off all, by index (derived from `values`).
    pub(crate) mean: Vec<f64>,
    /// Expected rolls to bear off the first checker, by index (derived from `values`).
    pub(crate) gammon_mean: Vec<f64>,
}

fn mean_of(d: &[f64], start: usize) -> f64 {
    d.iter()
        .enumerate()
        .map(|(i, p)| (start + i) as f64 * p)
        .sum()
}

/// For one position and one die (by pips - 1), the best position reachable with 1, 2 and 3
/// moves of that die: the building blocks of every roll's best play (see [`Solver`]).
type BestAfter = [[u32; 6]; 3];

/// The working tables of a build: dense distributions, their means, and for each position
/// and die the best results after 1..=3 moves of the die, under both objectives.
///
/// Why the `BestAfter` tables: the best play of a roll is the minimum over all its results,
/// and the results of a roll are unions of shorter sequences: a double's four moves are a
/// first move followed by any three-move result from there, and a-b is a then b or b then a.
/// Minimising with one total order (expected rolls, then lower index) commutes with the
/// unions, so a double costs six lookups per first move instead of enumerating up to
/// hundreds of four-move results; each position's tables come from its children's.
struct Solver {
    dense: Vec<Distribution>,
    gdense: Vec<Distribution>,
    /// The non-zero range `lo..hi` of each dense distribution: the children's sums read only
    /// it (the build is bound by fetching children's distributions, and most are narrow).
    range: Vec<(u8, u8)>,
    grange: Vec<(u8, u8)>,
    mean: Vec<f64>,
    gmean: Vec<f64>,
    best: Vec<BestAfter>,
    gbest: Vec<BestAfter>,
}

/// What solving one position produces.
struct Solved {
    dist: Distribution,
    gdist: Distribution,
    best: BestAfter,
    gbest: BestAfter,
}

/// `dst[n + 1] += weight * child[n]`: the child's distribution, one roll later.
#[cfg(test)]
fn add_one_roll_later(dst: &mut Distribution, weight: f64, child: &Distribution) {
    for (d, c) in dst[1..].iter_mut().zip(child) {
        *d += weight * c;
    }
}

/// `dst[n + 1] += weight * child[n]` for `n` in `lo..hi` (where the child is non-zero).
#[inline]
fn add_range_one_roll_later(
    dst: &mut Distribution,
    weight: f64,
    child: &Distribution,
    lo: usize,
    hi: usize,
) {
    let hi = hi.min(MAX_ROLLS - 1);
    for (d, c) in dst[lo + 1..hi + 1].iter_mut().zip(&child[lo..hi]) {
        *d += weight * c;
    }
}

/// The range `lo..hi` outside which a distribution is zero.
fn nonzero_range(d: &Distribution) -> (u8, u8) {
    let lo = d.iter().position(|&p| p != 0.0).unwrap_or(0);
    let hi = d.iter().rposition(|&p| p != 0.0).map_or(lo, |h| h + 1);
    (lo as u8, hi as u8)
}

#[inline]
fn better(key: &[f64], a: u32, b: u32) -> bool {
    let (ka, kb) = (key[a as usize], key[b as usize]);
    ka < kb || (ka == kb && a < b)
}

/// The best of `f(y)` over the first `n` entries of `ys` under `key`.
#[inline]
fn argmin(key: &[f64], ys: &[u32], f: impl Fn(u32) -> u32) -> u32 {
    let mut best = f(ys[0]);
    for &y in &ys[1..] {
        let c = f(y);
        if better(key, c, best) {
            best = c;
        }
    }
    best
}

impl Solver {
    fn solve(&self, index: u32) -> Solved {
        let mut out = Solved {
            dist: [0.0; MAX_ROLLS],
            gdist: [0.0; MAX_ROLLS],
            best: [[0; 6]; 3],
            gbest: [[0; 6]; 3],
        };
        if index == 0 {
            // All off: no roll needed; "after k moves" stays here (the dice are lost, R10).
            out.dist[0] = 1.0;
            out.gdist[0] = 1.0;
            return out;
        }
        let board = HomeBoard::from_index(index).expect("index below 54,264");
        let counts = board.counts();
        let full = board.checkers() == MAX_CHECKERS;
        let mut singles = [[0u32; POINTS]; 6];
        let mut n_singles = [0usize; 6];
        for d in 0..6 {
            n_singles[d] = single_die_indexes(&counts, d + 1, &mut singles[d]);
        }
        for d in 0..6 {
            let ys = &singles[d][..n_singles[d]];
            out.best[0][d] = argmin(&self.mean, ys, |y| y);
            out.gbest[0][d] = argmin(&self.gmean, ys, |y| y);
            for k in 1..3 {
                out.best[k][d] = argmin(&self.mean, ys, |y| self.best[y as usize][k - 1][d]);
                out.gbest[k][d] = argmin(&self.gmean, ys, |y| self.gbest[y as usize][k - 1][d]);
            }
        }
        for &(high, low, weight) in ROLLS.iter() {
            let (a, b) = (high as usize - 1, low as usize - 1);
            let (best, gbest) = if a == b {
                // R5: four moves: a first move, then the best three-move result from there.
                let ys = &singles[a][..n_singles[a]];
                (
                    argmin(&self.mean, ys, |y| self.best[y as usize][2][a]),
                    argmin(&self.gmean, ys, |y| self.gbest[y as usize][2][a]),
                )
            } else {
                // Either die first (R8: both are always playable while a checker is left).
                let pick = |key: &[f64], table: &[BestAfter]| {
                    let first = argmin(key, &singles[a][..n_singles[a]], |y| {
                        table[y as usize][0][b]
                    });
                    let second = argmin(key, &singles[b][..n_singles[b]], |y| {
                        table[y as usize][0][a]
                    });
                    if better(key, second, first) {
                        second
                    } else {
                        first
                    }
                };
                (pick(&self.mean, &self.best), pick(&self.gmean, &self.gbest))
            };
            let w = weight as f64;
            let (lo, hi) = self.range[best as usize];
            let child = &self.dense[best as usize];
            add_range_one_roll_later(&mut out.dist, w, child, lo as usize, hi as usize);
            if full {
                let (lo, hi) = self.grange[gbest as usize];
                let child = &self.gdense[gbest as usize];
                add_range_one_roll_later(&mut out.gdist, w, child, lo as usize, hi as usize);
            }
        }
        for p in out.dist.iter_mut() {
            *p /= 36.0;
        }
        if full {
            for p in out.gdist.iter_mut() {
                *p /= 36.0;
            }
        } else {
            // A checker is already off: the first checker needs no roll.
            out.gdist[0] = 1.0;
        }
        out
    }
}

impl OneSided {
    /// Builds the database on the current rayon thread pool (all cores by default; run it
    /// inside `ThreadPool::install` to choose). Positions are solved in layers of equal pip
    /// count: every play removes pips, so a layer depends only on the layers below it and its
    /// positions are solved in parallel.
    pub fn build() -> OneSided {
        Self::build_with_progress(&|_, _| {})
    }

    /// [`OneSided::build`], calling `progress(done, total)` (positions) after each layer.
    pub fn build_with_progress(progress: &(dyn Fn(usize, usize) + Sync)) -> OneSided {
        let n = ONE_SIDED_POSITIONS;
        let mut layers: Vec<Vec<u32>> = vec![Vec::new(); 91];
        for i in 0..n as u32 {
            let board = HomeBoard::from_index(i).expect("index below 54,264");
            layers[board.pips() as usize].push(i);
        }
        let mut s = Solver {
            dense: vec![[0.0; MAX_ROLLS]; n],
            gdense: vec![[0.0; MAX_ROLLS]; n],
            range: vec![(0, 0); n],
            grange: vec![(0, 0); n],
            mean: vec![0.0; n],
            gmean: vec![0.0; n],
            best: vec![[[0; 6]; 3]; n],
            gbest: vec![[[0; 6]; 3]; n],
        };
        let mut done = 0;
        for layer in &layers {
            let solved: Vec<Solved> = layer
                .par_iter()
                .with_min_len(64)
                .map(|&i| s.solve(i))
                .collect();
            for (&i, r) in layer.iter().zip(solved) {
                let i = i as usize;
                s.mean[i] = mean_of(&r.dist, 0);
                s.gmean[i] = mean_of(&r.gdist, 0);
                s.range[i] = nonzero_range(&r.dist);
                s.grange[i] = nonzero_range(&r.gdist);
                s.dense[i] = r.dist;
                s.gdense[i] = r.gdist;
                s.best[i] = r.best;
                s.gbest[i] = r.gbest;
            }
            done += layer.len();
            progress(done, n);
        }
        Self::pack(&s.dense, &s.gdense)
    }

    /// The table GNU Backgammon's `makebearoff` writes, reproduced: its 16-bit fixed-point
    /// arithmetic (each distribution rounded to units of 1/65535 before its parents use it)
    /// and its choice of play by the rounded mean, ties to the first play in its move
    /// generator's order. Not the exact table ([`OneSided::build`] is); it exists to prove,
    /// entry for entry, that the two programs compute the same thing. Single-threaded.
    pub fn build_gnubg_compatible() -> OneSided {
        let (dense, gdense) = super::gnubg_compat::solve();
        Self::pack(&dense, &gdense)
    }

    /// Packs dense distributions into spans over one value array.
    pub(crate) fn pack(dense: &[Distribution], gdense: &[Distribution]) -> OneSided {
        let mut values = Vec::with_capacity(dense.len() * 16);
        let span_of = |d: &Distribution, values: &mut Vec<f64>| {
            let first = d.iter().position(|&p| p != 0.0).unwrap_or(0);
            let last = d.iter().rposition(|&p| p != 0.0).unwrap_or(0);
            let span = Span {
                offset: values.len() as u32,
                start: first as u8,
                len: (last + 1 - first) as u8,
            };
            values.extend_from_slice(&d[first..=last]);
            span
        };
        let mut rolls = Vec::with_capacity(dense.len());
        let mut gammon = Vec::with_capacity(dense.len());
        for (d, g) in dense.iter().zip(gdense) {
            rolls.push(span_of(d, &mut values));
            gammon.push(span_of(g, &mut values));
        }
        Self::from_parts(rolls, gammon, values)
    }

    /// Assembles from spans whose ranges the caller has checked lie inside `values`, and
    /// derives the means.
    pub(crate) fn from_parts(rolls: Vec<Span>, gammon: Vec<Span>, values: Vec<f64>) -> OneSided {
        let mean_of_span = |s: &Span| {
            let o = s.offset as usize;
            mean_of(&values[o..o + s.len as usize], s.start as usize)
        };
        let mean = rolls.iter().map(mean_of_span).collect();
        let gammon_mean = gammon.iter().map(mean_of_span).collect();
        OneSided {
            rolls,
            gammon,
            values,
            mean,
            gammon_mean,
        }
    }

    fn expand(&self, span: Span) -> Distribution {
        let mut d = [0.0; MAX_ROLLS];
        let o = span.offset as usize;
        let s = span.start as usize;
        let len = span.len as usize;
        d[s..s + len].copy_from_slice(&self.values[o..o + len]);
        d
    }

    /// The number of positions (54,264).
    #[inline]
    pub fn len(&self) -> usize {
        self.rolls.len()
    }

    /// Always false: the table holds every position.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.rolls.is_empty()
    }

    /// The distribution of rolls to bear off all of `board`'s checkers.
    pub fn rolls_distribution(&self, board: HomeBoard) -> Distribution {
        self.expand(self.rolls[board.index() as usize])
    }

    /// The distribution of rolls to bear off `board`'s first checker: a point mass on 0 when
    /// fewer than 15 checkers remain (one is already off).
    pub fn gammon_distribution(&self, board: HomeBoard) -> Distribution {
        self.expand(self.gammon[board.index() as usize])
    }

    /// The non-zero part of the rolls distribution of bear-off index `index` (below 54,264):
    /// `(n0, probs)` with `probs[i]` the chance of needing exactly `n0 + i` rolls.
    ///
    /// # Panics
    /// If `index` is not below [`ONE_SIDED_POSITIONS`] (54,264): the lookups by
    /// [`HomeBoard`] cannot.
    #[inline]
    pub fn rolls_slice(&self, index: u32) -> (usize, &[f64]) {
        let s = self.rolls[index as usize];
        let o = s.offset as usize;
        (s.start as usize, &self.values[o..o + s.len as usize])
    }

    /// The non-zero part of the first-checker distribution of index `index`, as
    /// [`OneSided::rolls_slice`].
    ///
    /// # Panics
    /// If `index` is not below [`ONE_SIDED_POSITIONS`] (54,264): the lookups by
    /// [`HomeBoard`] cannot.
    #[inline]
    pub fn gammon_slice(&self, index: u32) -> (usize, &[f64]) {
        let s = self.gammon[index as usize];
        let o = s.offset as usize;
        (s.start as usize, &self.values[o..o + s.len as usize])
    }

    /// Expected rolls to bear off all checkers of bear-off index `index` (below 54,264).
    ///
    /// # Panics
    /// If `index` is not below [`ONE_SIDED_POSITIONS`] (54,264): the lookups by
    /// [`HomeBoard`] cannot.
    #[inline]
    pub fn expected_rolls(&self, index: u32) -> f64 {
        self.mean[index as usize]
    }

    /// Expected rolls to bear off the first checker of index `index` (0 if one is off).
    ///
    /// # Panics
    /// If `index` is not below [`ONE_SIDED_POSITIONS`] (54,264): the lookups by
    /// [`HomeBoard`] cannot.
    #[inline]
    pub fn expected_rolls_to_first_off(&self, index: u32) -> f64 {
        self.gammon_mean[index as usize]
    }

    /// Variance of the number of rolls to bear off all checkers of index `index`.
    ///
    /// # Panics
    /// If `index` is not below [`ONE_SIDED_POSITIONS`] (54,264): the lookups by
    /// [`HomeBoard`] cannot.
    pub fn variance(&self, index: u32) -> f64 {
        let (start, probs) = self.rolls_slice(index);
        let m = self.mean[index as usize];
        probs
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let d = (start + i) as f64 - m;
                p * d * d
            })
            .sum()
    }

    /// The effective pip count of index `index`: expected rolls times 49/6, the average
    /// number of pips in a roll (Walter Trice's definition).
    ///
    /// # Panics
    /// If `index` is not below [`ONE_SIDED_POSITIONS`] (54,264): the lookups by
    /// [`HomeBoard`] cannot.
    #[inline]
    pub fn epc(&self, index: u32) -> f64 {
        self.mean[index as usize] * PIPS_PER_ROLL
    }

    /// Cubeless chances for two sides both bearing off, the first (`mover`) on roll,
    /// treating their roll counts as independent (how GNU Backgammon evaluates one-sided
    /// bear-offs; exact only when neither side's plays depend on the other's, otherwise the
    /// two-sided table is exact): `[win, win gammon, lose gammon]` for the side on roll. For
    /// rollout truncation. An error if neither side has a checker left (R15: not a position).
    pub fn race_probabilities(
        &self,
        mover: HomeBoard,
        opponent: HomeBoard,
    ) -> Result<[f64; 3], BearoffError> {
        if mover == HomeBoard::EMPTY && opponent == HomeBoard::EMPTY {
            return Err(BearoffError::BothBorneOff);
        }
        let (mover, opponent) = (mover.index(), opponent.index());
        // P(X >= n) for a distribution slice starting at `start`.
        fn at_least(start: usize, probs: &[f64], n: usize) -> f64 {
            probs
                .iter()
                .enumerate()
                .filter(|(i, _)| start + i >= n)
                .map(|(_, p)| p)
                .sum()
        }
        let (ms, mp) = self.rolls_slice(mover);
        let (os, op) = self.rolls_slice(opponent);
        let (mgs, mg) = self.gammon_slice(mover);
        let (ogs, og) = self.gammon_slice(opponent);
        let mut odds = [0.0; 3];
        for (i, p) in mp.iter().enumerate() {
            // The mover finishes on its n-th roll; the opponent has had n - 1. A mover with
            // nothing left (n = 0) has already won, before the opponent's first roll.
            let n = ms + i;
            odds[0] += p * at_least(os, op, n);
            odds[1] += p * at_least(ogs, og, n.max(1));
        }
        for (i, p) in op.iter().enumerate() {
            // The opponent finishes on its m-th roll, after m of the mover's.
            let m = os + i;
            odds[2] += p * at_least(mgs, mg, m + 1);
        }
        Ok(odds)
    }

    /// The bear-off-perfect race play: of the positions `board` can reach with the roll
    /// `high`-`low` (R14, R5), the one with the fewest expected rolls to bear off (ties to
    /// the lowest index). `None` for an empty board or dice outside 1..=6.
    pub fn best_play(&self, board: HomeBoard, high: u8, low: u8) -> Option<HomeBoard> {
        self.best_by(board, high, low, &self.mean)
    }

    /// Like [`OneSided::best_play`] but minimising the expected rolls to bear off the first
    /// checker: the play that best saves the gammon.
    pub fn best_play_to_save_gammon(
        &self,
        board: HomeBoard,
        high: u8,
        low: u8,
    ) -> Option<HomeBoard> {
        self.best_by(board, high, low, &self.gammon_mean)
    }

    fn best_by(&self, board: HomeBoard, high: u8, low: u8, key: &[f64]) -> Option<HomeBoard> {
        if !(1..=6).contains(&high) || !(1..=6).contains(&low) {
            return None;
        }
        let mut scratch = new_scratch();
        let mut children = Vec::new();
        children_indexes(
            board,
            high.max(low),
            high.min(low),
            &mut scratch,
            &mut children,
        );
        let mut best = *children.first()?;
        for &c in &children[1..] {
            if key[c as usize] < key[best as usize] {
                best = c;
            }
        }
        HomeBoard::from_index(best).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::OnceLock;

    fn table() -> &'static OneSided {
        static T: OnceLock<OneSided> = OnceLock::new();
        T.get_or_init(OneSided::build)
    }

    fn board(c: [u8; 6]) -> HomeBoard {
        HomeBoard::new(c).unwrap()
    }

    #[test]
    fn distributions_sum_to_one() {
        let t = table();
        for i in 0..t.len() as u32 {
            let (_, p) = t.rolls_slice(i);
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{i}");
            let (_, g) = t.gammon_slice(i);
            assert!((g.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{i}");
        }
        // The worst case: 15 checkers on the 6-point can take 30 rolls (2-1 every time).
        let (start, p) = t.rolls_slice(54_263);
        assert_eq!(start + p.len() - 1, 30);
    }

    #[test]
    fn closed_forms() {
        let t = table();
        // One checker on the ace needs exactly one roll.
        assert_eq!(t.rolls_distribution(board([1, 0, 0, 0, 0, 0]))[1], 1.0);
        // One checker on the 6-point: 27 rolls of 36 bear it off at once (any 6, a sum of
        // 6 or more, 2-2 and up); 1-1, 2-1, 3-1, 4-1 and 3-2 leave it on the 1-, 2- or
        // 3-point, off next roll.
        let d = t.rolls_distribution(board([0, 0, 0, 0, 0, 1]));
        assert!((d[1] - 27.0 / 36.0).abs() < 1e-15 && (d[2] - 9.0 / 36.0).abs() < 1e-15);
        let i = board([0, 0, 0, 0, 0, 1]).index();
        assert!((t.epc(i) - 1.25 * 49.0 / 6.0).abs() < 1e-12);
        // Two checkers on the ace: one roll.
        assert!((t.epc(7) - 49.0 / 6.0).abs() < 1e-12);
        assert_eq!(t.variance(7), 0.0);
        // Fewer than 15 checkers: one is already off, no gammon.
        assert_eq!(t.gammon_distribution(board([0, 0, 0, 0, 0, 14]))[0], 1.0);
        // 15 on the ace: the first roll bears off at least two, so the first checker needs
        // exactly one roll; all of them need four rolls only with four doubles in a row.
        let ace = board([15, 0, 0, 0, 0, 0]);
        assert_eq!(t.gammon_distribution(ace)[1], 1.0);
        assert!((t.rolls_distribution(ace)[4] - 1.0 / 1296.0).abs() < 1e-15);
    }

    #[test]
    fn shortcut_tables_pick_the_brute_force_best_play() {
        // Recompute each distribution by enumerating every result of every roll and taking
        // the lowest mean (ties to the lowest index), as the definition says.
        let t = table();
        let mut scratch = new_scratch();
        let mut children = Vec::new();
        for i in (1..t.len() as u32).step_by(7) {
            let board = HomeBoard::from_index(i).unwrap();
            let mut dist = [0.0; MAX_ROLLS];
            for &(high, low, w) in ROLLS.iter() {
                children_indexes(board, high, low, &mut scratch, &mut children);
                let best = *children
                    .iter()
                    .min_by(|&&a, &&b| {
                        t.mean[a as usize]
                            .total_cmp(&t.mean[b as usize])
                            .then(a.cmp(&b))
                    })
                    .unwrap();
                let child = t.rolls_distribution(HomeBoard::from_index(best).unwrap());
                add_one_roll_later(&mut dist, w as f64, &child);
            }
            for p in dist.iter_mut() {
                *p /= 36.0;
            }
            assert_eq!(dist, t.rolls_distribution(board), "{board:?}");
        }
    }

    #[test]
    fn thread_count_does_not_change_the_table() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let single = pool.install(OneSided::build);
        assert!(single == *table());
    }

    #[test]
    fn race_probabilities_closed_forms() {
        let t = table();
        let ace = board([1, 0, 0, 0, 0, 0]);
        let six = board([0, 0, 0, 0, 0, 1]);
        // On roll with one on the ace: always wins; the 6-point checker wins 27/36 of the time
        // against it.
        assert_eq!(t.race_probabilities(ace, six), Ok([1.0, 0.0, 0.0]));
        let odds = t.race_probabilities(six, ace).unwrap();
        assert!((odds[0] - 27.0 / 36.0).abs() < 1e-15 && odds[1] == 0.0 && odds[2] == 0.0);
        // 15 on the 6-point against one checker on the ace: the opponent finishes on its
        // first roll, so the mover is gammoned unless its first roll bears a checker off.
        let all = board([0, 0, 0, 0, 0, 15]);
        let odds = t.race_probabilities(all, ace).unwrap();
        assert_eq!(odds[0], 0.0);
        let first_roll_off = t.gammon_distribution(all)[1];
        assert!((odds[2] - (1.0 - first_roll_off)).abs() < 1e-12);
        // Regression: both sides borne off is not a position (R15); it answered a win.
        let empty = HomeBoard::EMPTY;
        assert_eq!(
            t.race_probabilities(empty, empty),
            Err(BearoffError::BothBorneOff)
        );
        // A mover with nothing left has won: a gammon only if the opponent has borne off
        // nothing (it wrongly counted every such win as a gammon).
        assert_eq!(t.race_probabilities(empty, ace), Ok([1.0, 0.0, 0.0]));
        assert_eq!(t.race_probabilities(empty, all), Ok([1.0, 1.0, 0.0]));
        assert_eq!(t.race_probabilities(ace, empty), Ok([0.0, 0.0, 0.0]));
        assert_eq!(t.race_probabilities(all, empty), Ok([0.0, 0.0, 1.0]));
    }

    #[test]
    fn best_play_bears_off_when_it_can() {
        let t = table();
        let two = board([0, 0, 0, 0, 0, 2]);
        // 6-6 bears both off.
        assert_eq!(t.best_play(two, 6, 6), Some(HomeBoard::EMPTY));
        assert_eq!(t.best_play(HomeBoard::EMPTY, 6, 6), None);
        assert_eq!(t.best_play(two, 7, 6), None);
    }
}
