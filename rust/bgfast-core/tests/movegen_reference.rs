//! Differential test: the fast generator against a brute-force reference written from the
//! rules alone (R4–R14), on the wildbg corpora and on positions from random playouts.
//!
//! The reference plays every die in every order from every source, one checker at a time on
//! plain count arrays, keeps the plays that use the most dice (R8) and the higher die when only
//! one can be played (R9), and groups the plays by the position they reach. The fast generator
//! must list exactly those positions, each once, with a move that is one of the plays reaching
//! it.

mod common;

use common::corpus;
use std::collections::{HashMap, HashSet};

use bgfast_core::codec::gnubg_id;
use bgfast_core::{Dice, MoveList, Position, Step};

/// Counts in the mover's numbering: `m[p]` for points 1..=24, `m[25]` the bar; `o[q]` the same
/// for the opponent in its own numbering (its point `q` is the mover's point `25 - q`).
#[derive(Clone, Copy)]
struct Board {
    m: [u8; 26],
    o: [u8; 26],
}

impl Board {
    fn new(pos: &Position) -> Board {
        let [mover, opponent] = pos.to_counts();
        let mut board = Board {
            m: [0; 26],
            o: [0; 26],
        };
        board.m[1..].copy_from_slice(&mover);
        board.o[1..].copy_from_slice(&opponent);
        board
    }

    /// The position reached, with the opponent to move.
    fn result(&self) -> Position {
        let widen = |c: &[u8; 26]| -> [i32; 25] { core::array::from_fn(|i| i32::from(c[i + 1])) };
        Position::from_counts(&widen(&self.o), &widen(&self.m))
            .expect("a legal play keeps a valid position")
    }

    /// One checker from `from` by `die`, if the rules allow it.
    fn step(&self, from: usize, die: usize) -> Option<(Board, Step)> {
        if self.m[from] == 0 {
            return None;
        }
        // R12: nothing moves while a checker is on the bar, except that checker.
        if self.m[25] > 0 && from != 25 {
            return None;
        }
        let mut next = *self;
        next.m[from] -= 1;
        if from > die {
            let to = from - die;
            let opp = 25 - to;
            // R7: two or more opposing checkers block the point.
            if self.o[opp] >= 2 {
                return None;
            }
            // R6, R11: a blot is hit and goes to the bar.
            let hit = self.o[opp] == 1;
            if hit {
                next.o[opp] = 0;
                next.o[25] += 1;
            }
            next.m[to] += 1;
            return Some((
                next,
                Step {
                    from: from as u8,
                    to: to as u8,
                    hit,
                },
            ));
        }
        // R13: bearing off only with every checker home.
        if (7..=25).any(|p| self.m[p] > 0) {
            return None;
        }
        // R14: a higher die bears off only from the highest occupied point.
        if from < die && (from + 1..=6).any(|p| self.m[p] > 0) {
            return None;
        }
        Some((
            next,
            Step {
                from: from as u8,
                to: 0,
                hit: false,
            },
        ))
    }
}

/// Every play of `dice` in every order, as (steps, board reached), stopping when no die can move.
fn all_plays(
    board: Board,
    dice: &[usize],
    steps: &mut Vec<Step>,
    out: &mut Vec<(Vec<Step>, Board)>,
) {
    let mut moved = false;
    if let Some((&die, rest)) = dice.split_first() {
        for from in 1..=25 {
            if let Some((next, step)) = board.step(from, die) {
                moved = true;
                steps.push(step);
                all_plays(next, rest, steps, out);
                steps.pop();
            }
        }
    }
    if !moved {
        out.push((steps.clone(), board));
    }
}

