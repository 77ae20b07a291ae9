//! `duel_tally`: head-to-head games between two native policies, the GIL released.

use bgfast_engine::duel::{Duel, DuelTally};
use pyo3::prelude::*;

use crate::errors::Error;
use crate::policy::PolicyArg;
use crate::{args, detach};

/// `(deals, points, deal points squared, wins single, gammon, backgammon, losses single,
/// gammon, backgammon, truncated)`, for policy A.
type DuelTuple = (u64, i64, u64, u64, u64, u64, u64, u64, u64, u64);

/// Plays deals `first_deal .. first_deal + deals` of a duel between policies `a` and `b`
/// (each deal twice on the same dice, A first then B first) and returns A's tally. Policies:
/// `"wildbg"`, `"pubeval"`, `"race"`, `"random"` or a `Net`. `threads=None` uses every
/// core. Releases the GIL; Ctrl-C raises `KeyboardInterrupt` (this call's deals are lost).
#[pyfunction]
#[pyo3(signature = (a, b, first_deal, deals, seed, threads))]
pub fn duel_tally(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    first_deal: &Bound<'_, PyAny>,
    deals: &Bound<'_, PyAny>,
    seed: &Bound<'_, PyAny>,
    threads: Option<&Bound<'_, PyAny>>,
) -> PyResult<DuelTuple> {
    let (a, b) = (PolicyArg::from_py(a)?, PolicyArg::from_py(b)?);
    let first: u64 = args::int_in(first_deal, "first_deal", 0..=u64::MAX as i128)?;
    let count: u64 = args::int_in(deals, "deals", 0..=(u64::MAX - first) as i128)?;
    let duel = Duel {
        seed: args::seed(seed)?,
    };
    let threads = args::threads(threads)?;
    let t: DuelTally = detach::run(
        py,
        |cancel| {
            duel.run(
                first..first + count,
                || a.player(),
                || b.player(),
                threads,
                cancel,
            )
        },
        |_| Ok(()),
    )?
    .map_err(Error::from)?;
    Ok((
        t.deals,
        t.points,
        t.deal_points_squared,
        t.wins[0],
        t.wins[1],
        t.wins[2],
        t.losses[0],
        t.losses[1],
        t.losses[2],
        t.truncated,
    ))
}
