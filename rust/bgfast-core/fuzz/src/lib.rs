//! What the fuzz targets share: positions and dice made from fuzzer bytes, an independent
//! rule checker for single steps (R6, R7, R12, R13, R14), and the bear-off file checks.

use bgfast_core::bearoff::{HomeBoard, OneSided, TwoSided, MAX_ROLLS, ONE_SIDED_POSITIONS};
use bgfast_core::codec::gnubg_id;
use bgfast_core::rng::GameRng;
use bgfast_core::{Dice, MoveList, Position, Step, BAR, OFF};

/// A valid position from the first bytes of `data`, and the bytes left: a Position ID (if
/// the first 14 bytes are one), else a random playout seeded by the bytes.
pub fn position_from(data: &[u8]) -> (Position, &[u8]) {
    if let Some(id) = data.get(..14).and_then(|b| core::str::from_utf8(b).ok()) {
        if let Ok(p) = gnubg_id::decode(id) {
            return (p, &data[14..]);
        }
    }
    let mut seed = [0u8; 8];
    let n = data.len().min(8);
    seed[..n].copy_from_slice(&data[..n]);
    let plies = data.get(8).copied().unwrap_or(0) as usize;
    let rest = data.get(9..).unwrap_or(&[]);
    let mut rng = GameRng::new(u64::from_le_bytes(seed), 0);
    let mut position = Position::START;
    let mut list = MoveList::new();
    for _ in 0..plies {
        if position.outcome().is_some() {
            break;
        }
        position.generate_moves(rng.roll(), &mut list);
        position = list.result(rng.below(list.len() as u32) as usize);
    }
    (position, rest)
}

/// One of the 21 rolls from a byte.
pub fn dice_from(byte: Option<&u8>) -> Dice {
    Dice::ALL_21[byte.copied().unwrap_or(0) as usize % 21]
}

/// Both sides' counts, in each side's own numbering: index `p - 1` for point p, 24 the bar.
pub type Counts = [[u8; 25]; 2];

/// Plays `step` with `die` pips on `counts` (mover first) if the rules allow it, checking
/// its hit flag; `None` if it is not a lawful single-die step. Written from RULES.md alone,
/// apart from the move generator.
pub fn lawful_step(counts: &Counts, step: Step, die: u8) -> Option<Counts> {
    let [mut mine, mut theirs] = *counts;
    let (from, to) = (step.from as usize, step.to as usize);
    if !(1..=25).contains(&from) || to >= from || mine[from - 1] == 0 {
        return None;
    }
    // R12: checkers on the bar enter first.
    if mine[24] > 0 && from != BAR as usize {
        return None;
    }
    if step.to == OFF {
        // R13: all checkers home (off ones count as home); R14: exact, or higher than the
        // highest occupied point.
        if mine[6..].iter().any(|&c| c > 0) {
            return None;
        }
        let exact = from == die as usize;
        let higher = from < die as usize && mine[from..6].iter().all(|&c| c == 0);
        if !(exact || higher) {
            return None;
        }
        mine[from - 1] -= 1;
    } else {
        if from - to != die as usize {
            return None;
        }
        // The opponent's point for our point `to` is 25 - to.
        let there = 24 - to;
        // R7: blocked; R6/R11: a blot is hit, and the flag says so.
        match theirs[there] {
            0 => {
                if step.hit {
                    return None;
                }
            }
            1 => {
                if !step.hit {
                    return None;
                }
                theirs[there] = 0;
                theirs[24] += 1;
            }
            _ => return None,
        }
        mine[from - 1] -= 1;
        mine[to - 1] += 1;
    }
    Some([mine, theirs])
}

/// Whether some single step with `die` is lawful from `counts`.
pub fn any_step(counts: &Counts, die: u8) -> bool {
    steps_with(counts, die).next().is_some()
}

/// The lawful single steps with `die` from `counts`, and the counts after each.
pub fn steps_with(counts: &Counts, die: u8) -> impl Iterator<Item = Counts> + '_ {
    (1..=25u8).filter_map(move |from| {
        let to = from.saturating_sub(die);
        let hit = to != OFF && counts[1][24 - to as usize] == 1;
        lawful_step(counts, Step { from, to, hit }, die)
    })
}

/// The most dice of `dice` (in any order) that can be played from `counts`: a brute-force
/// search over lawful steps, for R8.
pub fn max_dice(counts: &Counts, dice: &mut Vec<u8>) -> usize {
    let mut best = 0;
    for i in 0..dice.len() {
        let die = dice[i];
        if dice[..i].contains(&die) {
            continue;
        }
        dice.remove(i);
        for next in steps_with(counts, die) {
            best = best.max(1 + max_dice(&next, dice));
            if best == dice.len() + 1 {
                break;
            }
        }
        dice.insert(i, die);
        if best == dice.len() {
            break;
        }
    }
    best
}

/// Plays `steps` in order, each with one unused die of `dice` (R4, R5), trying every
/// assignment; the counts after, if some assignment makes every step lawful.
pub fn lawful_steps(counts: &Counts, steps: &[Step], dice: &mut Vec<u8>) -> Option<Counts> {
    let Some((&first, rest)) = steps.split_first() else {
        return Some(*counts);
    };
    for i in 0..dice.len() {
        let die = dice[i];
        if i > 0 && dice[..i].contains(&die) {
            continue;
        }
        if let Some(next) = lawful_step(counts, first, die) {
            dice.remove(i);
            let done = lawful_steps(&next, rest, dice);
            dice.insert(i, die);
            if done.is_some() {
                return done;
            }
        }
    }
    None
}

/// The bear-off tables and their file bytes, built once.
pub fn tables() -> &'static (OneSided, Vec<u8>, TwoSided, Vec<u8>) {
    static T: std::sync::OnceLock<(OneSided, Vec<u8>, TwoSided, Vec<u8>)> =
        std::sync::OnceLock::new();
    T.get_or_init(|| {
        let one = OneSided::build();
        let two = TwoSided::build(true, &|_, _| {});
        let (b1, b2) = (one.to_bytes(), two.to_bytes());
        (one, b1, two, b2)
    })
}

/// Every lookup of an accepted one-sided table answers without a panic.
pub fn exercise_one_sided(t: &OneSided) {
    for i in 0..ONE_SIDED_POSITIONS as u32 {
        let (start, probs) = t.rolls_slice(i);
        assert!(start + probs.len() <= MAX_ROLLS);
        let board = HomeBoard::from_index(i).unwrap();
        let _ = (t.rolls_distribution(board), t.gammon_distribution(board));
        let _ = (t.variance(i), t.epc(i), t.expected_rolls_to_first_off(i));
    }
}

/// Every lookup of an accepted two-sided table answers without a panic.
pub fn exercise_two_sided(t: &TwoSided) {
    let n = bgfast_core::bearoff::TWO_SIDED_POSITIONS as u32;
    for i in (0..n).step_by(7) {
        let (a, b) = (
            HomeBoard::from_index(i).unwrap(),
            HomeBoard::from_index(n - 1 - i).unwrap(),
        );
        let _ = t.win_probability(a, b);
        let _ = t.cubeful_equity(a, b, bgfast_core::bearoff::CubeState::Centred, true, None);
        let _ = t.best_play(a, b, 6, 5);
    }
}
