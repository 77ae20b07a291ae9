//! The two-sided database: for every pair of positions of up to 6 checkers on the six home
//! points (924 x 924), the exact cubeless probability that the side on roll wins with best
//! play by both sides, and the cubeful money equities (cube centred, owned by the side on
//! roll, or owned by the opponent) with perfect cube play, as GNU Backgammon's
//! `makebearoff -t 6x6` defines them.
//!
//! Both tables are solved in "shells": entry (u, t) (u on roll) depends on entries (t, c)
//! for the opponent with c a play of u, and every play has a lower index (bearing off lowers
//! the checker count, which the numbering orders first; moving a checker down makes the
//! sorted list of points lexicographically smaller, which orders the rest). So shell
//! m = max(u, t) needs earlier shells and, in its second phase ((u, m) for u <= m), the row
//! (m, t < m) its first phase solved; the entries of each phase are independent and solved
//! in parallel.

use rayon::prelude::*;

use super::index::{positions_up_to, BearoffError, HomeBoard};
use super::limited_cube::LimitedCube;
use super::moves::{children_indexes, new_scratch, ROLLS};

/// Checkers per side the two-sided table covers.
pub const TWO_SIDED_CHECKERS: u8 = 6;
/// Positions per side in the two-sided table: C(12, 6).
pub const TWO_SIDED_POSITIONS: usize = positions_up_to(TWO_SIDED_CHECKERS);

const N: usize = TWO_SIDED_POSITIONS;

/// Who may double (money play, R17): the cube's state seen from the side on roll.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CubeState {
    /// In the middle: either side may double.
    Centred,
    /// Owned by the side on roll: only it may (re)double.
    Owned,
    /// Owned by the opponent: the side on roll may not double.
    Unavailable,
}

/// Every play of every position of up to 6 checkers, per roll, in compressed rows: the plays
/// of position `u` with roll `r` are `kids[start[21 u + r]..start[21 u + r + 1]]`.
pub(crate) struct Plays {
    start: Vec<u32>,
    kids: Vec<u16>,
}

impl Plays {
    pub(crate) fn new() -> Plays {
        let mut start = Vec::with_capacity(N * ROLLS.len() + 1);
        let mut kids = Vec::new();
        let mut scratch = new_scratch();
        let mut out = Vec::new();
        start.push(0);
        for u in 0..N as u32 {
            let board = HomeBoard::from_index(u).expect("index below 924");
            for &(high, low, _) in ROLLS.iter() {
                children_indexes(board, high, low, &mut scratch, &mut out);
                kids.extend(out.iter().map(|&c| c as u16));
                start.push(kids.len() as u32);
            }
        }
        Plays { start, kids }
    }

    #[inline]
    pub(crate) fn of(&self, u: usize, roll: usize) -> &[u16] {
        let k = u * ROLLS.len() + roll;
        &self.kids[self.start[k] as usize..self.start[k + 1] as usize]
    }
}

/// Solves an n x n table shell by shell; `entry(row_t, t, u)` computes entry (u, t) for
/// u, t >= 1 from row t, whose needed entries are already final.
pub(crate) fn solve_shells<T, F>(
    zero_mover: T,
    zero_opponent: T,
    entry: F,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(&[T], usize, usize) -> T + Sync,
{
    let mut table = vec![zero_opponent; N * N];
    // Row 0: the side on roll has no checker left, it has won (GNU Backgammon's convention
    // also for (0, 0)). Column 0 (the opponent has none left, so it won) is the default.
    for v in table[..N].iter_mut() {
        *v = zero_mover;
    }
    let mut done = N + N - 1;
    for m in 1..N {
        // Phase 1: (m, t) for 1 <= t < m, from rows t < m.
        let row: Vec<T> = (1..m)
            .into_par_iter()
            .with_min_len(32)
            .map(|t| entry(&table[t * N..(t + 1) * N], t, m))
            .collect();
        table[m * N + 1..m * N + m].copy_from_slice(&row);
        // Phase 2: (u, m) for 1 <= u <= m, from row m.
        let column: Vec<T> = (1..m + 1)
            .into_par_iter()
            .with_min_len(32)
            .map(|u| entry(&table[m * N..(m + 1) * N], m, u))
            .collect();
        for (u, v) in (1..m + 1).zip(column) {
            table[u * N + m] = v;
        }
        done += 2 * m - 1;
        progress(done, N * N);
    }
    table
}

/// Cubeful no-double equities of the side on roll, normalised to a cube of 1.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub(crate) struct Cubeful {
    pub(crate) owned: f64,
    pub(crate) centred: f64,
    pub(crate) unavailable: f64,
}

