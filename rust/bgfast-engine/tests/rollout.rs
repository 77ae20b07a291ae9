//! The rollout engine's invariants: exact sums on any thread count, truncation at 0 plies,
//! exact bear-offs, double match point, variance reduction.

use std::sync::atomic::AtomicBool;

use bgfast_core::bearoff::TwoSided;
use bgfast_core::Position;
use bgfast_engine::cube::{
    Cube, CubeContext, CubeLife, CubeOwner, MatchScore, Met, MoneyRules, Stakes,
};
use bgfast_engine::eval::Evaluator;
use bgfast_engine::net::Net;
use bgfast_engine::playout::{AnyPolicy, PolicyKind};
use bgfast_engine::rollout::{
    check_branches, output, run, Branch, End, Player, RolloutSums, RunError, Spec, SpecError,
    MAX_BRANCHES,
};

fn net() -> &'static Net {
    Net::wildbg()
}

fn spec(evaluator: Option<&'static Net>) -> Spec<'static> {
    Spec {
        seed: 7,
        quasi_random: true,
        truncate: None,
        bearoff: None,
        variance_reduction: false,
        evaluator,
        cube_life: None,
    }
}

fn money() -> CubeContext<'static> {
    CubeContext {
        stakes: Stakes::Money(MoneyRules::default()),
        cube: Cube::START,
    }
}

