//! Rollouts through the C ABI: `bgfast_rollout` plays games from a position with a shipped
//! net, cubeless or cubeful, money or match, and reports means and standard errors, as
//! Python's `bgfast.rollout` does with the same settings (the same engine, the same games:
//! its numbers are the same).

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;
use std::time::Instant;

use bgfast_core::bearoff::TwoSided;
use bgfast_engine::cube::{
    Cube, CubeContext, CubeLife, CubeOwner, MatchScore, Met, MoneyRules, Stakes, MAX_CUBE,
};
use bgfast_engine::rollout::{output, run, Branch, End, Player, RolloutSums, Spec, ENDS, OUTPUTS};
use bgfast_engine::Net;

use crate::{bgfast_position, guard, read_position, Failure, BGFAST_ERROR_INVALID_ARGUMENT};

/// `bgfast_rollout_settings.net`: wildbg's shipped net (the default), as Python's
/// `policy="wildbg"`.
pub const BGFAST_NET_WILDBG: c_int = 0;
/// `bgfast_rollout_settings.net`: wildbg's larger nets, as `policy="wildbg-large"`: about
/// ten times the cost of a position, much stronger.
pub const BGFAST_NET_WILDBG_LARGE: c_int = 1;

/// `bgfast_rollout_settings.cube_owner`: the cube in the middle.
pub const BGFAST_CUBE_CENTRED: c_int = 0;
/// `bgfast_rollout_settings.cube_owner`: the side to move owns the cube.
pub const BGFAST_CUBE_MOVER: c_int = 1;
/// `bgfast_rollout_settings.cube_owner`: the opponent owns the cube.
pub const BGFAST_CUBE_OPPONENT: c_int = 2;

/// The index of each number in `bgfast_rollout_result.mean` and `.stderr`: the player's
/// wins (all of them), gammons and backgammons among them, gammon and backgammon losses
/// (GNU Backgammon's convention: a gammon counts backgammons too), the cubeless equity in
/// points per game, and the rollout's value (below).
pub const BGFAST_OUTPUT_WIN: usize = 0;
/// See `BGFAST_OUTPUT_WIN`.
pub const BGFAST_OUTPUT_WIN_GAMMON: usize = 1;
/// See `BGFAST_OUTPUT_WIN`.
pub const BGFAST_OUTPUT_WIN_BACKGAMMON: usize = 2;
/// See `BGFAST_OUTPUT_WIN`.
pub const BGFAST_OUTPUT_LOSE_GAMMON: usize = 3;
/// See `BGFAST_OUTPUT_WIN`.
pub const BGFAST_OUTPUT_LOSE_BACKGAMMON: usize = 4;
/// See `BGFAST_OUTPUT_WIN`.
pub const BGFAST_OUTPUT_EQUITY: usize = 5;
/// The rollout's value: the match-winning chances in match play, the cubeful equity per
/// unit of the starting cube in a cubeful money rollout, else the cubeless equity.
pub const BGFAST_OUTPUT_VALUE: usize = 6;
/// The numbers of a result: `mean` and `stderr` hold this many.
pub const BGFAST_OUTPUTS: usize = 7;
/// How games ended, the indexes of `bgfast_rollout_result.ends`: played to the end, a double
/// passed, stopped by `truncate`, ended with its exact value in the two-sided bear-off
/// database, cut off at 65,536 plies.
pub const BGFAST_END_FINISHED: usize = 0;
/// See `BGFAST_END_FINISHED`.
pub const BGFAST_END_PASSED: usize = 1;
/// See `BGFAST_END_FINISHED`.
pub const BGFAST_END_TRUNCATED: usize = 2;
/// See `BGFAST_END_FINISHED`.
pub const BGFAST_END_BEAROFF: usize = 3;
/// See `BGFAST_END_FINISHED`.
pub const BGFAST_END_CAPPED: usize = 4;
/// The number of ways a game ends: `ends` holds this many.
pub const BGFAST_ENDS: usize = 5;

// cbindgen writes literals only: the engine's indexes and counts must be these.
const _: () = assert!(
    BGFAST_OUTPUT_WIN == output::WIN
        && BGFAST_OUTPUT_WIN_GAMMON == output::WIN_GAMMON
        && BGFAST_OUTPUT_WIN_BACKGAMMON == output::WIN_BACKGAMMON
        && BGFAST_OUTPUT_LOSE_GAMMON == output::LOSE_GAMMON
        && BGFAST_OUTPUT_LOSE_BACKGAMMON == output::LOSE_BACKGAMMON
        && BGFAST_OUTPUT_EQUITY == output::EQUITY
        && BGFAST_OUTPUT_VALUE == output::VALUE
);
const _: () = assert!(BGFAST_OUTPUTS == OUTPUTS && BGFAST_ENDS == ENDS);
const _: () = assert!(
    BGFAST_END_FINISHED == End::Finished as usize
        && BGFAST_END_PASSED == End::Passed as usize
        && BGFAST_END_TRUNCATED == End::Truncated as usize
        && BGFAST_END_BEAROFF == End::Bearoff as usize
        && BGFAST_END_CAPPED == End::Capped as usize
);

