//! The cube and the stakes as Python hands them over, and `CubeModel`: the engine's cubeful
//! model (`bgfast_engine::cube`) over rows of chances, the one model every Python caller
//! values the cube with (rollouts, `bgfast.cubeful.decide`, `bgfast.hint`, the analysis).

use bgfast_engine::cube::{
    Cube, CubeContext, CubeLife, CubeModel, CubeOwner, MatchScore, Met, MoneyRules, Stakes,
};
use bgfast_engine::Probabilities;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::Error;
use crate::{alloc, args};

/// GNU Backgammon's cube life index of each of `(N, 2, 25)` positions (row 0 on roll,
/// about to decide), `(N,)` float64: 0.68 while contact is possible, `0.55 + pips / 800` of
/// the side on roll in a race (kept from 0.6 to 0.7), 0.6 once both sides bear off.
#[pyfunction]
pub fn gnubg_cube_lives<'py>(
    py: Python<'py>,
    positions: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let positions = crate::counts::positions(positions)?;
    let mut lives = alloc::vec_with_capacity(positions.len())?;
    lives.extend(positions.iter().map(|p| CubeLife::ByPosition.at(p)));
    Ok(lives.into_pyarray(py))
}

/// The cube as Python gives it: `(value, owner, limit)`.
pub type CubeArg<'py> = (Bound<'py, PyAny>, String, Bound<'py, PyAny>);

fn owner_from(name: &str) -> Result<CubeOwner, Error> {
    match name {
        "centred" => Ok(CubeOwner::Centred),
        "mover" => Ok(CubeOwner::Mover),
        "opponent" => Ok(CubeOwner::Opponent),
        other => Err(Error::Argument(format!(
            "R17: the cube's owner is 'centred', 'mover' or 'opponent', not {other:?}"
        ))),
    }
}

/// The cube of `(value, owner, limit)`: value and limit powers of two with
/// `value <= limit <= 32768`, the owner seen from the side to move (R17).
pub fn cube_from((value, owner, limit): &CubeArg<'_>) -> Result<Cube, Error> {
    let max = i128::from(bgfast_engine::cube::MAX_CUBE);
    let value: u32 = args::int_in(value, "the cube value", 1..=max)?;
    let limit: u32 = args::int_in(limit, "the cube's limit", 1..=max)?;
    Cube::limited(value, owner_from(owner)?, limit).ok_or_else(|| {
        Error::Argument(format!(
            "R17: the cube value and its limit are powers of two from 1 to {max}, the value \
             within the limit; got {value} and {limit}"
        ))
    })
}

/// The stakes, seen from the side to move, owning what the engine's [`Stakes`] borrows.
#[derive(Clone, Debug)]
pub enum StakesData {
    /// Money play.
    Money(MoneyRules),
    /// Match play: the match equity table, the points each side still needs (the side to
    /// move first) and whether this is the Crawford game.
    Match {
        met: Met,
        away: [u32; 2],
        crawford: bool,
    },
}

impl StakesData {
    /// The stakes from `("money", jacoby, beavers)` or `("match", pre, post, mover_away,
    /// opponent_away, crawford)` (the match equity table's pre-Crawford rows, row-major,
    /// and its post-Crawford column), checked.
    pub fn from_py(obj: &Bound<'_, PyAny>) -> Result<StakesData, Error> {
        let kind: String = obj
            .get_item(0)
            .and_then(|k| k.extract())
            .map_err(|_| Error::Argument("stakes must start with 'money' or 'match'".into()))?;
        let bad = |e: PyErr| Error::Argument(format!("bad {kind} stakes: {e}"));
        let stakes = match kind.as_str() {
            "money" => {
                let (_, jacoby, beavers): (String, bool, bool) = obj.extract().map_err(bad)?;
                StakesData::Money(MoneyRules { jacoby, beavers })
            }
            "match" => {
                let (_, pre, post, mover_away, opponent_away, crawford): (
                    String,
                    Vec<f64>,
                    Vec<f64>,
                    u32,
                    u32,
                    bool,
                ) = obj.extract().map_err(bad)?;
                let met = Met::new(pre, post).map_err(|e| Error::Argument(e.to_string()))?;
                StakesData::Match {
                    met,
                    away: [mover_away, opponent_away],
                    crawford,
                }
            }
            other => {
                return Err(Error::Argument(format!(
                    "stakes must be 'money' or 'match', not {other:?}"
                )))
            }
        };
        stakes.view()?;
        Ok(stakes)
    }

