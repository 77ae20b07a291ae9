//! The dice of a rollout's games: game `k`'s from `(seed, k)` alone, the first two rolls
//! optionally rotated over all 1,296 pairs.
//!
//! Quasi-random dice (GNU Backgammon's name): with `a = k mod 36` and `b = (k / 36) mod 36`,
//! game `k`'s first roll is `first[a]` and its second `second[(a + b) mod 36]`, where
//! `first` and `second` are permutations of the 36 ordered rolls drawn from the seed. Every
//! block of 36 consecutive games then sees each first roll once and each second roll once,
//! and every 1,296 games see each pair once; the rolls after the second are random. Either
//! way every roll of the game is drawn from the game's generator, so the third and later
//! rolls are the same with and without rotation. Policies that draw random numbers get a
//! stream of their own and never shift the dice; the dice never depend on the thread,
//! the shard, the branch or the candidate that plays game `k`.

use bgfast_core::rng::{ordered_roll, GameRng, ORDERED_ROLLS};
use bgfast_core::Dice;

/// Added to the seed for the policies' own random numbers.
const POLICY_STREAM: u64 = 0xD1CE_5EED_0FF0_0D00;

/// The rotation of the first two rolls for one seed.
#[derive(Clone, Debug)]
pub struct Rotation {
    first: [u8; ORDERED_ROLLS],
    second: [u8; ORDERED_ROLLS],
}

impl Rotation {
    /// The permutations of `seed` (drawn from game numbers no real game uses).
    pub fn new(seed: u64) -> Rotation {
        let shuffled = |game: u64| {
            let mut rng = GameRng::new(seed, game);
            let mut p: [u8; ORDERED_ROLLS] = core::array::from_fn(|i| i as u8);
            // Fisher-Yates.
            for i in (1..ORDERED_ROLLS).rev() {
                let j = rng.below(i as u32 + 1) as usize;
                p.swap(i, j);
            }
            p
        };
        Rotation {
            first: shuffled(u64::MAX),
            second: shuffled(u64::MAX - 1),
        }
    }

    /// The ordered-roll indexes of game `game`'s first two rolls.
    fn rolls(&self, game: u64) -> [usize; 2] {
        let a = (game % ORDERED_ROLLS as u64) as usize;
        let b = ((game / ORDERED_ROLLS as u64) % ORDERED_ROLLS as u64) as usize;
        [
            self.first[a] as usize,
            self.second[(a + b) % ORDERED_ROLLS] as usize,
        ]
    }
}

/// One game's dice.
#[derive(Clone, Debug)]
pub struct GameDice {
    rng: GameRng,
    rotated: Option<[usize; 2]>,
    rolled: u32,
}

impl GameDice {
    /// Game `game`'s dice with seed `seed`, the first two rolls rotated if `rotation` is given.
    pub fn new(seed: u64, game: u64, rotation: Option<&Rotation>) -> GameDice {
        GameDice {
            rng: GameRng::new(seed, game),
            rotated: rotation.map(|r| r.rolls(game)),
            rolled: 0,
        }
    }

    /// The next roll.
    #[inline]
    pub fn roll(&mut self) -> Dice {
        let drawn = self.rng.roll();
        let n = self.rolled;
        self.rolled += 1;
        match self.rotated {
            Some(rolls) if n < 2 => ordered_roll(rolls[n as usize]),
            _ => drawn,
        }
    }

    /// Game `game`'s generator for a policy's own random choices.
    pub fn policy_rng(seed: u64, game: u64) -> GameRng {
        GameRng::new(seed ^ POLICY_STREAM, game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_once_in_1296_games_and_every_roll_once_in_36() {
        let rotation = Rotation::new(99);
        let mut pairs = std::collections::HashSet::new();
        for block in 0..36u64 {
            let mut firsts = [0u32; 36];
            let mut seconds = [0u32; 36];
            for a in 0..36u64 {
                let k = 36 * block + a;
                let mut dice = GameDice::new(99, k, Some(&rotation));
                let [r0, r1] = rotation.rolls(k);
                assert_eq!(dice.roll(), ordered_roll(r0));
                assert_eq!(dice.roll(), ordered_roll(r1));
                firsts[r0] += 1;
                seconds[r1] += 1;
                pairs.insert((r0, r1));
            }
            assert!(firsts.iter().all(|&c| c == 1));
            assert!(seconds.iter().all(|&c| c == 1));
        }
        assert_eq!(pairs.len(), 1296);
    }

    #[test]
    fn later_rolls_do_not_depend_on_the_rotation() {
        let rotation = Rotation::new(5);
        let mut a = GameDice::new(5, 17, Some(&rotation));
        let mut b = GameDice::new(5, 17, None);
        a.roll();
        a.roll();
        b.roll();
        b.roll();
        for _ in 0..50 {
            assert_eq!(a.roll(), b.roll());
        }
    }
}