/// What a rollout plays and for what stakes. Fill it with `bgfast_rollout_defaults` (Python's
/// defaults), then change what you need; the booleans are 0 or 1.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bgfast_rollout_settings {
    /// Games to play, at least 1. Default 1296.
    pub games: u64,
    /// Game `k` takes its dice from `(seed, k)` alone: the same seed gives the same result
    /// on any thread count. Default 0.
    pub seed: u64,
    /// Threads: 0 every core this process may use (or `RAYON_NUM_THREADS`), 1 the calling
    /// thread, at most 256. Default 0.
    pub threads: u32,
    /// The net that plays both sides, scores truncated games, measures luck and takes
    /// the cube decisions: `BGFAST_NET_WILDBG` (the default) or `BGFAST_NET_WILDBG_LARGE`.
    pub net: c_int,
    /// Stop each game after this many plies and score it by the net (0 scores the position
    /// itself); negative plays every game to the end (the default).
    pub truncate: i32,
    /// Lookahead variance reduction: each roll's luck, measured by the net over the 21
    /// rolls, is removed (unbiased; about 27 times the cost of a game). Default 0.
    pub variance_reduction: c_int,
    /// The first two rolls rotated over all 1,296 pairs. Default 1.
    pub quasi_random: c_int,
    /// A game entering the two-sided bear-off database's range (at most 6 checkers a side,
    /// all home) ends with its exact value; cubeful match games play on. The first rollout
    /// with it builds the database in memory (about a second). Default 1.
    pub exact_bearoff: c_int,
    /// Both sides double, take and pass by Janowski's cubeful model. Default 0.
    pub cubeful: c_int,
    /// The cube life index of the cubeful model, 0 (dead cube) to 1. Default 0.68.
    pub cube_life: f64,
    /// The cube now: a power of two from 1 to 32768 (a cube of 1 is in the middle).
    /// Default 1.
    pub cube_value: u32,
    /// Who holds the cube: `BGFAST_CUBE_CENTRED` (the default), `BGFAST_CUBE_MOVER` or
    /// `BGFAST_CUBE_OPPONENT`.
    pub cube_owner: c_int,
    /// Money play: gammons count single while the cube is in the middle (R23), in a cubeful
    /// rollout (a cubeless one leaves the cube, and the rule, out). Default 0.
    pub jacoby: c_int,
    /// Money play: a doubled player may redouble at once, keeping the cube. Default 0.
    pub beavers: c_int,
    /// The match length; 0 (the default) for money play.
    pub match_length: u32,
    /// Points won so far in the match: the side to move's, then the opponent's, each
    /// below `match_length`.
    pub score: [u32; 2],
    /// This game is the Crawford game (a side 1-away, no cube, R21). Default 0.
    pub crawford: c_int,
    /// The match equity table's name: "kazaross-xg2" (null, the default), "rockwell-kazaross"
    /// or "woolsey".
    pub met: *const c_char,
}

/// What a rollout found, for the side to move in the position.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bgfast_rollout_result {
    /// Games played (fewer than asked when the progress callback stopped the rollout).
    pub games: u64,
    /// The mean of each number, at its `BGFAST_OUTPUT_*` index.
    pub mean: [f64; BGFAST_OUTPUTS],
    /// The standard error of each mean (NaN below two games).
    pub stderr: [f64; BGFAST_OUTPUTS],
    /// Games by how they ended, at the `BGFAST_END_*` indexes.
    pub ends: [u64; BGFAST_ENDS],
    /// 1 if the progress callback stopped the rollout early, else 0.
    pub stopped: c_int,
}

/// Called between chunks of a rollout's games with the games done and the games asked for
/// (`done` grows to `total`) and the `context` given; return 0 to go on, anything else to
/// stop: the rollout then returns the games finished so far (`stopped` set). Called on the
/// thread that called `bgfast_rollout`, about every 0.2 s.
pub type bgfast_progress =
    Option<unsafe extern "C" fn(done: u64, total: u64, context: *mut c_void) -> c_int>;