    /// The engine's view of these stakes.
    pub fn view(&self) -> Result<Stakes<'_>, Error> {
        Ok(match self {
            StakesData::Money(rules) => Stakes::Money(*rules),
            StakesData::Match {
                met,
                away,
                crawford,
            } => Stakes::Match(
                MatchScore::new(met, away[0], away[1], *crawford)
                    .map_err(|e| Error::Argument(e.to_string()))?,
            ),
        })
    }
}

/// The values `CubeModel.values` gives a row of chances.
const COLUMNS: usize = 4;

/// The cubeful model (Rick Janowski's, cube life fixed) for one cube and one set of stakes,
/// over rows of cubeless chances of the side to move, about to roll.
#[pyclass(name = "CubeModel", module = "bgfast._core", frozen)]
pub struct PyCubeModel {
    cube: Cube,
    stakes: StakesData,
    cube_life: f64,
}

#[pymethods]
impl PyCubeModel {
    /// The model of `cube` (`(value, owner, limit)`, the owner seen from the side to move)
    /// and `stakes` (`("money", jacoby, beavers)` or `("match", pre, post, mover_away,
    /// opponent_away, crawford)`) with cube life `cube_life` (0 to 1).
    #[new]
    fn new(cube: CubeArg<'_>, stakes: &Bound<'_, PyAny>, cube_life: f64) -> PyResult<Self> {
        if !(0.0..=1.0).contains(&cube_life) {
            return Err(
                Error::Argument(format!("cube_life must be from 0 to 1, got {cube_life}")).into(),
            );
        }
        Ok(PyCubeModel {
            cube: cube_from(&cube)?,
            stakes: StakesData::from_py(stakes)?,
            cube_life,
        })
    }

    /// `(N, 4)` float64 for `(N, 5)` float32 chances (gnubg's five: win, win gammon, win
    /// backgammon, lose gammon, lose backgammon; not checked): per row the values of no
    /// double, double/take and double/pass, then the value after the best cube action of
    /// both sides (no double where the side to move may not double). Money per unit of the
    /// cube now, match play in match-winning chances. Releases the GIL.
    fn values<'py>(
        &self,
        py: Python<'py>,
        probabilities: PyReadonlyArray2<'py, f32>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let [rows, width] = [probabilities.shape()[0], probabilities.shape()[1]];
        if width != 5 {
            return Err(Error::Argument(format!(
                "chances come in rows of five (win, win gammon, win backgammon, lose gammon, \
                 lose backgammon), got rows of {width}"
            ))
            .into());
        }
        let chances = probabilities.as_array();
        let context = CubeContext {
            stakes: self.stakes.view()?,
            cube: self.cube,
        };
        let model = CubeModel::new(context, self.cube_life);
        let mut out = alloc::vec_with_capacity(rows * COLUMNS)?;
        let values = py.detach(|| {
            for row in chances.rows() {
                let p = Probabilities::from_array([row[0], row[1], row[2], row[3], row[4]]);
                // `value()` is the no-double value where the side to move may not double.
                let d = model.decide(&p);
                out.extend([d.no_double, d.double_take, d.double_pass, d.value()]);
            }
            out
        });
        let array = Array2::from_shape_vec((rows, COLUMNS), values)
            .map_err(|e| Error::Internal(e.to_string()))?;
        Ok(array.into_pyarray(py))
    }
}
