//! The fast net passes against the reference forward pass.
//!
//! Nets have the shapes of wildbg's (contact 202 -> 150 tanh -> 6 softmax, race 186 -> 16
//! tanh -> 6 softmax) and other widths, activations, depths and heads, with deterministic
//! pseudo-random weights; positions come from random playouts (contact, race, finished).
//! Probabilities must agree within 2e-6, `best` must pick a result whose reference equity
//! is within 1e-5 of the lowest, and both builds (the CPU's and the forced baseline) are
//! checked in one test, since forcing the baseline is process-wide.

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use bgfast_core::rng::GameRng;
use bgfast_core::{isa, Dice, MoveList, Position};
use bgfast_engine::cube::{Cube, CubeContext, MoneyRules, Stakes};
use bgfast_engine::net::{self, Activation, Dense, Inputs, Mlp, Net, NetPolicy, Phase, Scratch};
use bgfast_engine::rollout::{self, Branch, Player, Spec};
use bgfast_engine::{Evaluator, Probabilities};

/// Probabilities must agree this closely.
const TOLERANCE: f32 = 2e-6;
/// Equities this close count as a tie `best` may break either way.
const NEAR_TIE: f32 = 1e-5;

/// Held by the tests that force the baseline (process-wide), so they do not interleave.
static BUILDS: Mutex<()> = Mutex::new(());

