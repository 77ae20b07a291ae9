//! The exception family and the one place where core errors become Python exceptions.

use bgfast_core::bearoff::file::FileError;
use bgfast_core::bearoff::BearoffError;
use bgfast_core::codec::gnubg_id::IdError;
use bgfast_core::threads::{OutOfMemory, PoolError};
use bgfast_core::{IllegalMove, MoveTextError, PositionError};
use bgfast_engine::batch::StepError;
use bgfast_engine::rollout::lockstep::LockstepError;
use bgfast_engine::rollout::{RunError, SpecError};
use pyo3::exceptions::{
    PyKeyboardInterrupt, PyMemoryError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::{create_exception, PyErr};

create_exception!(
    bgfast,
    BgfastError,
    PyValueError,
    "Base class of every error bgfast raises for bad input (a ValueError)."
);
create_exception!(
    bgfast,
    InvalidPositionError,
    BgfastError,
    "Counts, an array or a Position ID that do not make a legal position (names every violation)."
);
create_exception!(
    bgfast,
    InvalidMoveError,
    BgfastError,
    "Move text that is not valid notation (a syntax error)."
);
create_exception!(
    bgfast,
    IllegalMoveError,
    BgfastError,
    "A well-formed move that the rules forbid here; the message names the rule id broken."
);
create_exception!(
    bgfast,
    InvalidDiceError,
    BgfastError,
    "Dice outside 1..6, or not a pair."
);
create_exception!(
    bgfast,
    GameOverError,
    IllegalMoveError,
    "A move was asked for in a position where one side has already borne off all 15 checkers (R15)."
);

create_exception!(
    bgfast,
    InvalidNetError,
    BgfastError,
    "A net bgfast cannot build or run: wrong shapes, NaN weights, an unknown activation or \
     encoding, an ONNX graph that is not a dense net, or a file that is not a bgfast net \
     (wrong format, version, damaged or truncated)."
);

create_exception!(
    bgfast,
    BearoffRangeError,
    BgfastError,
    "A position or index outside what a bear-off table covers: a checker outside the home \
     board (R13), more checkers than the table holds, or an index past its end."
);
create_exception!(
    bgfast,
    BearoffFileError,
    BgfastError,
    "Bytes that are not a valid bear-off table file: wrong format version, damaged \
     (checksum mismatch), truncated or inconsistent. The cache rebuilds such files."
);

/// Every failure the bindings report, one variant per kind, mapped to its exception class
/// in one match (`tests/test_errors.py` asserts each mapping).
pub enum Error {
    /// Raw counts that break the rules: `InvalidPositionError`.
    Position(PositionError),
    /// A Position ID that does not decode: `InvalidPositionError`.
    Id(IdError),
    /// Dice outside 1..=6, or not a pair: `InvalidDiceError`.
    Dice(String),
    /// Position data of the wrong shape (an array, a sequence, home-board counts):
    /// `InvalidPositionError`.
    Shape(String),
    /// A value of the wrong Python type or numpy dtype: `TypeError`.
    Type(String),
    /// The game is over (R15): `GameOverError`.
    GameOver(String),
    /// A move the rules forbid, described by the bindings: `IllegalMoveError`.
    Illegal(String),
    /// A move the rules forbid, as the core diagnosed it (names the rule id):
    /// `IllegalMoveError` with `rule` set.
    IllegalMove(IllegalMove),
    /// Move text that is not valid notation: `InvalidMoveError`.
    Syntax(MoveTextError),
    /// A bad argument that is not game data (a thread count, a scheme or policy name, a
    /// depth out of range): `BgfastError`.
    Argument(String),
    /// Choices or scores for a batch of games that pick no candidate: `IllegalMoveError`
    /// for a choice that is not a legal result, `BgfastError` for the wrong length or NaN.
    Step(StepError),
    /// No thread pool of the size asked for: `BgfastError` above the cap, `RuntimeError`
    /// when the system refuses threads.
    Pool(PoolError),
    /// Not enough memory for a result whose size the input decides: `MemoryError`.
    Memory(String),
    /// The error of one row of a batch call; the message starts with `row {index}: `.
    Row(usize, Box<Error>),
    /// Outside a bear-off table: `BearoffRangeError` (`InvalidPositionError` beyond R1).
    Bearoff(BearoffError),
    /// A bear-off file that must not be trusted: `BearoffFileError`.
    BearoffFile(FileError),
    /// A net that cannot be built or read.
    Net(String),
    /// An exception raised by Python code bgfast called (a callback, a signal handler
    /// raising `KeyboardInterrupt`), passed on as it is.
    Python(PyErr),
    /// Work that stopped because the caller asked it to (Ctrl-C, see `detach`):
    /// `KeyboardInterrupt`, replaced by the handler's own exception where there is one.
    Interrupted,
    /// A bug in bgfast, never the caller's input (a worker thread that panicked):
    /// `RuntimeError`.
    Internal(String),
}

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        match e {
            Error::Position(e) => InvalidPositionError::new_err(e.to_string()),
            Error::Id(IdError::Invalid(e)) => InvalidPositionError::new_err(e.to_string()),
            Error::Id(e) => InvalidPositionError::new_err(format!("invalid Position ID: {e}")),
            Error::Dice(msg) => InvalidDiceError::new_err(msg),
            Error::Shape(msg) => InvalidPositionError::new_err(msg),
            Error::Type(msg) => PyTypeError::new_err(msg),
            Error::GameOver(msg) => GameOverError::new_err(msg),
            Error::Illegal(msg) => IllegalMoveError::new_err(msg),
            Error::IllegalMove(IllegalMove::GameOver) => {
                GameOverError::new_err(IllegalMove::GameOver.to_string())
            }
            Error::IllegalMove(e) => with_rule(IllegalMoveError::new_err(e.to_string()), e.rule()),
            Error::Syntax(e) => InvalidMoveError::new_err(e.to_string()),
            Error::Argument(msg) => BgfastError::new_err(msg),
            Error::Step(e @ StepError::Choice { .. }) => {
                with_rule(IllegalMoveError::new_err(e.to_string()), "R8")
            }
            Error::Step(e) => BgfastError::new_err(e.to_string()),
            Error::Pool(e @ PoolError::TooManyThreads { .. }) => {
                BgfastError::new_err(e.to_string())
            }
            Error::Pool(e) => PyRuntimeError::new_err(e.to_string()),
            Error::Memory(msg) => PyMemoryError::new_err(msg),
            Error::Row(row, error) => with_row(row, PyErr::from(*error)),
            // More than 15 checkers is not a position at all (R1); fewer but more than a
            // table holds is a position the table does not cover.
            Error::Bearoff(e @ BearoffError::TooManyCheckers { max: 15, .. }) => {
                InvalidPositionError::new_err(e.to_string())
            }
            Error::Bearoff(e) => BearoffRangeError::new_err(e.to_string()),
            Error::BearoffFile(e) => BearoffFileError::new_err(e.to_string()),
            Error::Net(msg) => InvalidNetError::new_err(msg),
            Error::Python(e) => e,
            Error::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
            Error::Internal(msg) => {
                PyRuntimeError::new_err(format!("internal error in bgfast (please report): {msg}"))
            }
        }
    }
}

