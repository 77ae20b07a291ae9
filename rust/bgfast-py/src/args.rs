//! Integer arguments from Python, checked before any narrowing.
//!
//! A Python int has no size limit and PyO3's `u32`/`usize`/`i64` parameters turn one that
//! does not fit into an `OverflowError` that names nothing. Every integer argument goes
//! through here instead: any value, however large, is compared with its range first and a
//! value outside it is an error naming the argument, its range and the value as given; a
//! bool or a float is a `TypeError` (True is not a thread count, 0.7 not a choice).

use core::ops::RangeInclusive;

use bgfast_core::threads::{self, MAX_THREADS};
use bgfast_core::Dice;
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyString};

use crate::errors::Error;

/// The integer value of `obj`: a Python int or anything with `__index__` (numpy integers),
/// not a bool. `Ok(None)` for an int too large for an `i128` (show it with [`shown`]);
/// `TypeError` naming `what` for anything else.
pub fn integer(obj: &Bound<'_, PyAny>, what: &str) -> Result<Option<i128>, Error> {
    let type_error = || {
        let type_name = obj
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "object".to_string());
        Error::Type(format!("{what} must be an integer, not {type_name}"))
    };
    if obj.is_instance_of::<PyBool>() {
        return Err(type_error());
    }
    match obj.extract::<i128>() {
        Ok(value) => Ok(Some(value)),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => Ok(None),
        Err(_) => Err(type_error()),
    }
}

/// `obj` as Python prints it, for messages that report a value as given: text quoted (the
/// die `'3'` is not the die 3). An int too long for `str` (Python refuses more than 4,300
/// digits) is shown by its size instead.
pub fn shown(obj: &Bound<'_, PyAny>) -> String {
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
        if let Ok(text) = obj.repr() {
            return text.to_string();
        }
    }
    if let Ok(text) = obj.str() {
        return text.to_string();
    }
    match obj
        .call_method0("bit_length")
        .and_then(|n| n.extract::<u64>())
    {
        Ok(bits) => format!("an int of {bits} bits"),
        Err(_) => type_name(obj),
    }
}

/// `"a list"`, `"a str"`: the type of `obj`, for messages.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    let name = obj.get_type().name().map(|n| n.to_string());
    format!("a {}", name.unwrap_or_default())
}

/// What `obj` is, for messages about arrays: `"a 2-dimensional array of dtype int64"`, or
/// its type when it is no array.
pub fn array_kind(obj: &Bound<'_, PyAny>) -> String {
    match obj.cast::<PyUntypedArray>() {
        Ok(a) => {
            let writeable = obj
                .getattr("flags")
                .and_then(|flags| flags.getattr("writeable"))
                .and_then(|w| w.extract::<bool>());
            let access = if matches!(writeable, Ok(false)) {
                "read-only "
            } else {
                ""
            };
            format!(
                "a {access}{}-dimensional array of dtype {}",
                a.ndim(),
                a.dtype()
            )
        }
        Err(_) => type_name(obj),
    }
}

/// The value of the integer argument `obj`, named `what` in errors, if it lies in `range`;
/// else `Error::Argument` naming the range and the value as given.
pub fn int_in<T: TryFrom<i128>>(
    obj: &Bound<'_, PyAny>,
    what: &str,
    range: RangeInclusive<i128>,
) -> Result<T, Error> {
    let out_of_range = || {
        Error::Argument(format!(
            "{what} must be from {} to {}, got {}",
            range.start(),
            range.end(),
            shown(obj)
        ))
    };
    let value = integer(obj, what)?.ok_or_else(out_of_range)?;
    if !range.contains(&value) {
        return Err(out_of_range());
    }
    T::try_from(value).map_err(|_| out_of_range())
}

/// An optional integer argument: `None` stays `None`.
pub fn opt_int_in<T: TryFrom<i128>>(
    obj: Option<&Bound<'_, PyAny>>,
    what: &str,
    range: RangeInclusive<i128>,
) -> Result<Option<T>, Error> {
    match obj {
        Some(obj) if !obj.is_none() => int_in(obj, what, range).map(Some),
        _ => Ok(None),
    }
}

/// A `threads=` argument: `None` for the default ([`threads::default_threads`]), else 1 to
/// [`MAX_THREADS`].
pub fn threads(obj: Option<&Bound<'_, PyAny>>) -> Result<usize, Error> {
    Ok(opt_int_in(obj, "threads", 1..=MAX_THREADS as i128)?
        .unwrap_or_else(threads::default_threads))
}

/// A `seed=` argument: any int from 0 to 2**64 - 1.
pub fn seed(obj: &Bound<'_, PyAny>) -> Result<u64, Error> {
    int_in(obj, "seed", 0..=u64::MAX as i128)
}