/// SplitMix64: a tiny deterministic generator for weights.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[-scale, scale)`.
    fn uniform(&mut self, scale: f32) -> f32 {
        ((self.next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
    }
}

/// A part of `inputs` inputs with hidden `layers` (width, activation) and a head of
/// `head` (6 softmax or 5 sigmoid); weights uniform in ±`scale / sqrt(fan-in)`-ish.
fn part(
    seed: u64,
    inputs: usize,
    layers: &[(usize, Activation)],
    head: Activation,
    first_scale: f32,
) -> Mlp {
    let mut mix = Mix(seed);
    let outputs = if head == Activation::Softmax { 6 } else { 5 };
    let mut dense = Vec::new();
    let mut width = inputs;
    let shapes = layers.iter().copied().chain([(outputs, head)]);
    for (k, (out, activation)) in shapes.enumerate() {
        let scale = if k == 0 {
            first_scale
        } else {
            2.0 / (width as f32).sqrt()
        };
        let weights = (0..width * out).map(|_| mix.uniform(scale)).collect();
        let bias = (0..out).map(|_| mix.uniform(0.2)).collect();
        dense.push(Dense::new(k, width, out, weights, bias, activation).unwrap());
        width = out;
    }
    Mlp::new(dense).unwrap()
}

/// A net of wildbg's shapes.
fn wildbg_shaped(seed: u64) -> Net {
    let contact = part(
        seed,
        202,
        &[(150, Activation::Tanh)],
        Activation::Softmax,
        0.2,
    );
    let race = part(
        seed + 1,
        186,
        &[(16, Activation::Tanh)],
        Activation::Softmax,
        0.2,
    );
    Net::new(Inputs::Wildbg, contact, Some(race)).unwrap()
}

/// Nets of other shapes: every activation, two hidden layers, one layer, the gnubg head,
/// the board encoding, no race part, widths that are not whole vectors.
fn other_nets() -> Vec<(&'static str, Net)> {
    use Activation::*;
    let w = |phase| Inputs::Wildbg.width(phase);
    let b = Inputs::Board.width(Phase::Contact);
    let net = |inputs, contact, race| Net::new(inputs, contact, race).unwrap();
    vec![
        (
            "wildbg relu/sigmoid, two hidden layers, gnubg head",
            net(
                Inputs::Wildbg,
                part(
                    11,
                    w(Phase::Contact),
                    &[(37, Relu), (13, Sigmoid)],
                    Sigmoid,
                    0.3,
                ),
                Some(part(12, w(Phase::Race), &[(9, Identity)], Sigmoid, 0.1)),
            ),
        ),
        (
            "wildbg contact only, sigmoid hidden 150",
            net(
                Inputs::Wildbg,
                part(13, w(Phase::Contact), &[(150, Sigmoid)], Softmax, 0.2),
                None,
            ),
        ),
        (
            "wildbg single layers",
            net(
                Inputs::Wildbg,
                part(14, w(Phase::Contact), &[], Softmax, 0.2),
                Some(part(15, w(Phase::Race), &[], Sigmoid, 0.1)),
            ),
        ),
        (
            "board tanh 64 -> relu 24, softmax",
            net(
                Inputs::Board,
                part(16, b, &[(64, Tanh), (24, Relu)], Softmax, 0.15),
                Some(part(17, b, &[(5, Tanh)], Softmax, 0.15)),
            ),
        ),
        (
            "board identity 3, gnubg head, no race part",
            net(
                Inputs::Board,
                part(18, b, &[(3, Identity)], Sigmoid, 0.1),
                None,
            ),
        ),
    ]
}

/// Every position of `games` random games from the start, finished ones included.
fn playout_positions(games: u64) -> Vec<Position> {
    let mut list = MoveList::new();
    let mut out = Vec::new();
    for game in 0..games {
        let mut rng = GameRng::new(2024, game);
        let mut pos = Position::START;
        loop {
            out.push(pos);
            if pos.outcome().is_some() {
                break;
            }
            pos.generate_moves(rng.roll(), &mut list);
            pos = list.result(rng.below(list.len() as u32) as usize);
        }
    }
    out
}

fn max_diff(a: &Probabilities, b: &Probabilities) -> f32 {
    a.to_array()
        .iter()
        .zip(b.to_array())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// Evaluate (batch, parallel, with a scratch) against the reference.
fn check_evaluate(name: &str, net: &Net, positions: &[Position]) {
    let mut fast = vec![Probabilities::default(); positions.len()];
    net.evaluate(positions, &mut fast);
    let mut worst = 0.0f32;
    for (pos, p) in positions.iter().zip(&fast) {
        let want = net.evaluate_reference(pos);
        let d = max_diff(p, &want);
        assert!(d <= TOLERANCE, "{name}: {pos:?}: {p:?} vs {want:?}");
        worst = worst.max(d);
    }
    // One position at a time, with a scratch, and on two threads: the same bits.
    let mut scratch = Scratch::new();
    let mut single = [Probabilities::default()];
    for (pos, p) in positions.iter().zip(&fast).step_by(7) {
        net.evaluate_with(core::slice::from_ref(pos), &mut single, &mut scratch);
        assert_eq!(single[0], *p, "{name}: batch and single differ");
    }
    let mut two = vec![Probabilities::default(); positions.len()];
    net.evaluate_parallel(positions, &mut two, 2);
    assert!(two == fast, "{name}: two threads differ from one");
    println!(
        "{name} ({}): {} positions, max |diff| {worst:e}",
        net::isa_name(),
        positions.len()
    );
}

/// `score_results`, `best` and `rank` on the lists of `origins` and some rolls.
fn check_play(name: &str, net: &Net, origins: &[Position]) {
    let mut list = MoveList::new();
    let mut scores = Vec::new();
    let mut scratch = Scratch::new();
    let (mut lists, mut to_race, mut finished, mut worst) = (0, 0, 0, 0.0f32);
    for (k, origin) in origins.iter().enumerate() {
        if origin.outcome().is_some() {
            continue;
        }
        let dice = Dice::ALL_21[k % 21];
        origin.generate_moves(dice, &mut list);
        lists += 1;
        net.score_results(&list, &mut scores);
        assert_eq!(scores.len(), list.len());
        let reference: Vec<Probabilities> = (0..list.len())
            .map(|i| net.evaluate_reference(&list.result(i)))
            .collect();
        for (i, (got, want)) in scores.iter().zip(&reference).enumerate() {
            let d = max_diff(got, want);
            assert!(
                d <= TOLERANCE,
                "{name}: result {i} of {origin:?} {dice}: {got:?} vs {want:?}"
            );
            worst = worst.max(d);
            let result = list.result(i);
            to_race += (result.is_race() && !origin.is_race()) as usize;
            finished += result.outcome().is_some() as usize;
        }
        // best: the lowest reference equity, up to near-ties.
        let equities: Vec<f32> = reference.iter().map(Probabilities::equity).collect();
        let lowest = equities.iter().copied().fold(f32::INFINITY, f32::min);
        let best = net.best(&list).expect("a list with results");
        assert!(
            equities[best] <= lowest + NEAR_TIE,
            "{name}: best {best} has {} but the lowest is {lowest}",
            equities[best]
        );
        assert_eq!(net.best_with(&list, &mut scratch), Some(best));
        assert_eq!(net.best(&list), Some(best), "best is deterministic");
        // The first of exactly equal fast equities.
        let fast_eq: Vec<f32> = scores.iter().map(Probabilities::equity).collect();
        assert_eq!(
            fast_eq.iter().position(|&e| e == fast_eq[best]),
            Some(best),
            "{name}: ties go to the first"
        );
        // rank: a permutation, best first, sorted, the flipped scores.
        let rank = net.rank(&list);
        assert_eq!(rank.len(), list.len());
        assert_eq!(rank[0].0, best);
        let mut seen = vec![false; list.len()];
        for (i, p) in &rank {
            assert!(!seen[*i]);
            seen[*i] = true;
            assert_eq!(*p, scores[*i].flipped());
        }
        for pair in rank.windows(2) {
            let (a, b) = (fast_eq[pair[0].0], fast_eq[pair[1].0]);
            assert!(
                a < b || (a == b && pair[0].0 < pair[1].0),
                "{name}: rank order"
            );
            assert!(pair[0].1.equity() >= pair[1].1.equity() - 1e-6);
        }
        let mut rng = GameRng::new(1, 1);
        let mut policy = NetPolicy::new(net);
        assert_eq!(
            bgfast_engine::playout::Policy::choose(&mut policy, &list, &mut rng),
            best
        );
    }
    println!(
        "{name} ({}): {lists} lists, {to_race} results entering a race, {finished} finished, \
         max |diff| {worst:e}",
        net::isa_name()
    );
}

#[test]
fn fast_passes_match_the_reference_in_both_builds() {
    let _builds = BUILDS.lock().unwrap_or_else(|e| e.into_inner());
    let positions = playout_positions(60);
    let races = positions.iter().filter(|p| p.is_race()).count();
    let finished = positions.iter().filter(|p| p.outcome().is_some()).count();
    assert!(
        races > 500 && finished == 60,
        "{races} races, {finished} finished"
    );
    let nets: Vec<(&str, Net)> = [("wildbg-shaped", wildbg_shaped(1))]
        .into_iter()
        .chain(other_nets())
        .collect();
    let chosen = net::isa_name();
    for baseline in [false, true] {
        isa::force_baseline(baseline);
        if baseline {
            assert_eq!(
                net::isa_name(),
                if cfg!(target_arch = "x86_64") {
                    "x86-64 baseline"
                } else {
                    "portable"
                }
            );
        }
        for (k, (name, net)) in nets.iter().enumerate() {
            let step = if k == 0 { 1 } else { 3 };
            let some: Vec<Position> = positions.iter().copied().step_by(step).collect();
            check_evaluate(name, net, &some);
            let origins: Vec<Position> = positions.iter().copied().step_by(4 * step).collect();
            check_play(name, net, &origins);
        }
    }
    isa::force_baseline(false);
    assert_eq!(net::isa_name(), chosen);
}

#[test]
fn builds_agree_closely_with_each_other() {
    // Both builds on the same positions, in one test so the comparison is direct.
    let positions = playout_positions(10);
    let net = wildbg_shaped(7);
    let _builds = BUILDS.lock().unwrap_or_else(|e| e.into_inner());
    let mut fast = vec![Probabilities::default(); positions.len()];
    let mut slow = fast.clone();
    net.evaluate(&positions, &mut fast);
    isa::force_baseline(true);
    net.evaluate(&positions, &mut slow);
    isa::force_baseline(false);
    for (a, b) in fast.iter().zip(&slow) {
        assert!(max_diff(a, b) <= TOLERANCE);
    }
}

#[test]
fn net_rollouts_do_not_depend_on_threads() {
    let net = wildbg_shaped(3);
    let spec = Spec {
        seed: 5,
        quasi_random: true,
        truncate: None,
        bearoff: None,
        variance_reduction: false,
        evaluator: None,
        cube_life: None,
    };
    let context = CubeContext {
        stakes: Stakes::Money(MoneyRules::default()),
        cube: Cube::START,
    };
    let branches = [Branch::position(Position::START, context)];
    let never = AtomicBool::new(false);
    let one = rollout::run(&spec, &branches, || Player::Net(&net), 0..70, 1, &never).unwrap();
    let two = rollout::run(&spec, &branches, || Player::Net(&net), 0..70, 2, &never).unwrap();
    assert_eq!(one, two);
    assert_eq!(one.games, 70);
}

#[test]
fn the_start_position_scores_alike() {
    let net = wildbg_shaped(9);
    let fast = net.evaluate_one(&Position::START);
    let want = net.evaluate_reference(&Position::START);
    assert!(max_diff(&fast, &want) <= TOLERANCE, "{fast:?} {want:?}");
    assert!(["AVX-512", "AVX2+FMA", "x86-64 baseline", "portable"].contains(&net::isa_name()));
}
