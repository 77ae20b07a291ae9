//! Checker counts from Python: the one reader every entry point that takes positions uses.
//!
//! Counts arrive as numpy arrays of any integer dtype, nested sequences of ints or
//! `Position`s. Nothing here narrows a value before it is compared with its range: an array
//! is read in its own dtype and each count widened to `i128` for validation
//! (`Position::from_counts`), so `2**32 + 5` is a count of 4294967301, never 5, and no sum
//! wraps. A row whose counts all fit a byte is kept as bytes (the layout of the batch
//! arrays), which is how valid rows travel to the generator. Data that is not counts (a
//! float or bool array, a wrong shape) is an `InvalidPositionError` saying what it is.

use bgfast_core::rows::{self, ROW_BYTES};
use bgfast_core::Position;
use numpy::ndarray::{ArrayView2, ArrayView3, Axis};
use numpy::{
    Element, PyArrayDescrMethods, PyReadonlyArray2, PyReadonlyArray3, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use crate::errors::Error;
use crate::position::PyPosition;

/// The `(2, 25)` layout, as error messages describe it.
const LAYOUT: &str = "row 0 the side to move, row 1 the opponent, columns 0..23 points 1..24 \
                      and column 24 the bar";

/// Rows of a `(N, 2, 25)` input as bytes, not yet validated: every count of every row fits
/// a byte (a row with a larger or negative count was refused while reading, naming it).
pub struct Rows(pub Vec<[u8; ROW_BYTES]>);

/// Returns `$body` from the enclosing function, with `$view` bound to a read-only `ndarray`
/// view of `$obj` in its own integer dtype (`$array` is `PyReadonlyArray1`, `2` or `3`, for
/// the dimension wanted); evaluates to `$otherwise` if `$obj` is no such array.
macro_rules! with_int_array_impl {
    ($obj:expr, $array:ident, |$view:ident| $body:expr, $otherwise:expr) => {{
        $crate::counts::with_int_array!(@try $obj, $array, $view, $body, $otherwise;
            u8, i8, i16, i32, i64, u16, u32, u64)
    }};
    (@try $obj:expr, $array:ident, $view:ident, $body:expr, $otherwise:expr; $($t:ty),*) => {{
        $(
            if let Ok(array) = $obj.extract::<$array<'_, $t>>() {
                let $view = array.as_array();
                return $body;
            }
        )*
        $otherwise
    }};
}
pub(crate) use with_int_array_impl as with_int_array;

/// `obj` itself, or for an integer array in the other byte order (`>i4` on x86) a copy in
/// this machine's order, which the typed readers take: the values are the same.
pub fn native_order<'py>(obj: &Bound<'py, PyAny>) -> Result<Bound<'py, PyAny>, Error> {
    let Ok(array) = obj.cast::<PyUntypedArray>() else {
        return Ok(obj.clone());
    };
    let dtype = array.dtype();
    let kind: String = dtype.getattr("kind")?.extract()?;
    let native: bool = dtype.getattr("isnative")?.extract()?;
    if native || !(kind == "i" || kind == "u") {
        return Ok(obj.clone());
    }
    let order = dtype.call_method1("newbyteorder", ("=",))?;
    Ok(obj.call_method1("astype", (order,))?)
}

/// The dtype of a numpy array, for messages; `None` for anything else.
fn dtype_of(obj: &Bound<'_, PyAny>) -> Option<String> {
    let array = obj.cast::<PyUntypedArray>().ok()?;
    Some(array.dtype().to_string())
}

/// The error for a numpy array whose dtype holds no counts (floats, bools, objects...):
/// data that is not a position, like a wrong shape.
fn dtype_error(what: &str, dtype: &str) -> Error {
    Error::Shape(format!(
        "{what} must be an integer array (uint8 ideally), got dtype {dtype}"
    ))
}