/// The reference: each legal result with every play reaching it.
fn reference(pos: &Position, dice: Dice) -> HashMap<Position, HashSet<Vec<Step>>> {
    let (high, low) = (dice.high().pips() as usize, dice.low().pips() as usize);
    let start = Board::new(pos);
    // Each play with the die it moved first.
    let mut plays: Vec<(Vec<Step>, Board, usize)> = Vec::new();
    let orders: &[[usize; 4]] = if dice.is_double() {
        &[[high; 4]]
    } else {
        &[[high, low, 0, 0], [low, high, 0, 0]]
    };
    for order in orders {
        let dice_in_order: Vec<usize> = order.iter().copied().filter(|&d| d > 0).collect();
        let mut found = Vec::new();
        all_plays(start, &dice_in_order, &mut Vec::new(), &mut found);
        plays.extend(found.into_iter().map(|(s, b)| (s, b, order[0])));
    }
    // R8: as many dice as possible.
    let most = plays.iter().map(|(s, _, _)| s.len()).max().unwrap_or(0);
    plays.retain(|(s, _, _)| s.len() == most);
    // R9: one die only: the higher one if any play uses it.
    if !dice.is_double() && most == 1 && plays.iter().any(|&(_, _, d)| d == high) {
        plays.retain(|&(_, _, d)| d == high);
    }
    let mut results: HashMap<Position, HashSet<Vec<Step>>> = HashMap::new();
    for (steps, board, _) in plays {
        results.entry(board.result()).or_default().insert(steps);
    }
    results
}

/// Compares the generator with the reference for every roll; returns the number of results.
fn compare(pos: &Position, list: &mut MoveList) -> usize {
    let mut total = 0;
    for dice in Dice::ALL_21 {
        pos.generate_moves(dice, list);
        let expected = reference(pos, dice);
        let got: HashSet<Position> = (0..list.len()).map(|i| list.result(i)).collect();
        assert_eq!(
            got.len(),
            list.len(),
            "R4-R14: a result listed twice for {pos:?} {dice}"
        );
        let want: HashSet<Position> = expected.keys().copied().collect();
        assert_eq!(got, want, "R4-R14: results differ for {pos:?} {dice}");
        for (mv, result) in list.iter() {
            assert!(
                expected[&result].contains(mv.steps()),
                "the move {mv:?} does not reach {result:?} from {pos:?} {dice}"
            );
        }
        total += list.len();
    }
    total
}

/// A small deterministic generator (SplitMix64), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// Positions met in random games from the start: every position of each game until it ends.
fn playouts(seed: u64, count: usize) -> Vec<Position> {
    let mut rng = Rng(seed);
    let mut list = MoveList::new();
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut pos = Position::START;
        while pos.outcome().is_none() && out.len() < count {
            out.push(pos);
            pos.generate_moves(Dice::ALL_21[rng.below(21)], &mut list);
            pos = list.result(rng.below(list.len()));
        }
    }
    out
}

#[test]
fn corpora_sample_match_reference() {
    let mut list = MoveList::new();
    for name in ["wildbg_contact.csv", "wildbg_race.csv"] {
        for pos in corpus(name).iter().step_by(40) {
            compare(pos, &mut list);
        }
    }
}

/// The generator is compiled for the x86-64 baseline and for CPUs with BMI2 and friends,
/// chosen at run time; this runs the baseline build too (on any CPU).
#[test]
fn baseline_isa_matches_reference() {
    bgfast_core::force_baseline_isa(true);
    let mut list = MoveList::new();
    for name in ["wildbg_contact.csv", "wildbg_race.csv"] {
        for pos in corpus(name).iter().skip(5).step_by(50) {
            compare(pos, &mut list);
        }
    }
    bgfast_core::force_baseline_isa(false);
}

#[test]
fn random_playouts_match_reference() {
    let mut list = MoveList::new();
    for pos in playouts(1, 150) {
        compare(&pos, &mut list);
    }
}

#[test]
fn worst_case_and_start_match_reference() {
    let mut list = MoveList::new();
    compare(&Position::START, &mut list);
    assert!(compare(&gnubg_id::decode("AAAAUUoppaQAAA").unwrap(), &mut list) >= 2226);
}

/// Every corpus position and 4,000 playout positions, all 21 rolls:
/// `cargo test --release -p bgfast-core --test movegen_reference -- --ignored`.
#[test]
#[ignore = "about a minute in debug builds; run with --release"]
fn everything_matches_reference() {
    let mut list = MoveList::new();
    let mut positions = corpus("wildbg_contact.csv");
    positions.extend(corpus("wildbg_race.csv"));
    positions.extend(playouts(2, 4000));
    let total: usize = positions.iter().map(|p| compare(p, &mut list)).sum();
    assert!(total > 0);
}
