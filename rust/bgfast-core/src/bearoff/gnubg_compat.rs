//! GNU Backgammon's bear-off tables, reproduced bit for bit: the same 16-bit fixed-point
//! arithmetic, the same rounding, the same choice of play including its tie-breaks. Used
//! to prove that [`super::OneSided::build`] and [`super::TwoSided::build`] compute what
//! `makebearoff` computes, the differences being only GNU Backgammon's rounding. The tests
//! compare them with the files GNU Backgammon ships (`gnubg_os0.bd`, `gnubg_ts0.bd`).
//!
//! What `makebearoff` does, in our words: each distribution is stored as 16-bit integers
//! summing to 0xFFFF. A position's distribution sums, over the 21 rolls, the chosen play's
//! distribution shifted by one roll (weight 2 for non-doubles), rounds each entry to
//! `(x + 18) / 36`, and lets the largest entry absorb the rounding error. The chosen play
//! is the first, in move-generation order, with the smallest `sum(n * p[n])` over the
//! rounded distribution. Its move generator tries the higher die first, then the lower;
//! within a die it moves checkers from the highest point down (for doubles, later checkers
//! never from a higher point than earlier ones), and lists each resulting position the first
//! time it is reached.

use super::index::{index_unchecked, position_unchecked, ONE_SIDED_POSITIONS, POINTS};
use super::one_sided::{Distribution, MAX_ROLLS};

const UNIT: u32 = 0xFFFF;

/// Results of a roll in GNU Backgammon's discovery order.
struct Generator {
    dice: [u8; 4],
    n_dice: usize,
    max_moves: usize,
    /// Distinct results by bear-off index, in discovery order.
    list: Vec<u32>,
    /// `seen[index] == stamp` when `index` is in `list` (a new stamp empties it).
    seen: Vec<u32>,
    stamp: u32,
}

impl Generator {
    fn legal(board: &[u8; POINTS], i: usize, die: usize) -> bool {
        if i >= die {
            return true;
        }
        let back = board.iter().rposition(|&c| c > 0).unwrap_or(0);
        i == back || i + 1 == die
    }

    fn save(&mut self, moves: usize, board: [u8; POINTS]) {
        // Fewer dice than the best found so far is illegal (R8); more voids the list.
        if moves < self.max_moves {
            return;
        }
        if moves > self.max_moves {
            self.list.clear();
            self.stamp += 1;
            self.max_moves = moves;
        }
        let index = index_unchecked(&board);
        if self.seen[index as usize] != self.stamp {
            self.seen[index as usize] = self.stamp;
            self.list.push(index);
        }
    }

    /// Returns whether no die could be played at this depth (the caller then saves).
    fn sub(&mut self, depth: usize, top: usize, board: &[u8; POINTS]) -> bool {
        if depth >= self.n_dice {
            return true;
        }
        let die = self.dice[depth] as usize;
        let mut used = false;
        for i in (0..=top).rev() {
            if board[i] == 0 || !Self::legal(board, i, die) {
                continue;
            }
            let mut next = *board;
            next[i] -= 1;
            if i >= die {
                next[i - die] += 1;
            }
            let top_next = if self.n_dice == 4 { i } else { POINTS - 1 };
            if self.sub(depth + 1, top_next, &next) {
                self.save(depth + 1, next);
            }
            used = true;
        }
        !used
    }

    fn new() -> Generator {
        Generator {
            dice: [0; 4],
            n_dice: 0,
            max_moves: 0,
            list: Vec::with_capacity(256),
            seen: vec![0; ONE_SIDED_POSITIONS],
            stamp: 0,
        }
    }

    /// Fills `self.list` with the results of `high`-`low`.
    fn generate(&mut self, board: &[u8; POINTS], high: u8, low: u8) {
        self.list.clear();
        self.stamp += 1;
        self.max_moves = 0;
        if high == low {
            self.dice = [high; 4];
            self.n_dice = 4;
        } else {
            self.dice = [high, low, 0, 0];
            self.n_dice = 2;
        }
        self.sub(0, POINTS - 1, board);
        if high != low {
            self.dice = [low, high, 0, 0];
            self.sub(0, POINTS - 1, board);
        }
    }
}

fn rolls_os(d: &[u32; MAX_ROLLS]) -> u64 {
    d.iter()
        .enumerate()
        .skip(1)
        .map(|(i, &p)| i as u64 * p as u64)
        .sum()
}