/// The same exception, its message prefixed by the batch row it is about (other attributes,
/// such as `rule`, are kept).
fn with_row(row: usize, err: PyErr) -> PyErr {
    Python::attach(|py| {
        let value = err.value(py);
        let message = value.str().map(|s| s.to_string()).unwrap_or_default();
        // Setting `args` cannot fail on a BaseException; if it ever did, the unprefixed
        // error is still the right class.
        let _ = value.setattr("args", (format!("row {row}: {message}"),));
        err
    })
}

impl From<PositionError> for Error {
    fn from(e: PositionError) -> Self {
        Error::Position(e)
    }
}

/// Sets `error.rule` (e.g. `"R9"`) so callers can branch on the rule without parsing text.
fn with_rule(error: PyErr, rule: &'static str) -> PyErr {
    Python::attach(|py| {
        // Setting an attribute on a fresh exception instance cannot fail in practice; if it
        // did, the message still names the rule.
        let _ = error.value(py).setattr("rule", rule);
    });
    error
}

impl From<IllegalMove> for Error {
    fn from(e: IllegalMove) -> Self {
        Error::IllegalMove(e)
    }
}

impl From<IdError> for Error {
    fn from(e: IdError) -> Self {
        Error::Id(e)
    }
}

impl From<BearoffError> for Error {
    fn from(e: BearoffError) -> Self {
        Error::Bearoff(e)
    }
}

impl From<FileError> for Error {
    fn from(e: FileError) -> Self {
        Error::BearoffFile(e)
    }
}

impl From<StepError> for Error {
    fn from(e: StepError) -> Self {
        match e {
            StepError::OutOfMemory(e) => e.into(),
            e => Error::Step(e),
        }
    }
}

impl From<PoolError> for Error {
    fn from(e: PoolError) -> Self {
        Error::Pool(e)
    }
}

impl From<SpecError> for Error {
    fn from(e: SpecError) -> Self {
        match e {
            SpecError::NoEvaluator { needed_by } => Error::Argument(format!(
                "{needed_by} needs a net to evaluate positions: pass evaluator="
            )),
            SpecError::CubeLife(_)
            | SpecError::TooManyBranches { .. }
            | SpecError::CubelessBearoff => Error::Argument(e.to_string()),
        }
    }
}

impl From<LockstepError> for Error {
    fn from(e: LockstepError) -> Self {
        match e {
            LockstepError::Spec(e) => e.into(),
            LockstepError::OutOfMemory(e) => e.into(),
        }
    }
}

impl From<RunError> for Error {
    fn from(e: RunError) -> Self {
        match e {
            RunError::Spec(e) => e.into(),
            RunError::Pool(e) => e.into(),
        }
    }
}

impl From<OutOfMemory> for Error {
    fn from(e: OutOfMemory) -> Self {
        crate::alloc::out_of_memory(e.count, e.size)
    }
}

impl From<PyErr> for Error {
    fn from(e: PyErr) -> Self {
        Error::Python(e)
    }
}