/// Fills `*settings` with the defaults (those of Python's `bgfast.rollout`, but the seed,
/// which is 0 here, and the games, 1296): the shipped net, play to the end, exact
/// bear-offs, quasi-random dice, cubeless, money, the cube at 1 in the middle. Returns
/// `BGFAST_ERROR_NULL` for a null pointer.
///
/// # Safety
/// `settings` is null or points to a writable `bgfast_rollout_settings`.
#[no_mangle]
pub unsafe extern "C" fn bgfast_rollout_defaults(settings: *mut bgfast_rollout_settings) -> c_int {
    guard(|| {
        if settings.is_null() {
            return Err(Failure::null("settings"));
        }
        let defaults = bgfast_rollout_settings {
            games: 1296,
            seed: 0,
            threads: 0,
            net: BGFAST_NET_WILDBG,
            truncate: -1,
            variance_reduction: 0,
            quasi_random: 1,
            exact_bearoff: 1,
            cubeful: 0,
            cube_life: 0.68,
            cube_value: 1,
            cube_owner: BGFAST_CUBE_CENTRED,
            jacoby: 0,
            beavers: 0,
            match_length: 0,
            score: [0, 0],
            crawford: 0,
            met: std::ptr::null(),
        };
        // SAFETY: non-null and writable, as the caller promises.
        unsafe { settings.write(defaults) };
        Ok(())
    })
}

/// Rolls out `*pos` (its side to move about to roll) as `*settings` say and writes what it
/// found into `*result`, for the side to move: the same games and numbers as Python's
/// `bgfast.rollout(position, policy=..., seed=..., ...)` with the same settings. Runs until
/// every game is played, or until `progress` (may be null; see `bgfast_progress`) returns
/// non-zero, which keeps the games finished so far.
///
/// Errors, which write nothing: `BGFAST_ERROR_NULL` (`pos`, `settings` or `result`),
/// `BGFAST_ERROR_INVALID_POSITION`, `BGFAST_ERROR_INVALID_ARGUMENT` naming the setting
/// that is wrong (no games, more than 256 threads, a boolean other than 0 or 1, a cube
/// that is no power of two or owned at 1, a score at or past the match length, money
/// options in a match, a Crawford game without a side 1-away or with a turned cube, a
/// cube life outside 0 to 1, an unknown net or table).
///
/// # Safety
/// `pos` and `settings` are null or point to readable structs (`settings.met` null or a
/// NUL-terminated string); `result` is null or points to a writable
/// `bgfast_rollout_result`; `progress`, if not null, may be called with `context`.
#[no_mangle]
pub unsafe extern "C" fn bgfast_rollout(
    pos: *const bgfast_position,
    settings: *const bgfast_rollout_settings,
    progress: bgfast_progress,
    context: *mut c_void,
    result: *mut bgfast_rollout_result,
) -> c_int {
    guard(|| {
        if result.is_null() {
            return Err(Failure::null("result"));
        }
        // SAFETY: forwarded from the caller.
        let position = unsafe { read_position(pos) }?;
        // SAFETY: null or readable, as the caller promises.
        let settings = unsafe { settings.as_ref() }.ok_or_else(|| Failure::null("settings"))?;
        // SAFETY: null or NUL-terminated, as the caller promises.
        let checked = unsafe { check(settings) }?;
        let stakes = checked.stakes()?;
        let cube = CubeContext {
            stakes,
            cube: checked.cube,
        };
        let branches = [Branch::position(position, cube)];
        let spec = Spec {
            seed: settings.seed,
            quasi_random: checked.quasi_random,
            truncate: checked.truncate,
            bearoff: checked.exact_bearoff.then(|| two_sided(checked.cubeful)),
            variance_reduction: checked.variance_reduction,
            evaluator: Some(checked.net),
            cube_life: checked
                .cubeful
                .then_some(CubeLife::Fixed(settings.cube_life)),
        };
        let mut play = |first: u64, games: u64| -> Result<RolloutSums, Failure> {
            let never = AtomicBool::new(false);
            let player = || Player::Net(checked.net);
            run(
                &spec,
                &branches,
                player,
                first..first + games,
                checked.threads,
                &never,
            )
            .map_err(|e| Failure::new(BGFAST_ERROR_INVALID_ARGUMENT, e.to_string()))
        };
        let (sums, stopped) = match progress {
            None => (play(0, settings.games)?, false),
            // SAFETY: the caller's callback, called as its type says.
            Some(callback) => {
                in_chunks(settings.games, checked.threads, &mut play, |done| unsafe {
                    callback(done, settings.games, context) != 0
                })?
            }
        };
        let mut out = bgfast_rollout_result {
            games: sums.games,
            mean: [f64::NAN; BGFAST_OUTPUTS],
            stderr: [f64::NAN; BGFAST_OUTPUTS],
            ends: sums.branches[0].ends,
            stopped: c_int::from(stopped),
        };
        for (k, s) in sums.branches[0].outputs.iter().enumerate() {
            (out.mean[k], out.stderr[k]) = s.mean_and_stderr(sums.games);
        }
        // SAFETY: non-null and writable, as the caller promises.
        unsafe { result.write(out) };
        Ok(())
    })
}

