//! `Position`, `Move` and `Outcome`: immutable value types over the core's.

use bgfast_core::bearoff;
use bgfast_core::codec::{ascii, gnubg_id, move_text};
use bgfast_core::{
    perft_cancellable, resolve, Move, Outcome, ParsedMove, Position, Side, Step, WinKind,
    MAX_PERFT_DEPTH,
};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use crate::errors::{Error, InvalidPositionError};
use crate::moves::PyMoves;
use crate::{args, counts, detach};

/// A backgammon position seen from the side to move. Immutable and hashable.
///
/// `Position()` is the standard start. Row 0 of `to_array()` is the side to move, row 1 the
/// opponent; columns 0..23 are that side's own points 1..24 and column 24 its bar.
#[pyclass(name = "Position", module = "bgfast", frozen, eq, hash, ord)]
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PyPosition {
    pub inner: Position,
}

#[pymethods]
impl PyPosition {
    #[new]
    fn new() -> Self {
        PyPosition {
            inner: Position::START,
        }
    }

    /// The position with this GNU Backgammon Position ID (14 characters; whitespace around
    /// them is ignored, as by the GNUbg ID and XGID readers).
    #[staticmethod]
    fn from_id(id: &Bound<'_, PyString>) -> PyResult<Self> {
        let text = args::id_text(id)?;
        let inner = gnubg_id::decode(&text).map_err(|e| match e {
            // A whole game's ID given for a position's: say which reads it.
            gnubg_id::IdError::Length(_) if text.contains(':') => {
                InvalidPositionError::new_err(format!(
                    "invalid Position ID: {e}; {} is a GNUbg ID or an XGID, which holds a \
                     game: bgfast.Game.from_gnubg_id or Game.from_xgid reads it (a GNUbg \
                     ID's Position ID is its part before ':')",
                    args::shown(id.as_any())
                ))
            }
            e => Error::from(e).into(),
        })?;
        Ok(PyPosition { inner })
    }