fn rollout(
    spec: &Spec<'static>,
    branches: &[Branch<'static>],
    games: u64,
    threads: usize,
) -> RolloutSums {
    run(
        spec,
        branches,
        || Player::Net(net()),
        0..games,
        threads,
        &AtomicBool::new(false),
    )
    .expect("a valid spec")
}

fn mean(sums: &RolloutSums, branch: usize, out: usize) -> (f64, f64) {
    sums.branches[branch].outputs[out].mean_and_stderr(sums.games)
}

/// A mid-game contact position (from the wildbg contact corpus).
fn contact() -> Position {
    bgfast_core::codec::gnubg_id::decode("4PPgAQjg2+ABMA").expect("a Position ID")
}

#[test]
fn any_thread_count_gives_the_same_bits() {
    let mut s = spec(Some(net()));
    s.cube_life = Some(CubeLife::Fixed(0.68));
    s.truncate = Some(9);
    s.variance_reduction = true;
    let branches = [Branch::position(contact(), money())];
    let one = rollout(&s, &branches, 24, 1);
    let two = rollout(&s, &branches, 24, 2);
    assert_eq!(one, two);
    let split = run(
        &s,
        &branches,
        || Player::Net(net()),
        0..10,
        2,
        &AtomicBool::new(false),
    )
    .unwrap()
        + run(
            &s,
            &branches,
            || Player::Net(net()),
            10..24,
            1,
            &AtomicBool::new(false),
        )
        .unwrap();
    assert_eq!(one, split);
}

#[test]
#[allow(clippy::reversed_empty_ranges)]
fn the_last_game_numbers_and_reversed_ranges_split_like_any_others() {
    let s = spec(None);
    let branches = [Branch::position(contact(), money())];
    let on = |games: core::ops::Range<u64>, threads| {
        run(
            &s,
            &branches,
            || Player::Policy(Box::new(AnyPolicy::builtin(PolicyKind::Random))),
            games,
            threads,
            &AtomicBool::new(false),
        )
        .unwrap()
    };
    let top = u64::MAX - 40..u64::MAX;
    let one = on(top.clone(), 1);
    assert_eq!(one.games, 40);
    assert_eq!(one, on(top, 2));
    assert_eq!(on(100..5, 2).games, 0);
}

#[test]
fn truncating_at_zero_plies_is_the_evaluators_value() {
    let mut s = spec(Some(net()));
    s.truncate = Some(0);
    let pos = contact();
    let sums = rollout(&s, &[Branch::position(pos, money())], 50, 2);
    let (equity, se) = mean(&sums, 0, output::EQUITY);
    assert_eq!(equity, f64::from(net().evaluate_one(&pos).equity()));
    assert_eq!(se, 0.0);
    assert_eq!(sums.branches[0].ends[End::Truncated as usize], 50);
}

#[test]
fn bearoffs_in_the_database_are_exact() {
    let table: &'static TwoSided = Box::leak(Box::new(TwoSided::build(true, &|_, _| {})));
    let mut s = spec(Some(net()));
    s.bearoff = Some(table);
    let mut mover = [0i32; 25];
    mover[0] = 2;
    mover[3] = 1;
    mover[5] = 2;
    let mut opponent = [0i32; 25];
    opponent[1] = 3;
    opponent[4] = 1;
    let pos = Position::from_counts(&mover, &opponent).unwrap();
    let sums = rollout(&s, &[Branch::position(pos, money())], 40, 1);
    let (win, se) = mean(&sums, 0, output::WIN);
    assert_eq!(
        win,
        table.win_probability_by_index(index(&mover), index(&opponent))
    );
    assert_eq!(se, 0.0);
}

fn index(counts: &[i32; 25]) -> u32 {
    let c: [u8; 6] = core::array::from_fn(|k| counts[k] as u8);
    bgfast_core::bearoff::index::index_unchecked(&c)
}

#[test]
fn at_double_match_point_the_match_chances_are_the_wins() {
    let size = 7;
    let pre: Vec<f64> = (0..size * size)
        .map(|i| {
            if i / size == i % size {
                0.5
            } else if i / size < i % size {
                0.6
            } else {
                0.4
            }
        })
        .collect();
    let post = vec![0.5; size];
    let met = Box::leak(Box::new(Met::new(pre, post).unwrap()));
    let context = CubeContext {
        stakes: Stakes::Match(MatchScore::new(met, 1, 1, false).unwrap()),
        cube: Cube::START,
    };
    for cube_life in [None, Some(0.68)] {
        let mut s = spec(Some(net()));
        s.cube_life = cube_life.map(CubeLife::Fixed);
        s.truncate = Some(12);
        let sums = rollout(&s, &[Branch::position(contact(), context)], 40, 2);
        assert_eq!(mean(&sums, 0, output::VALUE), mean(&sums, 0, output::WIN));
    }
}

#[test]
fn variance_reduction_cuts_the_error_and_keeps_the_mean() {
    let plain = spec(Some(net()));
    let mut vr = plain;
    vr.variance_reduction = true;
    let branches = [Branch::position(Position::START, money())];
    let a = rollout(&plain, &branches, 1296, 2);
    let b = rollout(&vr, &branches, 1296, 2);
    let (ea, sa) = mean(&a, 0, output::EQUITY);
    let (eb, sb) = mean(&b, 0, output::EQUITY);
    assert!(sb < 0.8 * sa, "stderr {sb} with VR, {sa} without");
    assert!(
        (ea - eb).abs() < 3.0 * (sa * sa + sb * sb).sqrt(),
        "{ea} vs {eb}"
    );
}

#[test]
fn cube_branches_share_dice_and_a_double_take_is_worth_twice() {
    let mut s = spec(Some(net()));
    s.cube_life = Some(CubeLife::Fixed(0.68));
    s.truncate = Some(0);
    let pos = contact();
    let nd = Branch::no_double(pos, money());
    let dt = Branch::double_take(pos, money()).unwrap();
    let sums = rollout(&s, &[nd, dt], 10, 1);
    let p = net().evaluate_one(&pos);
    let owned_by_them = CubeContext {
        stakes: Stakes::Money(MoneyRules::default()),
        cube: Cube::new(2, CubeOwner::Opponent).unwrap(),
    };
    let (value, _) = mean(&sums, 1, output::VALUE);
    assert!((value - 2.0 * owned_by_them.no_double(&p, 0.68)).abs() < 1e-12);
    assert_eq!(sums.cross.len(), 3);
}

#[test]
fn builtin_policies_roll_out_too() {
    let s = spec(None);
    let branches = [Branch::position(Position::START, money())];
    let random = run(
        &s,
        &branches,
        || Player::Policy(Box::new(AnyPolicy::builtin(PolicyKind::Random))),
        0..200,
        2,
        &AtomicBool::new(false),
    )
    .unwrap();
    assert_eq!(random.games, 200);
    assert_eq!(random.branches[0].ends[End::Finished as usize], 200);
}

#[test]
fn lockstep_plays_the_same_games_as_the_native_run() {
    use bgfast_engine::rollout::lockstep::Lockstep;
    // Cubeless money: the native net player picks the result with the lowest equity for
    // the opponent, which is what these outside scores say.
    let mut s = spec(Some(net()));
    s.variance_reduction = true;
    s.truncate = Some(14);
    let branches = vec![
        Branch::position(contact(), money()),
        Branch::position(Position::START, money()),
    ];
    let native = rollout(&s, &branches, 30, 2);
    let mut lockstep = Lockstep::new(s, branches.clone(), 0..30, 7).unwrap();
    let mut out = Vec::new();
    while !lockstep.finished() {
        let candidates = lockstep.candidates().to_vec();
        out.resize(candidates.len(), Default::default());
        net().evaluate(&candidates, &mut out);
        let scores: Vec<f64> = out.iter().map(|p| -f64::from(p.equity())).collect();
        lockstep.choose(&scores).unwrap();
    }
    assert_eq!(lockstep.sums(), &native);
}

#[test]
fn a_branch_holding_the_cube_plays_its_first_plies_without_it() {
    // A race its side to move doubles out at once: every game ends with a pass at ply 0,
    // unless the branch holds the cube that long (as the Holland rule does).
    let mut s = spec(Some(net()));
    s.cube_life = Some(CubeLife::Fixed(0.68));
    s.truncate = Some(1);
    let pos = bgfast_core::codec::gnubg_id::decode("7dYBAEBrAQAAAA").expect("a Position ID");
    let free = rollout(&s, &[Branch::position(pos, money())], 36, 1);
    assert_eq!(free.branches[0].ends[End::Passed as usize], 36);
    let held = Branch::position(pos, money()).holding_cube(1);
    let sums = rollout(&s, &[held], 36, 1);
    assert_eq!(sums.branches[0].ends[End::Truncated as usize], 36);
    // Held for its first ply, the position plays as the cube decision's no-double line.
    let no_double = rollout(&s, &[Branch::no_double(pos, money())], 36, 1);
    assert_eq!(
        mean(&sums, 0, output::VALUE),
        mean(&no_double, 0, output::VALUE)
    );
    // A hold shorter than the branch's own wait changes nothing.
    assert_eq!(
        Branch::no_double(pos, money())
            .holding_cube(0)
            .first_cube_ply,
        1
    );
}

#[test]
fn settings_needing_an_evaluator_or_a_cube_life_in_range_are_refused_before_any_game() {
    use bgfast_engine::rollout::lockstep::Lockstep;
    let branches = [Branch::position(Position::START, money())];
    let refused = |s: Spec<'static>| {
        let never = AtomicBool::new(false);
        let ran = run(&s, &branches, || Player::Net(net()), 0..4, 1, &never);
        let Err(RunError::Spec(e)) = ran else {
            panic!("{s:?} ran");
        };
        let stepped = Lockstep::new(s, branches.to_vec(), 0..4, 2).err();
        // (By message: a NaN cube life is not equal to itself.)
        let said = stepped.map(|e| e.to_string());
        assert_eq!(
            said,
            Some(e.to_string()),
            "the lockstep run refuses it alike"
        );
        e
    };
    let alone = |f: fn(&mut Spec<'static>)| {
        let mut s = spec(None);
        f(&mut s);
        s
    };
    let no_evaluator = |needed_by| SpecError::NoEvaluator { needed_by };
    // A truncated game without an evaluator would otherwise score 0.
    assert_eq!(
        refused(alone(|s| s.truncate = Some(2))),
        no_evaluator("truncation")
    );
    assert_eq!(
        refused(alone(|s| s.variance_reduction = true)),
        no_evaluator("variance reduction")
    );
    assert_eq!(
        refused(alone(|s| s.cube_life = Some(CubeLife::ByPosition))),
        no_evaluator("cubeful play")
    );
    for x in [-0.1, 1.5, f64::NAN] {
        let mut s = spec(Some(net()));
        s.cube_life = Some(CubeLife::Fixed(x));
        let e = refused(s);
        assert!(matches!(e, SpecError::CubeLife(y) if y.to_bits() == x.to_bits()));
        assert!(e.to_string().contains("from 0 to 1"), "{e}");
    }
    let too_many = run(
        &spec(Some(net())),
        &branches,
        || Player::Net(net()),
        0..64,
        100_000,
        &AtomicBool::new(false),
    );
    assert!(matches!(too_many, Err(RunError::Pool(_))), "{too_many:?}");
    // However few the games: a run short enough for this thread checks the count alike.
    let few = run(
        &spec(Some(net())),
        &branches,
        || Player::Net(net()),
        0..1,
        257,
        &AtomicBool::new(false),
    );
    assert!(matches!(few, Err(RunError::Pool(_))), "{few:?}");
}

