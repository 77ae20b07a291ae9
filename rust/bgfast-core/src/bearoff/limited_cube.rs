//! The two-sided table's cubeful equities for a cube with a limit (R17): a cube that may
//! be turned only `d` more times is worth less to its holder than one that can always be
//! turned again, and one double from its limit the taker gets a dead cube.
//!
//! Level `d` holds the no-double equities of a cube with `d` doubles left, solved like the
//! unlimited table except that a double taken leads to level `d - 1`; level 0, the dead
//! cube, is the cubeless equity. From [`UNLIMITED_FROM`] doubles left on, the equities are
//! the unlimited table's to within the tables' `f32` rounding (a 6x6 bear-off seldom lasts
//! long enough to use more doubles; the tests solve those levels and compare), so only the
//! levels below it are solved: when first asked for, about a third of a second and 10 MB
//! each, and kept for the life of the table.

use std::sync::OnceLock;

use super::two_sided::{solve_cubeful, Cubeful, Plays};

/// Doubles left from which a cube is worth what one that can always be turned again is.
pub(crate) const UNLIMITED_FROM: usize = 7;

/// The levels solved so far, and the plays they are solved over.
#[derive(Default, Debug)]
pub(crate) struct LimitedCube {
    plays: OnceLock<PlaysCache>,
    /// Levels 1 to [`UNLIMITED_FROM`] - 1: `[owned, centred, unavailable]` by entry, as the
    /// unlimited table stores them.
    levels: [OnceLock<Vec<[f32; 3]>>; UNLIMITED_FROM - 1],
}

/// [`Plays`] without a `Debug` of its million entries.
struct PlaysCache(Plays);

impl std::fmt::Debug for PlaysCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Plays")
    }
}