/// The position of a `(2, 25)` array of any integer dtype or a pair of 25-int sequences.
pub fn position(obj: &Bound<'_, PyAny>) -> Result<Position, Error> {
    let obj = &native_order(obj)?;
    let shape_error = |got: String| {
        Error::Shape(format!(
            "a position array must have shape (2, 25) ({LAYOUT}); got {got}"
        ))
    };
    if let Some(dtype) = dtype_of(obj) {
        let shape = obj.cast::<PyUntypedArray>().map(|a| a.shape().to_vec());
        let shape = shape.unwrap_or_default();
        if shape != [2, 25] {
            return Err(shape_error(format!("shape {shape:?}")));
        }
        return with_int_array!(
            obj,
            PyReadonlyArray2,
            |view| position_of_view(view),
            Err(dtype_error("a position array", &dtype))
        );
    }
    if obj.is_instance_of::<PyString>() {
        return Err(shape_error("a str".to_string()));
    }
    let rows: Vec<Vec<Bound<'_, PyAny>>> = obj
        .extract()
        .map_err(|_| shape_error(format!("a {}", type_name(obj))))?;
    if rows.len() != 2 || rows.iter().any(|r| r.len() != 25) {
        let lengths: Vec<usize> = rows.iter().map(Vec::len).collect();
        return Err(shape_error(format!("rows of lengths {lengths:?}")));
    }
    let mut counts = [[0i128; 25]; 2];
    for (r, row) in rows.iter().enumerate() {
        for (c, item) in row.iter().enumerate() {
            counts[r][c] = count_of(item, r, c)?;
        }
    }
    Ok(Position::from_counts(&counts[0], &counts[1])?)
}

fn position_of_view<T: Element + Copy + Into<i128>>(
    view: ArrayView2<'_, T>,
) -> Result<Position, Error> {
    let side = |r: usize| -> [T; 25] { core::array::from_fn(|c| view[[r, c]]) };
    Ok(Position::from_counts(&side(0), &side(1))?)
}

/// One count of a nested sequence: an int (any size) at row `r`, column `c`.
fn count_of(item: &Bound<'_, PyAny>, r: usize, c: usize) -> Result<i128, Error> {
    let place = || {
        let side = if r == 0 { "side to move" } else { "opponent" };
        let point = if c == 24 {
            "bar".to_string()
        } else {
            format!("point {}", c + 1)
        };
        format!("the {side}'s {point}")
    };
    if item.is_instance_of::<pyo3::types::PyBool>() {
        return Err(Error::Shape(format!(
            "the count of {} must be an int, not a bool",
            place()
        )));
    }
    match item.extract::<i128>() {
        Ok(v) => Ok(v),
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(item.py()) => {
            let shown = item.str().map(|s| s.to_string()).unwrap_or_default();
            Err(Error::Shape(format!(
                "invalid position: R1: the count {shown} on {} is not 0 to 15 checkers",
                place()
            )))
        }
        Err(_) => Err(Error::Shape(format!(
            "the count of {} must be an int, not {}",
            place(),
            type_name(item)
        ))),
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_string())
}

/// The error for positions that are neither a `(N, 2, 25)` array nor Positions.
pub fn rows_shape_error(what: &str) -> Error {
    Error::Shape(format!(
        "positions must be a (N, 2, 25) array (the Position.to_array() layout) or a sequence \
         of Positions; {what}"
    ))
}

/// Validated positions from a `(N, 2, 25)` array of any integer dtype or a sequence of
/// Positions; names the first bad position by its row.
pub fn positions(obj: &Bound<'_, PyAny>) -> Result<Vec<Position>, Error> {
    let rows = rows(obj)?;
    let mut positions = crate::alloc::vec_with_capacity(rows.0.len())?;
    for (i, row) in rows.0.iter().enumerate() {
        check_signals_now_and_then(obj.py(), i)?;
        positions.push(validate_row(row).map_err(|e| Error::Row(i, Box::new(e.into())))?);
    }
    Ok(positions)
}

