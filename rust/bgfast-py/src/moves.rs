//! `Moves`: what `Position.moves` returns, a compact read-only sequence of `Move`s.
//!
//! A call generates into one reused per-thread `MoveList` and keeps only the compact moves
//! (20 bytes each); a `Move` object is made when an item is indexed or iterated, so
//! `len(position.moves(d1, d2))` or `move in moves` make none.

use std::cell::RefCell;

use bgfast_core::{CompactMove, Dice, MoveList, Position};
use pyo3::exceptions::{PyIndexError, PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice};

use crate::position::PyMove;

thread_local! {
    /// Allocated once per thread: a `MoveList` holds room for the worst case.
    static SCRATCH: RefCell<MoveList> = RefCell::new(MoveList::new());
}

/// The legal moves of one position and roll, one per distinct result, in generation order.
/// A sequence (`collections.abc.Sequence`): `len`, indexing (negative indices and slices
/// too), iteration, `in`, `index`, `count`.
#[pyclass(name = "Moves", module = "bgfast", frozen, sequence)]
pub struct PyMoves {
    origin: Position,
    dice: Dice,
    plays: Box<[CompactMove]>,
}

/// Runs `f` with this thread's reusable `MoveList` (not re-entrant: `f` must not call back).
pub(crate) fn with_move_list<R>(f: impl FnOnce(&mut MoveList) -> R) -> R {
    SCRATCH.with_borrow_mut(f)
}

impl PyMoves {
    /// The moves of `origin` for `dice`; the caller has checked that the game is not over.
    pub fn generate(origin: Position, dice: Dice) -> PyMoves {
        let plays = with_move_list(|list| {
            origin.generate_moves(dice, list);
            (0..list.len()).map(|i| list.compact(i)).collect()
        });
        PyMoves {
            origin,
            dice,
            plays,
        }
    }

    /// Whether `value` is a `Move` equal to move `i` (same origin, same result).
    fn is_move(&self, i: usize, value: &Bound<'_, PyAny>) -> bool {
        value.cast::<PyMove>().is_ok_and(|m| {
            let m = m.get();
            m.origin == self.origin && self.plays[i].result(&self.origin) == m.result
        })
    }

    fn item(&self, i: usize) -> PyMove {
        let play = self.plays[i];
        PyMove {
            origin: self.origin,
            mv: play.mv(&self.origin, self.dice),
            result: play.result(&self.origin),
        }
    }
}

#[pymethods]
impl PyMoves {
    fn __len__(&self) -> usize {
        self.plays.len()
    }

    fn __getitem__<'py>(&self, index: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = index.py();
        if let Ok(slice) = index.cast::<PySlice>() {
            let range = slice.indices(self.plays.len() as isize)?;
            let items = (0..range.slicelength)
                .map(|k| self.item((range.start + k as isize * range.step) as usize));
            return Ok(PyList::new(py, items)?.into_any());
        }
        // Like a list: any int (a bool too) or an object with __index__.
        let out_of_range = || PyIndexError::new_err("Moves index out of range");
        let i: i128 = match index.extract() {
            Ok(i) => i,
            // An int too large for 128 bits is out of range like any other.
            Err(e) if e.is_instance_of::<PyOverflowError>(py) => return Err(out_of_range()),
            Err(_) => {
                return Err(PyTypeError::new_err(
                    "Moves indices must be integers or slices",
                ))
            }
        };
        let n = self.plays.len() as i128;
        let j = if i < 0 { i + n } else { i };
        if !(0..n).contains(&j) {
            return Err(out_of_range());
        }
        Ok(Bound::new(py, self.item(j as usize))?.into_any())
    }

    /// The index of the first move equal to `value` (`Sequence.index`): the move of this
    /// position that reaches the same result. Raises `ValueError` if there is none.
    #[pyo3(signature = (value, start=None, stop=None))]
    fn index(
        &self,
        value: &Bound<'_, PyAny>,
        start: Option<&Bound<'_, PyAny>>,
        stop: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<usize> {
        let n = self.plays.len();
        // Bounds as list.index takes them: negative from the end, clamped to 0..=n.
        let bound = |b: Option<&Bound<'_, PyAny>>, default: usize| -> PyResult<usize> {
            let Some(b) = b.filter(|b| !b.is_none()) else {
                return Ok(default);
            };
            let v: i128 = match b.extract() {
                Ok(v) => v,
                Err(e) if e.is_instance_of::<PyOverflowError>(b.py()) => {
                    if b.lt(0)? {
                        i128::MIN
                    } else {
                        i128::MAX
                    }
                }
                Err(_) => {
                    return Err(PyTypeError::new_err(
                        "Moves.index bounds must be integers or None",
                    ))
                }
            };
            let v = if v < 0 {
                v.saturating_add(n as i128)
            } else {
                v
            };
            Ok(v.clamp(0, n as i128) as usize)
        };
        let (start, stop) = (bound(start, 0)?, bound(stop, n)?);
        (start..stop.max(start))
            .find(|&i| self.is_move(i, value))
            .ok_or_else(|| PyValueError::new_err("the move is not in these Moves"))
    }

    /// How many moves equal `value` (`Sequence.count`): 1 or 0, as each result is listed
    /// once.
    fn count(&self, value: &Bound<'_, PyAny>) -> usize {
        (0..self.plays.len())
            .filter(|&i| self.is_move(i, value))
            .count()
    }

    fn __iter__(slf: Bound<'_, Self>) -> PyMovesIterator {
        PyMovesIterator {
            moves: slf.unbind(),
            next: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    fn __contains__(&self, item: &Bound<'_, PyAny>) -> bool {
        (0..self.plays.len()).any(|i| self.is_move(i, item))
    }

    fn __repr__(&self) -> String {
        format!("<Moves: {} legal>", self.plays.len())
    }

    /// Two `Moves` are equal when they hold equal moves in the same order (like lists; and
    /// like lists they are not hashable).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyMoves>().is_ok_and(|o| {
            let o = o.get();
            o.origin == self.origin
                && o.plays.len() == self.plays.len()
                && o.plays
                    .iter()
                    .zip(self.plays.iter())
                    .all(|(a, b)| a.key() == b.key())
        })
    }

    #[classattr]
    const __hash__: Option<Py<PyAny>> = None;
}

/// Iterates over a `Moves`, making each `Move` as it is reached.
#[pyclass(name = "MovesIterator", module = "bgfast", frozen)]
pub struct PyMovesIterator {
    moves: Py<PyMoves>,
    next: std::sync::atomic::AtomicUsize,
}

#[pymethods]
impl PyMovesIterator {
    fn __iter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __next__(&self) -> Option<PyMove> {
        use std::sync::atomic::Ordering::Relaxed;
        let moves = self.moves.get();
        let i = self.next.fetch_add(1, Relaxed);
        if i < moves.plays.len() {
            Some(moves.item(i))
        } else {
            self.next.store(moves.plays.len(), Relaxed);
            None
        }
    }

    fn __length_hint__(&self) -> usize {
        use std::sync::atomic::Ordering::Relaxed;
        self.moves
            .get()
            .plays
            .len()
            .saturating_sub(self.next.load(Relaxed))
    }
}
