//! Dice for playouts: a counter-seeded xoshiro256++ stream per game.
//!
//! Game `k` of a run with seed `s` draws every die from its own generator, seeded only from
//! `(s, k)` through SplitMix64 (the seeding the xoshiro authors recommend). So a game's dice
//! never depend on which thread plays it, on how many threads there are, or on which other
//! games run: results are bit-identical for any thread count and any sharding.
//!
//! Written here rather than taken from a crate because it is twenty lines, it must never
//! change between releases (a changed stream changes every published rollout), and a crate
//! upgrade could silently change it.

use crate::Dice;

/// SplitMix64's output function: a strong 64-bit mixer (Steele, Lea, Flood 2014).
#[inline]
const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The 36 ordered rolls, `index = 6 * (first - 1) + (second - 1)`.
pub const ORDERED_ROLLS: usize = 36;

/// The roll with ordered index `i` (see [`ORDERED_ROLLS`]), taken modulo 36: `i` and
/// `i + 36` are the same roll.
#[inline]
pub fn ordered_roll(i: usize) -> Dice {
    let i = i % ORDERED_ROLLS;
    Dice::from_pips((i / 6) as u8 + 1, (i % 6) as u8 + 1).expect("both dice in 1..=6")
}

/// A game's generator: xoshiro256++ (Blackman and Vigna), seeded from `(seed, game)`.
#[derive(Clone, Debug)]
pub struct GameRng {
    s: [u64; 4],
}

impl GameRng {
    /// The generator of game `game` in a run seeded with `seed`.
    pub fn new(seed: u64, game: u64) -> GameRng {
        // Two rounds of mixing so that neighbouring (seed, game) pairs start far apart.
        let mut state = mix64(seed ^ mix64(game.wrapping_add(GOLDEN)));
        let mut next = || {
            state = state.wrapping_add(GOLDEN);
            mix64(state)
        };
        let s = [next(), next(), next(), next()];
        GameRng { s }
    }

    /// The generator's state, to save it ([`GameRng::from_state`] takes it back).
    pub fn state(&self) -> [u64; 4] {
        self.s
    }

    /// A generator in a saved [`GameRng::state`], or `None` for the all-zero state:
    /// xoshiro256++ never reaches it, and from it would draw zeros forever.
    pub fn from_state(s: [u64; 4]) -> Option<GameRng> {
        (s != [0; 4]).then_some(GameRng { s })
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A uniform integer in `0..n`, without bias (Lemire's method with rejection).
    ///
    /// # Panics
    /// If `n` is 0: no integer is below it.
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        assert!(n >= 1, "GameRng::below(0): no integer is below 0");
        let n64 = n as u64;
        loop {
            let x = self.next_u64() >> 32;
            let m = x * n64;
            let low = m as u32;
            if low >= n || low >= n.wrapping_neg() % n {
                return (m >> 32) as u32;
            }
        }
    }

    /// A roll of two fair dice: each of the 36 ordered rolls with probability 1/36.
    #[inline]
    pub fn roll(&mut self) -> Dice {
        ordered_roll(self.below(ORDERED_ROLLS as u32) as usize)
    }

    /// An opening roll (R3): both players' dice, rerolled while they tie, so never a double.
    #[inline]
    pub fn opening_roll(&mut self) -> Dice {
        loop {
            let d = self.roll();
            if !d.is_double() {
                return d;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_game_same_stream() {
        let mut a = GameRng::new(7, 3);
        let mut b = GameRng::new(7, 3);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        let mut c = GameRng::new(7, 4);
        assert_ne!(GameRng::new(7, 3).next_u64(), c.next_u64());
    }

    #[test]
    fn rolls_are_uniform_over_36() {
        let mut rng = GameRng::new(1, 0);
        let mut counts = [0u32; 36];
        let n = 360_000;
        for _ in 0..n {
            let d = rng.roll();
            let (h, l) = (d.high().pips() as usize, d.low().pips() as usize);
            counts[6 * (h - 1) + (l - 1)] += 1;
        }
        // Counts by unordered roll: each double 1/36, each non-double 2/36 (folded on h >= l).
        for h in 1..=6 {
            for l in 1..=h {
                let c = counts[6 * (h - 1) + (l - 1)] as f64;
                let expect = n as f64 * if h == l { 1.0 } else { 2.0 } / 36.0;
                // Five standard deviations.
                assert!(
                    (c - expect).abs() < 5.0 * expect.sqrt(),
                    "{h}{l}: {c} vs {expect}"
                );
            }
        }
    }

    #[test]
    fn below_covers_range() {
        let mut rng = GameRng::new(2, 2);
        let mut seen = [false; 5];
        for _ in 0..1000 {
            seen[rng.below(5) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn opening_roll_is_never_a_double_r3() {
        let mut rng = GameRng::new(3, 9);
        for _ in 0..1000 {
            assert!(!rng.opening_roll().is_double());
        }
    }
}