/// Rows read between two looks for a pending Ctrl-C: validating millions of rows with the
/// GIL held takes seconds, and a long call must stop soon after Ctrl-C from its start.
const ROWS_BETWEEN_SIGNAL_CHECKS: usize = 1 << 18;

/// Raises `KeyboardInterrupt` (or what a signal handler raised) at every
/// [`ROWS_BETWEEN_SIGNAL_CHECKS`]th row.
fn check_signals_now_and_then(py: Python<'_>, row: usize) -> Result<(), Error> {
    if row % ROWS_BETWEEN_SIGNAL_CHECKS == ROWS_BETWEEN_SIGNAL_CHECKS - 1 {
        py.check_signals()?;
    }
    Ok(())
}

/// The rows of a `(N, 2, 25)` array of any integer dtype or a sequence of Positions.
pub fn rows(obj: &Bound<'_, PyAny>) -> Result<Rows, Error> {
    let obj = &native_order(obj)?;
    // The batch layout itself: copied as it is, every byte a count.
    if let Ok(array) = obj.extract::<PyReadonlyArray3<'_, u8>>() {
        return byte_rows(array.as_array());
    }
    if let Some(dtype) = dtype_of(obj) {
        return with_int_array!(
            obj,
            PyReadonlyArray3,
            |view| rows_of_view(obj.py(), view),
            {
                let ndim = obj.cast::<PyUntypedArray>().map(|a| a.ndim()).unwrap_or(0);
                if ndim != 3 {
                    let shape = obj.cast::<PyUntypedArray>().map(|a| a.shape().to_vec());
                    Err(rows_shape_error(&format!(
                        "got shape {:?}",
                        shape.unwrap_or_default()
                    )))
                } else {
                    Err(dtype_error("positions", &dtype))
                }
            }
        );
    }
    if obj.is_instance_of::<PyString>() || obj.cast::<PyPosition>().is_ok() {
        return Err(rows_shape_error(&format!("got one {}", type_name(obj))));
    }
    let items: Vec<Bound<'_, PyAny>> = match obj.cast::<PyList>() {
        Ok(list) => list.iter().collect(),
        Err(_) => obj
            .extract()
            .map_err(|_| rows_shape_error(&format!("got a {}", type_name(obj))))?,
    };
    match items.first() {
        // Nested sequences of counts: read as numpy reads them, then as that array.
        Some(first) if is_sequence_of_counts(first) => {
            // numpy reads True beside ints as 1: refused, as `Position.from_array` does.
            if items.iter().any(holds_bool) {
                return Err(rows_shape_error("got a bool among the counts"));
            }
            let items = PyList::new(obj.py(), &items)?;
            let array = obj
                .py()
                .import("numpy")?
                .call_method1("asarray", (items,))
                .map_err(|e| rows_shape_error(&format!("got a sequence numpy cannot read: {e}")))?;
            if array.cast::<PyUntypedArray>().is_err() {
                return Err(rows_shape_error(&format!("got a {}", type_name(obj))));
            }
            rows(&array)
        }
        _ => rows_of_positions(items.into_iter()),
    }
}

/// Whether nested sequences (or arrays) hold a bool, Python's or numpy's, anywhere.
fn holds_bool(obj: &Bound<'_, PyAny>) -> bool {
    if let Ok(array) = obj.cast::<PyUntypedArray>() {
        match array.dtype().kind() {
            b'b' => return true,
            b'O' => {} // its items are Python objects: looked at one by one below
            _ => return false,
        }
    }
    if obj.get_type().name().is_ok_and(|name| name == "bool") {
        return true; // bool and numpy.bool_ both
    }
    if obj.is_instance_of::<PyString>() {
        return false;
    }
    obj.try_iter()
        .is_ok_and(|items| items.flatten().any(|item| holds_bool(&item)))
}

/// Whether a sequence's first item makes it nested counts (a row as a list, tuple or
/// array) rather than a sequence of Positions.
fn is_sequence_of_counts(first: &Bound<'_, PyAny>) -> bool {
    first.cast::<PyPosition>().is_err()
        && !first.is_instance_of::<PyString>()
        && first.len().is_ok()
}