    /// The position from a `(2, 25)` array of counts (see the class docstring).
    #[staticmethod]
    fn from_array(array: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyPosition {
            inner: counts::position(array)?,
        })
    }

    /// The GNU Backgammon Position ID.
    #[getter]
    fn id(&self) -> String {
        gnubg_id::encode(&self.inner)
    }

    /// The counts as a new `(2, 25)` uint8 array.
    fn to_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<u8>>> {
        let [mover, opponent] = self.inner.to_counts();
        let flat: Vec<u8> = mover.iter().chain(opponent.iter()).copied().collect();
        PyArray1::from_vec(py, flat).reshape([2, 25])
    }

    /// Pip counts `(side to move, opponent)`.
    #[getter]
    fn pips(&self) -> (u32, u32) {
        self.inner.pips()
    }

    /// Whether contact is broken (neither side can hit the other again).
    #[getter]
    fn is_race(&self) -> bool {
        self.inner.is_race()
    }

    /// `None` while the game goes on; else who won and how (R15, R16).
    #[getter]
    fn outcome(&self) -> Option<PyOutcome> {
        self.inner.outcome().map(|inner| PyOutcome { inner })
    }

    /// Checkers borne off `(side to move, opponent)`.
    #[getter]
    fn off(&self) -> (u8, u8) {
        (self.inner.mover().off(), self.inner.opponent().off())
    }

    /// Effective pip counts `(side to move, opponent)` from the one-sided bear-off database;
    /// raises `BearoffRangeError` unless every checker of both sides is home (R13).
    #[getter]
    fn epc(&self, py: Python<'_>) -> PyResult<(f64, f64)> {
        let position = self.inner;
        // The first call builds the process's table (about a tenth of a second).
        let epc = py.detach(|| bearoff::position_epc(&position, bearoff::shared_one_sided()));
        Ok(epc.map_err(Error::from)?)
    }

    /// The same checkers with the other side to move.
    fn flipped(&self) -> Self {
        PyPosition {
            inner: self.inner.flipped(),
        }
    }

    /// The legal moves for a roll, given as two ints (`moves(3, 1)`) or one pair
    /// (`moves((3, 1))`): one per distinct resulting position (a roll with no legal play
    /// gives one move, the pass). A compact sequence: each `Move` object is made when it is
    /// indexed or iterated over.
    #[pyo3(signature = (d1, d2=None))]
    fn moves(&self, d1: &Bound<'_, PyAny>, d2: Option<&Bound<'_, PyAny>>) -> PyResult<PyMoves> {
        let dice = args::dice_of(d1, d2)?;
        self.ensure_not_over()?;
        Ok(PyMoves::generate(self.inner, dice))
    }

    /// Plays `move` (a `Move` of this position, or move text such as `"8/5 6/5"`) with the
    /// roll (one pair, or two ints: `play("8/5 6/5", 3, 1)`) and returns the resulting
    /// position, the opponent to move. Raises `InvalidMoveError` for bad notation and
    /// `IllegalMoveError` naming the rule broken.
    #[pyo3(signature = (r#move, dice, d2=None))]
    fn play(
        &self,
        r#move: &Bound<'_, PyAny>,
        dice: &Bound<'_, PyAny>,
        d2: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mv = self.parse_move(r#move, dice, d2)?;
        Ok(PyPosition { inner: mv.result })
    }

    /// The legal `Move` that `move` (text, or a `Move` of this position) denotes for the
    /// roll (one pair or two ints): the move whose result the text reaches, so that every
    /// way of writing a play gives the one `Move` the generator lists (`"8/5 5/4"` with 3-1
    /// is the move written `8/4`). Raises as `play` does.
    #[pyo3(signature = (r#move, dice, d2=None))]
    fn parse_move(
        &self,
        r#move: &Bound<'_, PyAny>,
        dice: &Bound<'_, PyAny>,
        d2: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyMove> {
        let dice = args::dice_of(dice, d2)?;
        self.ensure_not_over()?;
        let parsed = self.written(r#move)?;
        let (mv, result) = resolve(&self.inner, dice, &parsed).map_err(Error::from)?;
        Ok(PyMove {
            origin: self.inner,
            mv,
            result,
        })
    }

    /// The position after moving the checkers as `move` (text or a `Move`) says, legal or
    /// not, with the opponent to move: how a game recorded at a real table keeps an illegal
    /// play until it is called (R31). Refuses only what no hand can do, with
    /// `IllegalMoveError`: moving a checker that is not there (R1), putting one down on a
    /// point two or more opposing checkers hold (R7), a result no game reaches (R12).
    /// `play` says whether the same move is legal.
    fn play_physically(&self, r#move: &Bound<'_, PyAny>) -> PyResult<Self> {
        let parsed = self.written(r#move)?;
        let inner = self.inner.play_physically(&parsed).map_err(Error::from)?;
        Ok(PyPosition { inner })
    }

    fn __str__(&self) -> String {
        ascii::render(&self.inner)
    }

    fn __repr__(&self) -> String {
        format!("Position.from_id('{}')", gnubg_id::encode(&self.inner))
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let from_id = py.get_type::<PyPosition>().getattr("from_id")?;
        let args = PyTuple::new(py, [gnubg_id::encode(&slf.get().inner)])?;
        Ok((from_id, args))
    }
}

impl PyPosition {
    fn ensure_not_over(&self) -> Result<(), Error> {
        match self.inner.outcome() {
            Some(outcome) => Err(Error::GameOver(format!(
                "R15: the game is over: {} has borne off all 15 checkers",
                side_name(outcome.winner)
            ))),
            None => Ok(()),
        }
    }

    /// A move as written: text parsed for its syntax, or the steps of a `Move` of this
    /// position.
    fn written(&self, r#move: &Bound<'_, PyAny>) -> PyResult<ParsedMove> {
        if let Ok(m) = r#move.cast::<PyMove>() {
            let m = m.get();
            if m.origin != self.inner {
                return Err(Error::Illegal(format!(
                    "the move {} belongs to another position ({})",
                    move_text::format(&m.mv),
                    gnubg_id::encode(&m.origin)
                ))
                .into());
            }
            return Ok(ParsedMove::from(&m.mv));
        }
        if let Ok(text) = r#move.cast::<PyString>() {
            return Ok(move_text::parse(&args::text(text)?).map_err(Error::Syntax)?);
        }
        Err(PyTypeError::new_err("move must be a bgfast.Move or a str"))
    }
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Mover => "mover",
        Side::Opponent => "opponent",
    }
}

/// One legal move: its steps and the position it reaches (the opponent to move). Two moves
/// are equal when they start from the same position and reach the same one.
#[pyclass(name = "Move", module = "bgfast", frozen)]
#[derive(Clone, Copy)]
pub struct PyMove {
    pub(crate) origin: Position,
    pub(crate) mv: Move,
    pub(crate) result: Position,
}

#[pymethods]
impl PyMove {
    /// The checker steps `(from, to, hit)` in the mover's numbering: 25 is the bar, 0 off.
    #[getter]
    fn steps(&self) -> Vec<(u8, u8, bool)> {
        self.mv
            .steps()
            .iter()
            .map(|s| (s.from, s.to, s.hit))
            .collect()
    }

    /// The position after the move, with the opponent to move.
    #[getter]
    fn result(&self) -> PyPosition {
        PyPosition { inner: self.result }
    }

    /// The position the move is played from.
    #[getter]
    fn origin(&self) -> PyPosition {
        PyPosition { inner: self.origin }
    }