impl Cubeful {
    /// The same equity whoever holds the cube: a game already decided, or a dead cube.
    pub(crate) const fn any_cube(equity: f64) -> Cubeful {
        Cubeful {
            owned: equity,
            centred: equity,
            unavailable: equity,
        }
    }
}

/// The equity after the side on roll's best cube action (money, no gammons in these
/// positions; R17, R19): double when doubling beats not doubling; the opponent then passes
/// (the doubler wins 1) or takes (the doubler gets twice `taken`, its equity with the
/// doubled cube, one double fewer left before any limit, owned by the taker, i.e.
/// unavailable to the doubler), whichever is worse for the doubler.
#[inline]
pub(crate) fn after_cube_action(no_double: f64, taken: f64) -> f64 {
    no_double.max((2.0 * taken).min(1.0))
}

/// Solves the cubeful money equities, entry `(u, t)` by the plays of `u` from the
/// opponent's equities in row `t`. `taken(k, e)` is the equity of the side on roll in
/// entry `k = t * 924 + c` (whose no-double equities at this cube are `e`) after it
/// doubled and the opponent took: its `unavailable` equity with one double fewer left,
/// which is `e.unavailable` itself for a cube that can always be turned again.
pub(crate) fn solve_cubeful(
    plays: &Plays,
    taken: impl Fn(usize, &Cubeful) -> f64 + Sync,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<Cubeful> {
    solve_shells(
        Cubeful::any_cube(1.0),
        Cubeful::any_cube(-1.0),
        |row_t: &[Cubeful], t, u| {
            // The opponent t is on roll after u's play c: its equities are row t.
            let (mut own, mut cen, mut una) = (0.0, 0.0, 0.0);
            for (r, &(_, _, w)) in ROLLS.iter().enumerate() {
                let (mut b_own, mut b_cen, mut b_una) =
                    (f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
                for &c in plays.of(u, r) {
                    let e = &row_t[c as usize];
                    let taken = taken(t * N + c as usize, e);
                    // We own the cube: it is unavailable to the opponent.
                    b_own = b_own.max(-e.unavailable);
                    // Centred: the opponent may double; after a take we own it.
                    b_cen = b_cen.max(-after_cube_action(e.centred, taken));
                    // The opponent owns it and may redouble.
                    b_una = b_una.max(-after_cube_action(e.owned, taken));
                }
                let w = w as f64;
                own += w * b_own;
                cen += w * b_cen;
                una += w * b_una;
            }
            Cubeful {
                owned: own / 36.0,
                centred: cen / 36.0,
                unavailable: una / 36.0,
            }
        },
        progress,
    )
}

/// The two-sided bear-off database (6 points, up to 6 checkers a side).
#[derive(Clone, PartialEq, Debug)]
pub struct TwoSided {
    /// P(side on roll wins), by `mover * 924 + opponent` bear-off indexes.
    pub(crate) win: Vec<f64>,
    /// Cubeful no-double equities `[owned, centred, unavailable]`, same order; empty when
    /// the table was built cubeless.
    pub(crate) cubeful: Vec<[f32; 3]>,
    /// The same for cubes with a limit, built when asked for.
    pub(crate) limited: LimitedCube,
}

impl TwoSided {
    /// A table of these winning chances and cubeful equities (see the fields).
    pub(crate) fn from_parts(win: Vec<f64>, cubeful: Vec<[f32; 3]>) -> TwoSided {
        TwoSided {
            win,
            cubeful,
            limited: LimitedCube::default(),
        }
    }

    /// Builds the cubeless table on the current rayon pool.
    pub fn build_cubeless() -> TwoSided {
        Self::build(false, &|_, _| {})
    }

    /// Builds the cubeless table and, if `cubeful`, the money cube equities too, calling
    /// `progress(done, total)` (entries) after each shell.
    pub fn build(cubeful: bool, progress: &(dyn Fn(usize, usize) + Sync)) -> TwoSided {
        let plays = Plays::new();
        let win = solve_shells(
            1.0f64,
            0.0f64,
            |row_t: &[f64], _, u| {
                // P(u, t) = 1 - E[min over plays c of P(t, c)].
                let mut sum = 0.0;
                for (r, &(_, _, w)) in ROLLS.iter().enumerate() {
                    let mut best = f64::INFINITY;
                    for &c in plays.of(u, r) {
                        best = best.min(row_t[c as usize]);
                    }
                    sum += w as f64 * best;
                }
                1.0 - sum / 36.0
            },
            &|done, total| {
                // The cubeful pass does about three times the work of the cubeless one.
                if cubeful {
                    progress(done, 4 * total)
                } else {
                    progress(done, total)
                }
            },
        );
        let cubeful = if cubeful {
            solve_cubeful(&plays, |_, e| e.unavailable, progress)
                .iter()
                .map(|e| [e.owned as f32, e.centred as f32, e.unavailable as f32])
                .collect()
        } else {
            Vec::new()
        };
        TwoSided::from_parts(win, cubeful)
    }

    /// GNU Backgammon's two-sided table as `makebearoff -t 6x6` writes it, reproduced:
    /// its 16-bit signed fixed point (+1 = 0x7FFF, -1 = -0x8000), its truncating integer
    /// averages and its cube rule, entry for entry. A test reference proving that
    /// [`TwoSided::build`] computes the same thing; returns the stored 16-bit words
    /// `[cubeless, owned, centred, unavailable]`, mover-major, as `makebearoff` writes them
    /// (value + 0x8000).
    pub fn build_gnubg_compatible() -> Vec<[u16; 4]> {
        let table = super::gnubg_compat::solve_two_sided(&Plays::new());
        table
            .iter()
            .map(|e| e.map(|v| (v + 0x8000) as u16))
            .collect()
    }

    fn entry(mover: HomeBoard, opponent: HomeBoard) -> Result<usize, BearoffError> {
        if mover == HomeBoard::EMPTY && opponent == HomeBoard::EMPTY {
            return Err(BearoffError::BothBorneOff);
        }
        for b in [mover, opponent] {
            let count = b.checkers();
            if count > TWO_SIDED_CHECKERS {
                return Err(BearoffError::TooManyCheckers {
                    count: count as u32,
                    max: TWO_SIDED_CHECKERS,
                });
            }
        }
        Ok(mover.index() as usize * N + opponent.index() as usize)
    }

    /// The probability that the side on roll (`mover`) wins, cubeless, with best play by
    /// both sides; an error if either side has more than 6 checkers left, or if neither has
    /// any (R15: not a position).
    pub fn win_probability(
        &self,
        mover: HomeBoard,
        opponent: HomeBoard,
    ) -> Result<f64, BearoffError> {
        Ok(self.win[Self::entry(mover, opponent)?])
    }

    /// [`TwoSided::win_probability`] by bear-off indexes, both below 924 (else it panics).
    /// Unchecked: (0, 0), where both sides have borne off everything, is not a position
    /// (R15); its entry holds 1.0, GNU Backgammon's convention.
    #[inline]
    pub fn win_probability_by_index(&self, mover: u32, opponent: u32) -> f64 {
        self.win[entry_by_index(mover, opponent)]
    }

    /// Whether the cubeful equities were built.
    pub fn has_cubeful(&self) -> bool {
        !self.cubeful.is_empty()
    }

    /// The side on roll's money equity (per unit of cube value, no gammons possible) for the
    /// given cube state: with `may_double` the side on roll's best cube action is included
    /// (doubling when it owns or shares the cube and doubling is right; the opponent then
    /// takes or passes, whichever is better for it), without it the equity of not doubling
    /// this turn (GNU Backgammon's stored value). `doubles_left` is how many more times the
    /// cube may be turned before its limit (R17): `None` for a cube that can always be turned
    /// again (GNU Backgammon's table), 0 for a dead cube (the cubeless equity); from 7 on the
    /// values are the unlimited table's (within 1e-6). The first time a limit below that is
    /// asked for its tables are built, a third of a second a double left at most (see
    /// [`TwoSided::prepare_cube_limit`]). `None` if the table was built cubeless; the errors
    /// of [`TwoSided::win_probability`].
    pub fn cubeful_equity(
        &self,
        mover: HomeBoard,
        opponent: HomeBoard,
        cube: CubeState,
        may_double: bool,
        doubles_left: Option<u32>,
    ) -> Result<Option<f64>, BearoffError> {
        Self::entry(mover, opponent)?;
        Ok(self.cubeful_equity_by_index(
            mover.index(),
            opponent.index(),
            cube,
            may_double,
            doubles_left,
        ))
    }

    /// [`TwoSided::cubeful_equity`] by bear-off indexes, both below 924 (else it panics);
    /// `None` if the table was built cubeless. Unchecked: (0, 0) is not a position (R15).
    #[inline]
    pub fn cubeful_equity_by_index(
        &self,
        mover: u32,
        opponent: u32,
        cube: CubeState,
        may_double: bool,
        doubles_left: Option<u32>,
    ) -> Option<f64> {
        let k = entry_by_index(mover, opponent);
        let [owned, centred, unavailable] = self.no_double(k, doubles_left)?;
        let no_double = match cube {
            CubeState::Unavailable => return Some(unavailable),
            CubeState::Owned => owned,
            CubeState::Centred => centred,
        };
        Some(match doubles_left {
            _ if !may_double => no_double,
            Some(0) => no_double, // a dead cube
            None => after_cube_action(no_double, unavailable),
            Some(d) => after_cube_action(no_double, self.no_double(k, Some(d - 1))?[2]),
        })
    }

    /// Builds now the tables [`TwoSided::cubeful_equity`] reads for a cube with
    /// `doubles_left` doubles left (none for 0), so that its first lookups do not wait for
    /// them: a third of a second a double left at most, on the current rayon pool. Nothing
    /// to do for a table built cubeless.
    pub fn prepare_cube_limit(&self, doubles_left: u32) {
        if self.has_cubeful() && doubles_left > 0 {
            self.limited.level(doubles_left as usize, &self.win);
        }
    }

    /// The no-double equities `[owned, centred, unavailable]` of entry `k` with
    /// `doubles_left` (see [`TwoSided::cubeful_equity`]); `None` if built cubeless.
    fn no_double(&self, k: usize, doubles_left: Option<u32>) -> Option<[f64; 3]> {
        let unlimited = self.cubeful.get(k)?;
        let row = match doubles_left {
            None => unlimited,
            Some(0) => return Some([2.0 * self.win[k] - 1.0; 3]),
            Some(d) => match self.limited.level(d as usize, &self.win) {
                Some(level) => &level[k],
                None => unlimited,
            },
        };
        Some(row.map(f64::from))
    }

    /// The play of `mover` with roll `high`-`low` that maximises its cubeless winning
    /// chances against `opponent` (ties to the lowest index); `None` for an empty board, dice
    /// outside 1..=6, or a side with more than 6 checkers.
    pub fn best_play(
        &self,
        mover: HomeBoard,
        opponent: HomeBoard,
        high: u8,
        low: u8,
    ) -> Option<HomeBoard> {
        if !(1..=6).contains(&high) || !(1..=6).contains(&low) {
            return None;
        }
        let t = Self::entry(opponent, mover).ok()? / N;
        let mut scratch = new_scratch();
        let mut children = Vec::new();
        children_indexes(
            mover,
            high.max(low),
            high.min(low),
            &mut scratch,
            &mut children,
        );
        let mut best = *children.first()?;
        for &c in &children[1..] {
            if self.win[t * N + c as usize] < self.win[t * N + best as usize] {
                best = c;
            }
        }
        HomeBoard::from_index(best).ok()
    }
}

/// The entry of bear-off indexes `mover` and `opponent`. Panics unless both are below
/// [`TWO_SIDED_POSITIONS`], as the `_by_index` lookups promise: the flat index alone would
/// let an opponent index past the end read another pair's entry (0 and 924 read 1 and 0).
#[inline]
fn entry_by_index(mover: u32, opponent: u32) -> usize {
    let (mover, opponent) = (mover as usize, opponent as usize);
    assert!(
        mover < N && opponent < N,
        "bear-off indexes {mover} and {opponent}: the two-sided table holds 0 to {}",
        N - 1
    );
    mover * N + opponent
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bearoff::OneSided;
    use std::sync::OnceLock;

    fn table() -> &'static TwoSided {
        static T: OnceLock<TwoSided> = OnceLock::new();
        T.get_or_init(|| TwoSided::build(true, &|_, _| {}))
    }

    fn b(c: [u8; 6]) -> HomeBoard {
        HomeBoard::new(c).unwrap()
    }

    #[test]
    fn lookups_by_index_past_the_table_panic_as_documented() {
        // Mover 0 and opponent 924 made flat entry 924, that of (1, 0): a silent wrong
        // answer (1.0) where the documentation promises a panic.
        let t = table();
        let n = TWO_SIDED_POSITIONS as u32;
        assert_eq!(t.win_probability_by_index(0, n - 1), 1.0);
        for (mover, opponent) in [(0, n), (1, n + 5), (n, 0), (u32::MAX, 0), (0, u32::MAX)] {
            let lookups: [&dyn Fn(); 2] = [
                &|| {
                    t.win_probability_by_index(mover, opponent);
                },
                &|| {
                    t.cubeful_equity_by_index(mover, opponent, CubeState::Centred, true, None);
                },
            ];
            for lookup in lookups {
                let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(lookup));
                assert!(panic.is_err(), "({mover}, {opponent}) answered");
            }
        }
    }

    #[test]
    fn closed_forms() {
        let t = table();
        // On roll with one checker on the ace: certain win.
        assert_eq!(
            t.win_probability(b([1, 0, 0, 0, 0, 0]), b([0, 0, 0, 0, 0, 6]))
                .unwrap(),
            1.0
        );
        // 6-point vs ace: the side on roll wins with the 27 rolls that bear it off.
        let p = t
            .win_probability(b([0, 0, 0, 0, 0, 1]), b([1, 0, 0, 0, 0, 0]))
            .unwrap();
        assert!((p - 27.0 / 36.0).abs() < 1e-15);
        // Too many checkers: a clear error.
        assert!(t
            .win_probability(b([7, 0, 0, 0, 0, 0]), b([1, 0, 0, 0, 0, 0]))
            .is_err());
        // Regression: both sides borne off is not a position (R15); it answered 1.0.
        let e = HomeBoard::EMPTY;
        assert_eq!(t.win_probability(e, e), Err(BearoffError::BothBorneOff));
        for cube in [CubeState::Centred, CubeState::Owned, CubeState::Unavailable] {
            assert_eq!(
                t.cubeful_equity(e, e, cube, true, None),
                Err(BearoffError::BothBorneOff)
            );
        }
        assert_eq!(t.best_play(e, e, 6, 5), None);
        assert!(t.win_probability(e, b([1, 0, 0, 0, 0, 0])).unwrap() == 1.0);
        assert!(t.win_probability(b([1, 0, 0, 0, 0, 0]), e).unwrap() == 0.0);
        // Cube: with 27/36 to win and the opponent certain to finish, the side on roll
        // doubles and the opponent passes (a take would cost 2 x 0.5).
        let e = t
            .cubeful_equity(
                b([0, 0, 0, 0, 0, 1]),
                b([1, 0, 0, 0, 0, 0]),
                CubeState::Centred,
                true,
                None,
            )
            .unwrap()
            .unwrap();
        assert_eq!(e, 1.0);
        let nd = t
            .cubeful_equity(
                b([0, 0, 0, 0, 0, 1]),
                b([1, 0, 0, 0, 0, 0]),
                CubeState::Centred,
                false,
                None,
            )
            .unwrap()
            .unwrap();
        assert!((nd - 0.5).abs() < 1e-7);
    }

    /// P(the side on roll needs no more rolls than the opponent) for independent races.
    fn race(one: &OneSided, u: u32, o: u32) -> f64 {
        let (su, pu) = one.rolls_slice(u);
        let (so, po) = one.rolls_slice(o);
        let mut p = 0.0;
        for (i, a) in pu.iter().enumerate() {
            let tail: f64 = po
                .iter()
                .enumerate()
                .filter(|(j, _)| so + j >= su + i)
                .map(|(_, q)| q)
                .sum();
            p += a * tail;
        }
        p
    }

    #[test]
    fn agrees_with_independent_races() {
        let one = OneSided::build();
        let t = table();
        // A lone checker has one play per roll, so with one checker a side (indexes 1..=6)
        // the game is two independent roll counts: exactly the one-sided race.
        for u in 1..=6 {
            for o in 1..=6 {
                let got = t.win_probability_by_index(u, o);
                assert!((got - race(&one, u, o)).abs() < 1e-14, "{u} {o}");
            }
        }
        // With more checkers the plays differ (winning chances, not expected rolls, are
        // maximised), but only a little.
        for u in (1..N as u32).step_by(7) {
            for o in (1..N as u32).step_by(37) {
                let got = t.win_probability_by_index(u, o);
                assert!((got - race(&one, u, o)).abs() < 0.02, "{u} {o}");
            }
        }
    }

    #[test]
    fn thread_count_does_not_change_the_table() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let single = pool.install(TwoSided::build_cubeless);
        assert!(single.win == table().win);
    }
}