/// Plays `total` games in chunks of about 0.2 s each (from `threads` games a thread, the
/// cost of a call nil), calling `stop(done)` after each: the sums of the chunks played,
/// and whether `stop` ended the run early. The chunks' sums add up to exactly those of one
/// run of all the games.
fn in_chunks(
    total: u64,
    threads: usize,
    play: &mut impl FnMut(u64, u64) -> Result<RolloutSums, Failure>,
    mut stop: impl FnMut(u64) -> bool,
) -> Result<(RolloutSums, bool), Failure> {
    let mut sums = RolloutSums::new(1);
    let mut chunk = 8 * threads.max(1) as u64;
    while sums.games < total {
        let size = chunk.min(total - sums.games);
        let started = Instant::now();
        let played = play(sums.games, size)?;
        sums = sums + played;
        if stop(sums.games) {
            let early = sums.games < total;
            return Ok((sums, early));
        }
        let seconds = started.elapsed().as_secs_f64();
        if seconds < 0.1 {
            chunk = (chunk * 2).min(1 << 20);
        } else if seconds > 0.4 {
            chunk = (chunk / 2).max(threads.max(1) as u64);
        }
    }
    Ok((sums, false))
}

/// The two-sided bear-off database, built in memory on first use (cubeless; with the
/// cubeful money values a cubeful rollout needs).
fn two_sided(cubeful: bool) -> &'static TwoSided {
    static CUBELESS: OnceLock<TwoSided> = OnceLock::new();
    static CUBEFUL: OnceLock<TwoSided> = OnceLock::new();
    if cubeful {
        CUBEFUL.get_or_init(|| TwoSided::build(true, &|_, _| {}))
    } else if let Some(table) = CUBEFUL.get() {
        table
    } else {
        CUBELESS.get_or_init(TwoSided::build_cubeless)
    }
}

/// A rollout's settings, checked.
struct Checked {
    net: &'static Net,
    threads: usize,
    truncate: Option<u32>,
    variance_reduction: bool,
    quasi_random: bool,
    exact_bearoff: bool,
    cubeful: bool,
    cube: Cube,
    money: MoneyRules,
    /// The match: its table, the points away of the side to move and of the opponent, and
    /// whether this is the Crawford game.
    matched: Option<(&'static Met, u32, u32, bool)>,
}

impl Checked {
    fn stakes(&self) -> Result<Stakes<'static>, Failure> {
        Ok(match self.matched {
            None => Stakes::Money(self.money),
            Some((met, mine, theirs, crawford)) => Stakes::Match(
                MatchScore::new(met, mine, theirs, crawford).map_err(|e| bad(e.to_string()))?,
            ),
        })
    }
}

fn bad(message: impl Into<String>) -> Failure {
    Failure::new(BGFAST_ERROR_INVALID_ARGUMENT, message)
}

/// A boolean setting: 0 or 1.
fn flag(name: &str, value: c_int) -> Result<bool, Failure> {
    match value {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(bad(format!("{name} is 0 or 1, not {value}"))),
    }
}