    /// Whether the move is the pass of a roll that cannot be played (R10).
    #[getter]
    fn is_pass(&self) -> bool {
        self.mv.is_pass()
    }

    fn __str__(&self) -> String {
        move_text::format(&self.mv)
    }

    fn __repr__(&self) -> String {
        format!(
            "<Move {} -> {}>",
            move_text::format(&self.mv),
            gnubg_id::encode(&self.result)
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyMove>()
            .map(|o| o.get().origin == self.origin && o.get().result == self.result)
            .unwrap_or(false)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (self.origin, self.result).hash(&mut h);
        h.finish()
    }

    /// Pickles as the origin and the steps; unpickling finds the move again among the
    /// legal moves (see `_from_steps`), so a forged payload cannot make an illegal `Move`.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let from_steps = py.get_type::<PyMove>().getattr("_from_steps")?;
        let m = slf.get();
        let args = (m.origin(), m.steps()).into_pyobject(py)?;
        Ok((from_steps, args))
    }

    /// The legal move of `origin` whose steps are exactly `steps` (`(from, to, hit)`
    /// tuples; none for a pass), as `Move.__reduce__` records it. Raises `IllegalMoveError`
    /// when no roll plays those steps and `BgfastError` for arguments of the wrong type.
    #[staticmethod]
    #[pyo3(name = "_from_steps")]
    fn from_steps(origin: &Bound<'_, PyAny>, steps: &Bound<'_, PyAny>) -> PyResult<Self> {
        let origin = origin.cast::<PyPosition>().map_err(|_| {
            Error::Argument(format!(
                "a Move's origin must be a Position, not {origin:?}"
            ))
        })?;
        let origin = origin.get().inner;
        let wanted = steps
            .extract::<Vec<(u8, u8, bool)>>()
            .ok()
            .and_then(|steps| {
                let steps: Vec<Step> = steps
                    .into_iter()
                    .map(|(from, to, hit)| Step { from, to, hit })
                    .collect();
                Move::from_steps(&steps)
            })
            .ok_or_else(|| {
                Error::Argument(format!(
                    "a Move's steps must be up to four (from, to, hit) tuples, not {steps:?}"
                ))
            })?;
        let (_, result) = origin.find_move(&wanted).ok_or_else(|| {
            let id = gnubg_id::encode(&origin);
            let why = if wanted.is_pass() {
                format!("no roll of {id} is a pass: every roll has a legal play (R8)")
            } else {
                // The steps as given: their order matters (a Move lists them as played).
                let steps: Vec<(u8, u8, bool)> = wanted
                    .steps()
                    .iter()
                    .map(|s| (s.from, s.to, s.hit))
                    .collect();
                format!(
                    "no roll plays the steps {steps:?} ({}), in this order, from {id}",
                    move_text::format(&wanted)
                )
            };
            PyErr::from(Error::Illegal(why))
        })?;
        Ok(PyMove {
            origin,
            mv: wanted,
            result,
        })
    }
}

/// How a finished game ended (R15, R16).
#[pyclass(name = "Outcome", module = "bgfast", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyOutcome {
    inner: Outcome,
}

#[pymethods]
impl PyOutcome {
    /// `"mover"` or `"opponent"`: who bore off all 15 checkers.
    #[getter]
    fn winner(&self) -> &'static str {
        side_name(self.inner.winner)
    }

    /// `"single"`, `"gammon"` or `"backgammon"` (R16).
    #[getter]
    fn kind(&self) -> &'static str {
        match self.inner.kind {
            WinKind::Single => "single",
            WinKind::Gammon => "gammon",
            WinKind::Backgammon => "backgammon",
        }
    }

    /// The cube multiplier: 1, 2 or 3 (R16).
    #[getter]
    fn points(&self) -> u32 {
        self.inner.kind.points()
    }

    fn __repr__(&self) -> String {
        format!(
            "Outcome(winner='{}', kind='{}')",
            self.winner(),
            self.kind()
        )
    }
}

/// Leaves of the tree of distinct results `depth` plies deep (0 to 7), each of the 21 rolls
/// once a ply. Releases the GIL; Ctrl-C stops it.
#[pyfunction]
pub fn perft(
    py: Python<'_>,
    position: &Bound<'_, PyPosition>,
    depth: &Bound<'_, PyAny>,
) -> PyResult<u64> {
    let depth: u32 = args::int_in(depth, "depth", 0..=i128::from(MAX_PERFT_DEPTH))?;
    let position = position.get().inner;
    let leaves = detach::run(
        py,
        |cancel| perft_cancellable(&position, depth, cancel),
        |_| Ok(()),
    )?;
    // Without an interruption (which `run` raises) the count is complete.
    leaves.ok_or_else(|| Error::Internal("perft stopped without a cause".to_string()).into())
}