/// Copies the rows of a `(N, 2, 25)` uint8 view.
fn byte_rows(view: ArrayView3<'_, u8>) -> Result<Rows, Error> {
    let shape = view.shape();
    if shape[1] != 2 || shape[2] != 25 {
        return Err(rows_shape_error(&format!("got shape {shape:?}")));
    }
    let mut rows = crate::alloc::vec_filled(shape[0], [0u8; ROW_BYTES])?;
    if let Some(flat) = view.as_slice() {
        for (row, src) in rows.iter_mut().zip(flat.chunks_exact(ROW_BYTES)) {
            row.copy_from_slice(src);
        }
    } else {
        for (row, src) in rows.iter_mut().zip(view.outer_iter()) {
            for (dst, &v) in row.iter_mut().zip(src.iter()) {
                *dst = v;
            }
        }
    }
    Ok(Rows(rows))
}

/// Copies the rows of a `(N, 2, 25)` view; a row with a count outside 0..=255 is refused
/// at once, after the rows before it (the first bad row in row order is the one named).
fn rows_of_view<T: Element + Copy + Into<i128>>(
    py: Python<'_>,
    view: ArrayView3<'_, T>,
) -> Result<Rows, Error> {
    let shape = view.shape();
    if shape[1] != 2 || shape[2] != 25 {
        return Err(rows_shape_error(&format!("got shape {shape:?}")));
    }
    let mut out = crate::alloc::vec_with_capacity(shape[0])?;
    for (i, row) in view.axis_iter(Axis(0)).enumerate() {
        check_signals_now_and_then(py, i)?;
        let wide: [i128; ROW_BYTES] = core::array::from_fn(|k| row[[k / 25, k % 25]].into());
        match byte_row(&wide) {
            Some(bytes) => out.push(bytes),
            None => {
                // Invalid for sure; an earlier row may be invalid too, and is named first.
                first_bad_row(&out)?;
                let side = |r: usize| -> [i128; 25] { core::array::from_fn(|c| wide[25 * r + c]) };
                let error = Position::from_counts(&side(0), &side(1))
                    .expect_err("a count outside 0..=255 breaks R1");
                return Err(Error::Row(i, Box::new(error.into())));
            }
        }
    }
    Ok(Rows(out))
}

/// The row as bytes if every count is in 0..=255.
fn byte_row(wide: &[i128; ROW_BYTES]) -> Option<[u8; ROW_BYTES]> {
    let mut bytes = [0u8; ROW_BYTES];
    for (b, &w) in bytes.iter_mut().zip(wide) {
        *b = u8::try_from(w).ok()?;
    }
    Some(bytes)
}

/// The error of the first invalid row among `rows`, if any.
fn first_bad_row(rows: &[[u8; ROW_BYTES]]) -> Result<(), Error> {
    for (i, row) in rows.iter().enumerate() {
        validate_row(row).map_err(|e| Error::Row(i, Box::new(e.into())))?;
    }
    Ok(())
}

/// Validates one byte row (R1, R6, R12, R15).
pub fn validate_row(row: &[u8; ROW_BYTES]) -> Result<Position, bgfast_core::PositionError> {
    let (mover, opponent) = row.split_at(25);
    let side = |c| <&[u8; 25]>::try_from(c).expect("25 counts a side");
    Position::from_count_bytes(side(mover), side(opponent))
}

fn rows_of_positions<'py>(items: impl Iterator<Item = Bound<'py, PyAny>>) -> Result<Rows, Error> {
    let mut out = Vec::with_capacity(items.size_hint().0);
    for (i, item) in items.enumerate() {
        let position = item.cast::<PyPosition>().map_err(|_| {
            Error::Row(
                i,
                Box::new(rows_shape_error(&format!(
                    "got a {} in a sequence",
                    type_name(&item)
                ))),
            )
        })?;
        out.push(rows::row(&position.get().inner));
    }
    Ok(Rows(out))
}