/// What a level is solved from: the level below's no-double equities.
enum Below<'a> {
    /// Level 0: the dead cube, worth the cubeless equity `2 p - 1` whoever holds it.
    Dead(&'a [f64]),
    Table(&'a [[f32; 3]]),
}

impl LimitedCube {
    /// The no-double equities of a cube with `d` doubles left (at least 1), solved with
    /// the levels below it if not solved yet; `None` from [`UNLIMITED_FROM`] on, where
    /// they are the unlimited table's. `win` is the table's cubeless chances.
    pub(crate) fn level(&self, d: usize, win: &[f64]) -> Option<&[[f32; 3]]> {
        debug_assert!(d >= 1);
        if d >= UNLIMITED_FROM {
            return None;
        }
        let level = self.levels[d - 1].get_or_init(|| {
            let below = match d {
                1 => Below::Dead(win),
                _ => Below::Table(self.level(d - 1, win).expect("a level below 7")),
            };
            self.solve(below)
        });
        Some(level)
    }

    /// The level above `below`.
    fn solve(&self, below: Below<'_>) -> Vec<[f32; 3]> {
        let plays = &self.plays.get_or_init(|| PlaysCache(Plays::new())).0;
        let taken = |k: usize, _: &Cubeful| match below {
            Below::Dead(win) => 2.0 * win[k] - 1.0,
            Below::Table(table) => f64::from(table[k][2]),
        };
        solve_cubeful(plays, taken, &|_, _| {})
            .iter()
            .map(|e| [e.owned as f32, e.centred as f32, e.unavailable as f32])
            .collect()
    }
}

impl Clone for LimitedCube {
    /// A fresh cache: the levels are derived data, solved again when asked for.
    fn clone(&self) -> LimitedCube {
        LimitedCube::default()
    }
}

impl PartialEq for LimitedCube {
    /// Always equal: the levels follow from the table they belong to.
    fn eq(&self, _: &LimitedCube) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::OnceLock;

    use super::super::index::{positions_up_to, HomeBoard};
    use super::super::moves::{children_indexes, new_scratch, ROLLS};
    use super::super::two_sided::{CubeState, TwoSided};
    use super::{Below, UNLIMITED_FROM};

    fn table() -> &'static TwoSided {
        static T: OnceLock<TwoSided> = OnceLock::new();
        T.get_or_init(|| TwoSided::build(true, &|_, _| {}))
    }

    /// The cube seen by the other side.
    fn flipped(cube: CubeState) -> CubeState {
        match cube {
            CubeState::Centred => CubeState::Centred,
            CubeState::Owned => CubeState::Unavailable,
            CubeState::Unavailable => CubeState::Owned,
        }
    }

    /// Money equities of a limited cube by plain recursion over the game tree, written
    /// from the rules (R17, R19) rather than from the table's solver: the side on roll
    /// doubles when that is worth more, the taker then holds the cube one double nearer its
    /// limit, and each side plays to maximise its cubeful equity.
    struct Tree {
        memo: HashMap<(u32, u32, CubeState, u32), f64>,
    }

    impl Tree {
        /// The side on roll's equity with its cube action now (`None` doubles left: 40,
        /// more than a 6x6 bear-off can use).
        fn with_action(&mut self, u: u32, t: u32, cube: CubeState, d: u32) -> f64 {
            let no_double = self.no_double(u, t, cube, d);
            if cube == CubeState::Unavailable || d == 0 {
                return no_double;
            }
            let take = 2.0 * self.no_double(u, t, CubeState::Unavailable, d - 1);
            no_double.max(take.min(1.0))
        }

        fn no_double(&mut self, u: u32, t: u32, cube: CubeState, d: u32) -> f64 {
            if u == 0 {
                return 1.0;
            }
            if t == 0 {
                return -1.0;
            }
            if let Some(&v) = self.memo.get(&(u, t, cube, d)) {
                return v;
            }
            let board = HomeBoard::from_index(u).unwrap();
            let (mut scratch, mut plays) = (new_scratch(), Vec::new());
            let mut total = 0.0;
            for &(high, low, weight) in ROLLS.iter() {
                children_indexes(board, high, low, &mut scratch, &mut plays);
                let best = plays
                    .clone()
                    .into_iter()
                    .map(|c| -self.with_action(t, c, flipped(cube), d))
                    .fold(f64::NEG_INFINITY, f64::max);
                total += f64::from(weight) * best;
            }
            let v = total / 36.0;
            self.memo.insert((u, t, cube, d), v);
            v
        }
    }

    const CUBES: [CubeState; 3] = [CubeState::Centred, CubeState::Owned, CubeState::Unavailable];

    #[test]
    fn limited_cubes_match_the_game_tree() {
        let t = table();
        let mut tree = Tree {
            memo: HashMap::new(),
        };
        // Every pair of up to three checkers a side, every cube, 0 to 4 doubles left and
        // a cube without a limit (the tree with 40).
        let n = positions_up_to(3) as u32;
        let mut worst: f64 = 0.0;
        for u in 1..n {
            for o in 1..n {
                for cube in CUBES {
                    for d in [Some(0), Some(1), Some(2), Some(3), Some(4), None] {
                        let depth = d.unwrap_or(40);
                        for may_double in [false, true] {
                            let want = if may_double {
                                tree.with_action(u, o, cube, depth)
                            } else {
                                tree.no_double(u, o, cube, depth)
                            };
                            let got = t
                                .cubeful_equity_by_index(u, o, cube, may_double, d)
                                .unwrap();
                            worst = worst.max((got - want).abs());
                            assert!(
                                (got - want).abs() < 2e-6,
                                "{u} {o} {cube:?} {d:?} {may_double}: {got} {want}"
                            );
                        }
                    }
                }
            }
        }
        assert!(worst > 0.0, "the comparison compared something");
    }

    #[test]
    fn a_dead_cube_is_worth_the_cubeless_equity() {
        let t = table();
        for (u, o) in [(1, 1), (5, 300), (923, 17), (400, 923)] {
            let cubeless = 2.0 * t.win_probability_by_index(u, o) - 1.0;
            for cube in CUBES {
                for may_double in [false, true] {
                    let dead = t.cubeful_equity_by_index(u, o, cube, may_double, Some(0));
                    assert_eq!(dead, Some(cubeless));
                }
            }
        }
    }

    #[test]
    fn the_limit_counts_near_it_and_fades_away_from_it() {
        let t = table();
        let n = t.cubeful.len();
        let at = |d: Option<u32>, k: usize| {
            let (u, o) = ((k / 924) as u32, (k % 924) as u32);
            t.cubeful_equity_by_index(u, o, CubeState::Centred, true, d)
                .unwrap()
        };
        // One double left is not a cube without a limit: somewhere the difference is large.
        let largest = (0..n)
            .step_by(97)
            .map(|k| (at(Some(1), k) - at(None, k)).abs());
        assert!(largest.fold(0.0, f64::max) > 0.05);
        // Six levels are solved; from seven doubles left the unlimited table is read (at
        // seven, a double taken still leads to level six).
        for k in (0..n).step_by(389) {
            assert!((at(Some(7), k) - at(None, k)).abs() < 1e-6);
            assert_eq!(at(Some(8), k), at(None, k));
            assert_eq!(at(Some(1000), k), at(None, k));
        }
        assert!((0..n).any(|k| at(Some(6), k) != at(None, k)));
    }

    #[test]
    fn levels_from_seven_are_the_unlimited_table() {
        // A 6x6 bear-off seldom lasts long enough to use seven doubles: solved, levels 7
        // and 8 lie within a few units of f32 rounding of the unlimited table (6e-8 near
        // 1), while level 6 still differs by more than 1e-6.
        let t = table();
        let distance = |level: &[[f32; 3]]| {
            let pairs = level.iter().zip(&t.cubeful);
            pairs
                .flat_map(|(a, b)| (0..3).map(move |i| (a[i] - b[i]).abs()))
                .fold(0.0f32, f32::max)
        };
        let six = t.limited.level(UNLIMITED_FROM - 1, &t.win).unwrap();
        assert!(distance(six) > 1e-6);
        let seven = t.limited.solve(Below::Table(six));
        let eight = t.limited.solve(Below::Table(&seven));
        assert!(distance(&seven) < 1e-6 && distance(&eight) < 1e-6);
    }

    #[test]
    fn a_cubeless_table_has_no_cubeful_equities_at_any_limit() {
        let t = TwoSided::build_cubeless();
        t.prepare_cube_limit(3);
        for d in [None, Some(0), Some(3)] {
            assert_eq!(
                t.cubeful_equity_by_index(5, 7, CubeState::Owned, true, d),
                None
            );
        }
    }
}