/// Checks every setting; the first one wrong is named.
///
/// # Safety
/// `settings.met` is null or a NUL-terminated string.
unsafe fn check(settings: &bgfast_rollout_settings) -> Result<Checked, Failure> {
    if settings.games == 0 {
        return Err(bad("games must be at least 1"));
    }
    let threads = settings.threads as usize;
    if threads > bgfast_core::threads::MAX_THREADS {
        return Err(bad(format!(
            "threads must be from 0 (every core) to {}, not {threads}",
            bgfast_core::threads::MAX_THREADS
        )));
    }
    let net = match settings.net {
        BGFAST_NET_WILDBG => Net::wildbg(),
        BGFAST_NET_WILDBG_LARGE => Net::wildbg_large(),
        other => {
            return Err(bad(format!(
                "net is BGFAST_NET_WILDBG (0) or BGFAST_NET_WILDBG_LARGE (1), not {other}"
            )))
        }
    };
    let cubeful = flag("cubeful", settings.cubeful)?;
    let variance_reduction = flag("variance_reduction", settings.variance_reduction)?;
    let quasi_random = flag("quasi_random", settings.quasi_random)?;
    let exact_bearoff = flag("exact_bearoff", settings.exact_bearoff)?;
    let jacoby = flag("jacoby", settings.jacoby)?;
    let beavers = flag("beavers", settings.beavers)?;
    let crawford = flag("crawford", settings.crawford)?;
    let life = settings.cube_life;
    if !(0.0..=1.0).contains(&life) {
        return Err(bad(format!("cube_life is from 0 to 1, not {life}")));
    }
    let owner = match settings.cube_owner {
        BGFAST_CUBE_CENTRED => CubeOwner::Centred,
        BGFAST_CUBE_MOVER => CubeOwner::Mover,
        BGFAST_CUBE_OPPONENT => CubeOwner::Opponent,
        other => {
            return Err(bad(format!(
                "cube_owner is BGFAST_CUBE_CENTRED (0), BGFAST_CUBE_MOVER (1) or \
                 BGFAST_CUBE_OPPONENT (2), not {other}"
            )))
        }
    };
    let value = settings.cube_value;
    let cube = Cube::new(value, owner).ok_or_else(|| {
        bad(format!(
            "cube_value is a power of two from 1 to {MAX_CUBE}, not {value} (R17)"
        ))
    })?;
    if value == 1 && owner != CubeOwner::Centred {
        return Err(bad(
            "a cube of 1 is in the middle: nobody has doubled yet (R17)",
        ));
    }
    let length = settings.match_length;
    let matched = if length == 0 {
        if settings.score != [0, 0] || crawford {
            return Err(bad(
                "score and crawford are match settings: set match_length too",
            ));
        }
        if !settings.met.is_null() {
            return Err(bad("met is a match setting: set match_length too"));
        }
        None
    } else {
        if jacoby || beavers {
            return Err(bad(
                "jacoby and beavers are money rules (R23): a match plays neither",
            ));
        }
        let [mine, theirs] = settings.score;
        if mine >= length || theirs >= length {
            return Err(bad(format!(
                "score {mine}-{theirs} is not below the match length {length}: the match is over (R20)"
            )));
        }
        // SAFETY: null or NUL-terminated, as the caller promises.
        let name = unsafe { met_name(settings.met) }?;
        let met = Met::shipped(name).ok_or_else(|| {
            bad(format!(
                "met {name:?} is no table bgfast ships: use one of {:?}",
                Met::SHIPPED
            ))
        })?;
        if crawford && (value != 1 || owner != CubeOwner::Centred) {
            return Err(bad(
                "the Crawford game is played without the cube (R21): cube 1, centred",
            ));
        }
        Some((met, length - mine, length - theirs, crawford))
    };
    Ok(Checked {
        net,
        threads: match threads {
            0 => bgfast_core::threads::default_threads(),
            n => n,
        },
        truncate: u32::try_from(settings.truncate).ok(),
        variance_reduction,
        quasi_random,
        exact_bearoff,
        cubeful,
        cube,
        // The Jacoby rule is about the cube, which a cubeless rollout leaves out (as
        // Python's does): its games count gammons.
        money: MoneyRules {
            jacoby: jacoby && cubeful,
            beavers,
        },
        matched,
    })
}

/// The table named by `met`, the default's name for null.
///
/// # Safety
/// `met` is null or a NUL-terminated string.
unsafe fn met_name<'a>(met: *const c_char) -> Result<&'a str, Failure> {
    if met.is_null() {
        return Ok(Met::SHIPPED[0]);
    }
    // SAFETY: NUL-terminated, as the caller promises.
    let text = unsafe { CStr::from_ptr(met) };
    text.to_str().map_err(|_| bad("met is not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_add_up_to_one_run() {
        let calls = std::cell::RefCell::new(Vec::new());
        let mut play = |first: u64, games: u64| {
            calls.borrow_mut().push((first, games));
            let mut sums = RolloutSums::new(1);
            sums.games = games;
            Ok(sums)
        };
        let (sums, stopped) = in_chunks(100, 2, &mut play, |_| false).unwrap();
        assert_eq!((sums.games, stopped), (100, false));
        let mut next = 0;
        for &(first, games) in calls.borrow().iter() {
            assert_eq!(first, next);
            next += games;
        }
        assert_eq!(next, 100);
        let (sums, stopped) = in_chunks(100, 2, &mut play, |done| done >= 16).unwrap();
        assert!(stopped && sums.games >= 16 && sums.games < 100);
    }
}