fn round(acc: &[u64; MAX_ROLLS]) -> [u32; MAX_ROLLS] {
    let mut out = [0u32; MAX_ROLLS];
    let mut sum = 0i64;
    let mut mode = 0;
    for i in 0..MAX_ROLLS {
        out[i] = ((acc[i] + 18) / 36) as u32;
        sum += out[i] as i64;
        if out[i] > out[mode] {
            mode = i;
        }
    }
    out[mode] = (out[mode] as i64 + UNIT as i64 - sum) as u32;
    out
}

/// The rolls and first-checker distributions of every position, as probabilities.
pub(crate) fn solve() -> (Vec<Distribution>, Vec<Distribution>) {
    let n = ONE_SIDED_POSITIONS;
    let mut rolls = vec![[0u32; MAX_ROLLS]; n];
    let mut gammon = vec![[0u32; MAX_ROLLS]; n];
    let mut key = vec![0u64; n];
    let mut gkey = vec![0u64; n];
    let mut generator = Generator::new();
    rolls[0][0] = UNIT;
    gammon[0][0] = UNIT;
    for i in 1..n {
        let board = position_unchecked(i as u32);
        let full = board.iter().map(|&c| c as u32).sum::<u32>() == 15;
        let mut acc = [0u64; MAX_ROLLS];
        let mut gacc = [0u64; MAX_ROLLS];
        for high in 1..=6u8 {
            for low in 1..=high {
                let w = if high == low { 1 } else { 2 };
                generator.generate(&board, high, low);
                let results = &generator.list;
                let mut best = results[0] as usize;
                let mut gbest = best;
                for &c in &results[1..] {
                    let c = c as usize;
                    if key[c] < key[best] {
                        best = c;
                    }
                    if gkey[c] < gkey[gbest] {
                        gbest = c;
                    }
                }
                for r in 0..MAX_ROLLS - 1 {
                    acc[r + 1] += w * rolls[best][r] as u64;
                    if full {
                        gacc[r + 1] += w * gammon[gbest][r] as u64;
                    }
                }
            }
        }
        rolls[i] = round(&acc);
        if full {
            gammon[i] = round(&gacc);
        } else {
            gammon[i][0] = UNIT;
        }
        key[i] = rolls_os(&rolls[i]);
        gkey[i] = rolls_os(&gammon[i]);
    }
    let scale = |d: &[u32; MAX_ROLLS]| -> Distribution {
        core::array::from_fn(|r| d[r] as f64 / UNIT as f64)
    };
    (
        rolls.iter().map(scale).collect(),
        gammon.iter().map(scale).collect(),
    )
}

/// `makebearoff`'s cube rule on 16-bit equities: double when the take is worth at least
/// half of not doubling and a pass at least as much; then the opponent takes or passes,
/// whichever costs it less.
fn cube_equity(no_double: i32, take: i32, pass: i32) -> i32 {
    // C's `/` truncates toward zero; Rust's does too.
    if take >= no_double / 2 && pass >= no_double {
        if take >= pass / 2 {
            pass
        } else {
            2 * take
        }
    } else {
        no_double
    }
}

/// The two-sided 6x6 table in `makebearoff`'s integer arithmetic, values in -0x8000..=0x7FFF:
/// `[cubeless, owned, centred, unavailable]` by `mover * 924 + opponent`. Only values are
/// kept (never which play), so its move order does not matter here.
pub(crate) fn solve_two_sided(plays: &super::two_sided::Plays) -> Vec<[i32; 4]> {
    const WON: i32 = 0x7FFF;
    const LOST: i32 = -0x8000;
    super::two_sided::solve_shells(
        [WON; 4],
        [LOST; 4],
        |row_t: &[[i32; 4]], _, u| {
            let mut total = [0i32; 4];
            for (r, &(_, _, w)) in super::moves::ROLLS.iter().enumerate() {
                let mut best = [-0xFFFF; 4];
                for &c in plays.of(u, r) {
                    let e = row_t[c as usize];
                    // `~x` is `-x - 1`: the opponent's equity seen from our side.
                    best[0] = best[0].max(!e[0]);
                    best[1] = best[1].max(!e[3]);
                    best[2] = best[2].max(!cube_equity(e[2], e[3], WON));
                    best[3] = best[3].max(!cube_equity(e[1], e[3], WON));
                }
                for k in 0..4 {
                    total[k] += w as i32 * best[k];
                }
            }
            total.map(|t| t / 36)
        },
        &|_, _| {},
    )
}