/// A roll as every entry point takes it (`Position.moves`, `Position.play`, `Game.roll`):
/// two dice given apart (`d1`, `d2`), or one pair in `d1` with `d2` absent (a tuple, a list
/// or a numpy array of two). Each die is an int (numpy's too) from 1 to 6; a bool, a float,
/// text or a third die is not a roll (R4). Returns the dice in the order given; anything
/// else is `InvalidDiceError` naming what was given.
pub fn roll(d1: &Bound<'_, PyAny>, d2: Option<&Bound<'_, PyAny>>) -> Result<(u8, u8), Error> {
    let die = |d: &Bound<'_, PyAny>| -> Option<u8> {
        // True == 1 in Python, but a bool is not a die.
        integer(d, "a die")
            .ok()
            .flatten()
            .and_then(|v| u8::try_from(v).ok())
            .filter(|v| (1..=6).contains(v))
    };
    let refused = |given: String| {
        Error::Dice(format!(
            "a roll is two dice from 1 to 6, given as two ints or one pair such as (3, 1); \
             got {given}"
        ))
    };
    if let Some(d2) = d2.filter(|d| !d.is_none()) {
        return match (die(d1), die(d2)) {
            (Some(a), Some(b)) => Ok((a, b)),
            _ => Err(refused(format!("{} and {}", shown(d1), shown(d2)))),
        };
    }
    let items: Option<Vec<Bound<'_, PyAny>>> =
        if d1.is_instance_of::<PyString>() || d1.is_instance_of::<PyBytes>() {
            None
        } else {
            d1.extract().ok()
        };
    // Each die as given (an int too long for text by its size).
    let listed = |items: &[Bound<'_, PyAny>]| {
        let shown: Vec<String> = items.iter().map(shown).collect();
        format!("({})", shown.join(", "))
    };
    match items.as_deref() {
        Some(pair @ [a, b]) => match (die(a), die(b)) {
            (Some(a), Some(b)) => Ok((a, b)),
            _ => Err(refused(listed(pair))),
        },
        Some(items) if !items.is_empty() && items.len() <= 6 => Err(refused(format!(
            "{} {}",
            dice_count(items.len()),
            listed(items)
        ))),
        Some(items) if !items.is_empty() => Err(refused(dice_count(items.len()))),
        _ => Err(refused(repr(d1))),
    }
}

/// "1 die", "3 dice".
fn dice_count(n: usize) -> String {
    format!("{n} {}", if n == 1 { "die" } else { "dice" })
}

/// The core's dice of [`roll`]: two dice given apart, or one pair.
pub fn dice_of(d1: &Bound<'_, PyAny>, d2: Option<&Bound<'_, PyAny>>) -> Result<Dice, Error> {
    let (a, b) = roll(d1, d2)?;
    Ok(Dice::from_pips(a, b).expect("both in 1..=6"))
}

/// The dice of two dice given apart (see [`roll`]).
pub fn dice_pair(d1: &Bound<'_, PyAny>, d2: &Bound<'_, PyAny>) -> Result<Dice, Error> {
    dice_of(d1, Some(d2))
}

/// The dice of one pair `(d1, d2)` (see [`roll`]).
pub fn dice(pair: &Bound<'_, PyAny>) -> Result<Dice, Error> {
    dice_of(pair, None)
}

/// `repr(obj)` for messages (`shown` for an int too long for text).
fn repr(obj: &Bound<'_, PyAny>) -> String {
    obj.repr()
        .map(|s| s.to_string())
        .unwrap_or_else(|_| shown(obj))
}

/// A Position ID's text without the ASCII whitespace around it: IDs read from file lines
/// or pasted from a terminal often carry a newline or spaces.
pub fn id_text(s: &Bound<'_, PyString>) -> Result<String, Error> {
    let given = text(s)?;
    let trimmed = given.trim_matches(|c: char| c.is_ascii_whitespace());
    Ok(if trimmed.len() == given.len() {
        given
    } else {
        trimmed.to_owned()
    })
}

/// The text of a Python str. A str may hold lone surrogates, which no Rust string can:
/// each becomes one U+FFFD, so that character positions in messages stay those of the
/// text given and the decoders name the character as not belonging there.
pub fn text(s: &Bound<'_, PyString>) -> Result<String, Error> {
    if let Ok(text) = s.to_str() {
        return Ok(text.to_owned());
    }
    let units = s.call_method1("encode", ("utf-16-le", "surrogatepass"))?;
    let bytes = units.cast::<PyBytes>().map_err(PyErr::from)?.as_bytes();
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
        .collect();
    Ok(String::from_utf16_lossy(&units))
}