#[test]
fn more_branches_than_a_roll_has_plays_are_refused_before_any_memory_is_taken() {
    use bgfast_engine::rollout::lockstep::{Lockstep, LockstepError};
    // 40,000 branches' paired sums would take 25.6 GB: refused, not an aborted process.
    let many = vec![Branch::position(Position::START, money()); 40_000];
    let never = AtomicBool::new(false);
    let ran = run(&spec(None), &many, || Player::Net(net()), 0..1, 1, &never);
    let Err(RunError::Spec(e)) = ran else {
        panic!("ran {:?}", ran.map(|s| s.games));
    };
    assert_eq!(e, SpecError::TooManyBranches { asked: 40_000 });
    assert!(e.to_string().contains("at most 3060 lines"), "{e}");
    let stepped = Lockstep::new(spec(None), many, 0..1, 1).err();
    assert_eq!(
        stepped,
        Some(LockstepError::Spec(SpecError::TooManyBranches {
            asked: 40_000
        }))
    );
    assert_eq!(check_branches(MAX_BRANCHES), Ok(()));
}

#[test]
fn a_cubeful_rollout_refuses_a_table_without_cubeful_values() {
    let table = TwoSided::build_cubeless();
    let cubeful = Spec {
        bearoff: Some(&table),
        cube_life: Some(CubeLife::Fixed(0.68)),
        ..spec(Some(net()))
    };
    assert_eq!(cubeful.check(), Err(SpecError::CubelessBearoff));
    let cubeless = Spec {
        cube_life: None,
        ..cubeful
    };
    assert_eq!(cubeless.check(), Ok(()));
}
