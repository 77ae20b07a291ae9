//! `Net`: native neural-net evaluation, numpy in and numpy out, the GIL released around
//! every loop over positions.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use bgfast_core::rows::ROW_BYTES;
use bgfast_core::threads::Runner;
use bgfast_core::{Dice, MoveList, Position};
use bgfast_engine::net::file::FileError;
use bgfast_engine::net::{onnx, Activation, Dense, Inputs, Mlp, Net, NetError, Phase, Scratch};
use bgfast_engine::Probabilities;
use numpy::ndarray::Array2;
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use rayon::prelude::*;

use crate::counts;
use crate::errors::Error;
use crate::moves::with_move_list;
use crate::position::{PyMove, PyPosition};
use crate::{alloc, args, detach};

/// A neural net that scores positions natively: a contact part, an optional race part and
/// an input encoding. Probabilities are GNU Backgammon's five for the side to move, about
/// to roll: win, win gammon, win backgammon, lose gammon, lose backgammon (gammons include
/// backgammons). The race part scores exactly the positions where contact is broken
/// (`Position.is_race`); a finished game is scored exactly.
#[pyclass(name = "Net", module = "bgfast", frozen)]
pub struct PyNet {
    pub(crate) net: Arc<Net>,
}

/// One position (a `Position` or a `(2, 25)` array) or many, and whether it was one.
fn positions_arg(obj: &Bound<'_, PyAny>) -> Result<(Positions, bool), Error> {
    if let Ok(p) = obj.cast::<PyPosition>() {
        return Ok((Positions::Valid(vec![p.get().inner]), true));
    }
    let ndim = obj.cast::<PyUntypedArray>().map(|a| a.ndim());
    if ndim.is_ok_and(|n| n == 2) {
        return Ok((Positions::Valid(vec![counts::position(obj)?]), true));
    }
    Ok((Positions::Rows(counts::rows(obj)?), false))
}

fn activation_from(name: &str, layer: usize) -> Result<Activation, Error> {
    Activation::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Activation::ALL.iter().map(|a| a.name()).collect();
        Error::Net(format!(
            "layer {layer}: unknown activation {name:?}; use one of {}",
            names.join(", ")
        ))
    })
}

/// Said with every shape error: the weights' layout is the usual source of one.
const W_SHAPE: &str = " (each W has shape (outputs, inputs), as torch.nn.Linear.weight)";

/// `obj` as a C-contiguous float array, if it holds real numbers (any integer, float or
/// bool dtype, or Python numbers): float32 for float32 and float16 (exact, and no copy of
/// float32 weights), float64 for the rest, so that a value beyond float32 can be named.
/// Complex numbers (whose imaginary part a cast would drop), dates, times and text are not
/// weights: the problem, said of the array, is the error.
fn real_array<'py>(obj: &Bound<'py, PyAny>) -> Result<Bound<'py, PyAny>, String> {
    let np = obj.py().import("numpy").map_err(|e| e.to_string())?;
    let array = np
        .call_method1("asarray", (obj,))
        .map_err(|e| format!("is not an array of numbers ({e})"))?;
    let dtype = array.getattr("dtype").map_err(|e| e.to_string())?;
    let kind: String = dtype
        .getattr("kind")
        .and_then(|k| k.extract())
        .map_err(|e| e.to_string())?;
    // "O": Python objects, which the cast below reads as numbers or refuses.
    if !matches!(kind.as_str(), "b" | "i" | "u" | "f" | "O") {
        return Err(format!(
            "holds {dtype} values, not real numbers",
            dtype = dtype.str().map(|s| s.to_string()).unwrap_or_default()
        ));
    }
    let size: usize = dtype
        .getattr("itemsize")
        .and_then(|k| k.extract())
        .map_err(|e| e.to_string())?;
    let float = if kind == "f" && size <= 4 {
        "float32"
    } else {
        "float64"
    };
    np.call_method1("ascontiguousarray", (array, float))
        .map_err(|e| format!("is not an array of numbers ({e})"))
}

/// The values of `array` (from [`real_array`]) as float32, in C order: see
/// [`float32_values`]. `name(i)` names the `i`-th value.
fn float32_of(array: &Bound<'_, PyAny>, name: impl Fn(usize) -> String) -> Result<Vec<f32>, Error> {
    let flat = array.call_method0("ravel").map_err(Error::Python)?;
    if let Ok(values) = flat.extract::<PyReadonlyArray1<'_, f32>>() {
        let mut out = alloc::vec_with_capacity(values.len())?;
        out.extend(values.as_array().iter().copied());
        return Ok(out);
    }
    let values: PyReadonlyArray1<'_, f64> = flat
        .extract()
        .map_err(|_| Error::Internal("real_array gives float32 or float64".into()))?;
    float32_values(values.as_array().iter().copied(), name)
}

/// The float32 weights of `values` (read as float64, so that a value too large for float32
/// is named as such rather than becoming an infinity); NaN and infinities pass through, for
/// `Dense::new` to refuse by their place. `name(i)` names the `i`-th value.
fn float32_values(
    values: impl ExactSizeIterator<Item = f64>,
    name: impl Fn(usize) -> String,
) -> Result<Vec<f32>, Error> {
    let mut out = alloc::vec_with_capacity(values.len())?;
    for (i, v) in values.enumerate() {
        // `as` rounds to nearest, and gives an infinity past float32's range.
        let narrow = v as f32;
        if v.is_finite() && !narrow.is_finite() {
            return Err(Error::Net(format!(
                "{} = {v:e} is beyond float32's range (at most {:e}), in which nets run",
                name(i),
                f32::MAX
            )));
        }
        out.push(narrow);
    }
    Ok(out)
}

/// One part from `[(W, b, activation), ...]`, `W` of shape `(outputs, inputs)`.
fn part_from(layers: &Bound<'_, PyAny>, part: &str) -> Result<Mlp, Error> {
    let in_part = |e: String| Error::Net(format!("{part} net: {e}"));
    let mut dense = Vec::new();
    for (k, item) in layers
        .try_iter()
        .map_err(|_| in_part("not a sequence of layers".into()))?
        .enumerate()
    {
        let item = item.map_err(Error::Python)?;
        let triple = item
            .cast::<PyTuple>()
            .ok()
            .filter(|t| t.len() == 3)
            .ok_or_else(|| in_part(format!("layer {k}: expected a tuple (W, b, activation)")))?;
        let float_array = |i: usize, what: &str| -> Result<Bound<'_, PyAny>, Error> {
            real_array(&triple.get_item(i).map_err(Error::Python)?)
                .map_err(|problem| in_part(format!("layer {k}: {what} {problem}")))
        };
        let w = float_array(0, "W")?;
        let b = float_array(1, "b")?;
        let shape = |a: &Bound<'_, PyAny>| {
            a.cast::<PyUntypedArray>()
                .map(|a| a.shape().to_vec())
                .unwrap_or_default()
        };
        let [outputs, inputs] = shape(&w)[..] else {
            return Err(in_part(format!(
                "layer {k}: W must be 2-dimensional, shape (outputs, inputs) as \
                 torch.nn.Linear.weight"
            )));
        };
        if shape(&b).len() != 1 {
            return Err(in_part(format!(
                "layer {k}: b must be 1-dimensional, shape (outputs,)"
            )));
        }
        let name: String = triple
            .get_item(2)
            .and_then(|a| a.extract())
            .map_err(|_| in_part(format!("layer {k}: the activation must be a str")))?;
        let in_layer = |e: Error| match e {
            Error::Net(m) => in_part(format!("layer {k}: {m}")),
            e => e,
        };
        let weights = float32_of(&w, |i| {
            format!("W[{}, {}]", i / inputs.max(1), i % inputs.max(1))
        })
        .map_err(in_layer)?;
        let bias = float32_of(&b, |i| format!("b[{i}]")).map_err(in_layer)?;
        let activation = activation_from(&name, k).map_err(|e| match e {
            Error::Net(m) => in_part(m),
            e => e,
        })?;
        dense.push(
            Dense::new(k, inputs, outputs, weights, bias, activation).map_err(|e| match e {
                NetError::Shape { .. } => in_part(format!("{e}{W_SHAPE}")),
                e => in_part(e.to_string()),
            })?,
        );
    }
    Mlp::new(dense).map_err(|e| in_part(e.to_string()))
}

/// The shipped net (wildbg's), shared by every caller of this process.
pub fn wildbg() -> Arc<Net> {
    static WILDBG: OnceLock<Arc<Net>> = OnceLock::new();
    WILDBG
        .get_or_init(|| Arc::new(Net::wildbg().clone()))
        .clone()
}

/// The larger shipped net (wildbg's training nets 12 and 16), shared by every caller.
pub fn wildbg_large() -> Arc<Net> {
    static LARGE: OnceLock<Arc<Net>> = OnceLock::new();
    LARGE
        .get_or_init(|| Arc::new(Net::wildbg_large().clone()))
        .clone()
}

/// The shipped net a policy name stands for: `"wildbg"` or `"wildbg-large"`.
pub fn named(name: &str) -> Option<Arc<Net>> {
    match name {
        "wildbg" => Some(wildbg()),
        "wildbg-large" => Some(wildbg_large()),
        _ => None,
    }
}

/// The error for a net that cannot be built or read: `MemoryError` when there is no
/// memory for its weights (the net's size comes from the caller), else `InvalidNetError`
/// with `message`.
fn net_error(out_of_memory: bool, message: String) -> Error {
    if out_of_memory {
        Error::Memory(message)
    } else {
        Error::Net(message)
    }
}

/// [`net_error`] of a net file that could not be read.
fn file_error(e: &FileError) -> Error {
    net_error(e.is_out_of_memory(), e.to_string())
}

/// A net file's error as `load` and `save` raise it: what the operating system refused
/// (a missing file or directory, no permission) as the `OSError` of its errno naming the
/// path, as `open` raises it (`FileNotFoundError`, `PermissionError`...); the rest as
/// [`file_error`] says.
fn path_error(path: &std::path::Path, e: &FileError) -> PyErr {
    match e {
        FileError::Io { path, source } => {
            if let Some(code) = source.raw_os_error() {
                let text = source.to_string();
                // "No such file or directory (os error 2)": Python's strerror has no suffix.
                let strerror = text.split(" (os error").next().unwrap_or(&text).to_owned();
                let filename = path.to_string_lossy().into_owned();
                return pyo3::exceptions::PyOSError::new_err((code, strerror, filename));
            }
            file_error(e).into() // its message names the path
        }
        // A file that is no net: say which, as the OS's errors do.
        _ => net_error(
            e.is_out_of_memory(),
            format!("net file {}: {e}", path.display()),
        )
        .into(),
    }
}

/// A net part from an ONNX file.
fn onnx_part(path: &Bound<'_, PyAny>, part: &str) -> Result<Mlp, Error> {
    let path: PathBuf = path.extract().map_err(|_| {
        Error::Type(format!(
            "the {part} net must be a path (str or os.PathLike)"
        ))
    })?;
    onnx::read_mlp_file(&path)
        .map_err(|e| net_error(e.is_out_of_memory(), format!("{part} net: {e}")))
}

fn inputs_from(name: &str) -> Result<Inputs, Error> {
    Inputs::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Inputs::ALL.iter().map(|i| i.name()).collect();
        Error::Net(format!(
            "unknown input encoding {name:?}; use one of {}",
            names.join(", ")
        ))
    })
}

/// A part as `[(W, b, activation), ...]`.
fn part_arrays<'py>(py: Python<'py>, part: &Mlp) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for layer in part.layers() {
        let w = Array2::from_shape_vec((layer.outputs(), layer.inputs()), layer.weights().to_vec())
            .map_err(|e| Error::Internal(e.to_string()))?;
        let b = layer.bias().to_vec().into_pyarray(py);
        list.append((w.into_pyarray(py), b, layer.activation().name()))?;
    }
    Ok(list)
}

fn shape_text(part: &Mlp) -> String {
    let mut widths = vec![part.inputs().to_string()];
    widths.extend(part.layers().iter().map(|l| l.outputs().to_string()));
    let activations: Vec<&str> = part
        .layers()
        .iter()
        .map(|l| l.activation().name())
        .collect();
    format!("{} {}", widths.join("-"), activations.join("/"))
}

/// The legal results of `position` for `dice` in `list`; refuses a finished game (R15).
fn generate(position: &Position, dice: Dice, list: &mut MoveList) -> Result<(), Error> {
    if position.outcome().is_some() {
        return Err(Error::GameOver(
            "the game is over: one side has borne off all 15 checkers (R15)".into(),
        ));
    }
    position.generate_moves(dice, list);
    Ok(())
}

/// Row `index`'s position checked (R1-R15: a playable position) and the number of results
/// of each of its 21 rolls.
fn count_all_rolls(row: &[u8; ROW_BYTES], index: usize) -> Result<[u32; 21], Error> {
    let position = counts::validate_row(row).map_err(|e| Error::Row(index, Box::new(e.into())))?;
    let mut sizes = [0u32; 21];
    with_move_list(|list| -> Result<(), Error> {
        for (size, dice) in sizes.iter_mut().zip(Dice::ALL_21) {
            generate(&position, dice, list).map_err(|e| Error::Row(index, Box::new(e)))?;
            *size = u32::try_from(list.len()).expect("at most 3,060 plays");
        }
        Ok(())
    })?;
    Ok(sizes)
}

/// Writes the probabilities of the results of all 21 rolls of a row that
/// [`count_all_rolls`] passed into `out`, five floats a result, in order.
fn score_all_rolls(net: &Net, row: &[u8; ROW_BYTES], out: &mut [f32]) -> Result<(), Error> {
    let position = counts::validate_row(row).map_err(|e| Error::Internal(e.to_string()))?;
    let mut scores: Vec<Probabilities> = Vec::new();
    let mut rest = out;
    with_move_list(|list| -> Result<(), Error> {
        for dice in Dice::ALL_21 {
            generate(&position, dice, list)?;
            // Reserved fallibly: no allocation may abort the interpreter.
            scores
                .try_reserve(list.len())
                .map_err(|_| alloc::out_of_memory(list.len(), size_of::<Probabilities>()))?;
            net.score_results(list, &mut scores);
            let (block, tail) = std::mem::take(&mut rest).split_at_mut(scores.len() * 5);
            for (five, p) in block.chunks_exact_mut(5).zip(&scores) {
                five.copy_from_slice(&p.to_array());
            }
            rest = tail;
        }
        Ok(())
    })
}

impl PyNet {
    fn probabilities_array<'py>(
        py: Python<'py>,
        probabilities: &[Probabilities],
    ) -> Bound<'py, PyArray2<f32>> {
        let flat: Vec<f32> = probabilities.iter().flat_map(|p| p.to_array()).collect();
        Array2::from_shape_vec((probabilities.len(), 5), flat)
            .expect("five values a position")
            .into_pyarray(py)
    }

    /// The probabilities of `positions` (one or many, as `evaluate` takes them) on
    /// `threads` threads, the GIL released, and whether one position was given.
    fn run(
        &self,
        py: Python<'_>,
        positions: &Bound<'_, PyAny>,
        threads: Option<&Bound<'_, PyAny>>,
    ) -> Result<(Vec<Probabilities>, bool), Error> {
        let threads = args::threads(threads)?;
        let (positions, single) = positions_arg(positions)?;
        let net = &self.net;
        let out = match positions {
            Positions::Valid(positions) => {
                let mut out = alloc::vec_filled(positions.len(), Probabilities::default())?;
                detach::batch(py, positions.len(), |cancel| {
                    // A slice at a time, so that Ctrl-C is seen between them.
                    let size = bgfast_core::threads::STOP_SLICE;
                    for (part, out) in positions.chunks(size).zip(out.chunks_mut(size)) {
                        if detach::stopping(cancel) {
                            return Err(Error::Interrupted);
                        }
                        net.evaluate_parallel(part, out, threads);
                    }
                    Ok(())
                })?;
                out
            }
            Positions::Rows(rows) => {
                let mut out = alloc::vec_filled(rows.0.len(), Probabilities::default())?;
                detach::batch(py, rows.0.len(), |cancel| {
                    evaluate_rows(net, &rows.0, &mut out, threads, cancel)
                })?;
                out
            }
        };
        Ok((out, single))
    }
}

/// Positions as `evaluate` reads them: validated already, or count rows still to validate
/// (on the pool, beside the evaluation: validating them first on one thread would leave
/// the second core idle for a quarter of the work).
enum Positions {
    Valid(Vec<Position>),
    Rows(counts::Rows),
}

/// Rows per unit of parallel work.
const CHUNK: usize = 512;

/// Validates and evaluates `rows` chunk by chunk on `threads` threads; the first invalid
/// row (the lowest index) is the error, whatever the thread count. Stops once `cancel` is
/// set (see `detach::batch`).
fn evaluate_rows(
    net: &Net,
    rows: &[[u8; ROW_BYTES]],
    out: &mut [Probabilities],
    threads: usize,
    cancel: &AtomicBool,
) -> Result<(), Error> {
    // Each worker reuses its buffers across chunks (a scratch is tens of kilobytes).
    let chunk = |buffers: &mut (Vec<Position>, Scratch),
                 k: usize,
                 rows: &[[u8; ROW_BYTES]],
                 out: &mut [Probabilities]| {
        if detach::stopping(cancel) {
            return Err(Error::Interrupted);
        }
        let (positions, scratch) = buffers;
        positions.clear();
        for (i, row) in rows.iter().enumerate() {
            let position = counts::validate_row(row)
                .map_err(|e| Error::Row(k * CHUNK + i, Box::new(e.into())))?;
            positions.push(position);
        }
        net.evaluate_with(positions, out, scratch);
        Ok(())
    };
    let buffers = || (Vec::with_capacity(CHUNK), Scratch::new());
    let serial = |out: &mut [Probabilities]| {
        let mut own = buffers();
        rows.chunks(CHUNK)
            .zip(out.chunks_mut(CHUNK))
            .enumerate()
            .try_for_each(|(k, (r, o))| chunk(&mut own, k, r, o))
    };
    if threads <= 1 || rows.len() <= CHUNK {
        return serial(out);
    }
    let parallel = |out: &mut [Probabilities]| {
        let results: Vec<Result<(), Error>> = rows
            .par_chunks(CHUNK)
            .zip(out.par_chunks_mut(CHUNK))
            .enumerate()
            .map_init(buffers, |own, (k, (r, o))| chunk(own, k, r, o))
            .collect();
        // In chunk order, so the first error is the lowest row's.
        results.into_iter().collect::<Result<(), _>>()
    };
    match bgfast_core::threads::install(threads, || parallel(&mut *out)) {
        Ok(result) => result,
        Err(_) => serial(out),
    }
}

#[pymethods]
impl PyNet {
    /// A net from numpy arrays: `contact` (and `race`, for positions where contact is
    /// broken) are lists of layers `(W, b, activation)`, `W` of shape `(outputs, inputs)`
    /// as `torch.nn.Linear.weight`, `b` of shape `(outputs,)`. Hidden activations: "tanh",
    /// "sigmoid", "relu", "hardsigmoid" (PyTorch's), "identity"; the last layer is a
    /// "softmax" over 6 exclusive outcomes (win single, gammon, backgammon, lose single,
    /// gammon, backgammon) or a "sigmoid" of gnubg's 5 probabilities. `inputs` names the
    /// encoding ("wildbg": 202 contact and 186 race inputs; "board": the 50 raw counts).
    /// Weights are real numbers of any integer, float or bool dtype, run as float32.
    /// Raises `InvalidNetError` naming the layer and what is wrong (complex, date or text
    /// weights, a value beyond float32), `MemoryError` if there is no memory for the net.
    #[staticmethod]
    #[pyo3(signature = (contact, race = None, inputs = "wildbg"))]
    fn from_arrays(
        contact: &Bound<'_, PyAny>,
        race: Option<&Bound<'_, PyAny>>,
        inputs: &str,
    ) -> PyResult<PyNet> {
        let inputs = inputs_from(inputs)?;
        let contact = part_from(contact, "contact")?;
        let race = race.map(|r| part_from(r, "race")).transpose()?;
        let net = Net::new(inputs, contact, race).map_err(|e| match e {
            e if e.is_out_of_memory() => net_error(true, e.to_string()),
            e => Error::Net(format!("{e}{W_SHAPE}")),
        })?;
        Ok(PyNet { net: Arc::new(net) })
    }

    /// The shipped net: wildbg's contact (202-150-6) and race (186-16-6) nets, MIT OR
    /// Apache-2.0, Copyright (c) 2023 Carsten Wenderdel. One object shared by every call.
    #[staticmethod]
    fn wildbg() -> PyNet {
        PyNet { net: wildbg() }
    }

    /// wildbg's larger training nets: contact net 17 (202-300-250-200-6, hard sigmoid) and
    /// race net 16 (186-300-250-200-6, ReLU), CC0 (Carsten Wenderdel). About 0.45 points a
    /// game stronger than `Net.wildbg()` in cubeless money play, about ten times its cost per
    /// position. One object shared by every call.
    #[staticmethod]
    fn wildbg_large() -> PyNet {
        PyNet {
            net: wildbg_large(),
        }
    }

    /// A net from ONNX files (paths): `contact`, and `race` for positions where contact is
    /// broken. Dense graphs only: `Gemm` (or `MatMul` + `Add`) layers with tanh, sigmoid,
    /// relu or PyTorch's hard sigmoid, and a softmax over 6 outcomes or 5 sigmoids at the
    /// end; any widths. `inputs` names the encoding; `None` infers it from the contact net's
    /// width (202: "wildbg", 50: "board"). Raises `InvalidNetError` naming the node or tensor
    /// bgfast cannot run.
    #[staticmethod]
    #[pyo3(signature = (contact, race = None, inputs = None))]
    fn from_onnx(
        contact: &Bound<'_, PyAny>,
        race: Option<&Bound<'_, PyAny>>,
        inputs: Option<&str>,
    ) -> PyResult<PyNet> {
        let contact = onnx_part(contact, "contact")?;
        let race = race.map(|r| onnx_part(r, "race")).transpose()?;
        let inputs = match inputs {
            Some(name) => inputs_from(name)?,
            None => Inputs::ALL
                .into_iter()
                .find(|i| i.width(Phase::Contact) == contact.inputs())
                .ok_or_else(|| {
                    Error::Net(format!(
                        "the contact net takes {} inputs, which no encoding gives (wildbg: 202, \
                         board: 50); pass inputs=",
                        contact.inputs()
                    ))
                })?,
        };
        let net = Net::new(inputs, contact, race)
            .map_err(|e| net_error(e.is_out_of_memory(), e.to_string()))?;
        Ok(PyNet { net: Arc::new(net) })
    }

    /// Writes the net to `path` in bgfast's own file format (versioned, checksummed),
    /// atomically: a reader sees the old file or the new one, never half of it. A path the
    /// system refuses (a missing directory, no permission) raises its `OSError`, as `open`
    /// would.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let net = &self.net;
        py.detach(|| net.save(&path))
            .map_err(|e| path_error(&path, &e))
    }

    /// A net saved by `save`. Raises `InvalidNetError` for a file that is not a bgfast net,
    /// from another format version, damaged (checksum) or truncated, or that is no regular
    /// file; the `OSError` of a file the system cannot open, as `open` raises it
    /// (`FileNotFoundError` for a missing one); `MemoryError` if there is no memory for
    /// the net it holds.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<PyNet> {
        let net = py
            .detach(|| Net::load(&path))
            .map_err(|e| path_error(&path, &e))?;
        Ok(PyNet { net: Arc::new(net) })
    }

    /// The net in bgfast's file format, as bytes (what `save` writes).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, pyo3::types::PyBytes> {
        pyo3::types::PyBytes::new(py, &self.net.to_bytes())
    }

    /// A net from `to_bytes`'s bytes, checked as `load` checks a file.
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<PyNet> {
        let net = Net::from_bytes(data).map_err(|e| file_error(&e))?;
        Ok(PyNet { net: Arc::new(net) })
    }

    /// Pickles as its file bytes (for executors and process pools).
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, pyo3::types::PyBytes>,))> {
        let from_bytes = slf.get_type().getattr("from_bytes")?;
        Ok((from_bytes, (slf.get().to_bytes(slf.py()),)))
    }

    /// Whether two nets have the same encoding and the same weights, bit for bit.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyNet>()
            .is_ok_and(|o| *o.get().net == *self.net)
    }

    /// A hash of the weights, consistent with `==`.
    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.net.to_bytes().hash(&mut h);
        h.finish()
    }

    /// The layers as `from_arrays` takes them: `{"inputs": str, "contact": [(W, b,
    /// activation), ...], "race": [...] or None}`, copies of the weights.
    fn to_arrays<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let dict = pyo3::types::PyDict::new(py);
        dict.set_item("inputs", self.net.inputs().name())?;
        dict.set_item("contact", part_arrays(py, self.net.contact())?)?;
        match self.net.race() {
            Some(race) => dict.set_item("race", part_arrays(py, race)?)?,
            None => dict.set_item("race", py.None())?,
        }
        Ok(dict)
    }

    /// The input encoding's name.
    #[getter]
    fn inputs(&self) -> &'static str {
        self.net.inputs().name()
    }

    /// The probabilities of one position, `(5,)` float32, or of many (`(N, 2, 25)` counts
    /// of any integer dtype, or a sequence of `Position`), `(N, 5)`. `threads=None` uses
    /// every core. Releases the GIL; Ctrl-C stops it.
    #[pyo3(signature = (positions, threads = None))]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        positions: &Bound<'py, PyAny>,
        threads: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (out, single) = self.run(py, positions, threads)?;
        let array = Self::probabilities_array(py, &out);
        Ok(if single {
            array.get_item(0)?
        } else {
            array.into_any()
        })
    }

    /// Cubeless equities `2 win - 1 + wg + wbg - lg - lbg` for the side to move: a float
    /// for one position, `(N,)` float32 for many. Releases the GIL; Ctrl-C stops it.
    #[pyo3(signature = (positions, threads = None))]
    fn equity<'py>(
        &self,
        py: Python<'py>,
        positions: &Bound<'py, PyAny>,
        threads: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (out, single) = self.run(py, positions, threads)?;
        let equities: Vec<f32> = out.iter().map(Probabilities::equity).collect();
        Ok(if single {
            equities[0].into_pyobject(py)?.into_any()
        } else {
            PyArray1::from_vec(py, equities).into_any()
        })
    }

    /// Every legal play of `position` for `dice`, best first: `[(Move, probabilities (5,),
    /// equity)]`, the probabilities and cubeless equity of the result for the side that
    /// moves. Equal equities keep move-generation order. Raises `GameOverError` for a
    /// finished game. `bgfast.hint` ranks the same plays at the stakes (the cube, the match
    /// score).
    fn rank<'py>(
        &self,
        py: Python<'py>,
        position: PyRef<'py, PyPosition>,
        dice: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let dice = args::dice(dice)?;
        let origin = position.inner;
        let net = &self.net;
        let ranked = with_move_list(|list| -> Result<_, Error> {
            generate(&origin, dice, list)?;
            let ranked = py.detach(|| net.rank(list));
            Ok(ranked
                .into_iter()
                .map(|(i, p)| {
                    let mv = PyMove {
                        origin,
                        mv: list.compact(i).mv(&origin, dice),
                        result: list.result(i),
                    };
                    (mv, p)
                })
                .collect::<Vec<_>>())
        })?;
        let out = PyList::empty(py);
        for (mv, p) in ranked {
            let probabilities = PyArray1::from_slice(py, &p.to_array());
            out.append((mv, probabilities, p.equity()))?;
        }
        Ok(out)
    }

    /// The probabilities of every legal result of all 21 rolls of each position (`(N, 2,
    /// 25)` counts, the side to move about to roll), for the side to move in the result:
    /// `(offsets, probabilities)`, int64 `(21 N + 1,)` and float32 `(M, 5)`. Block `21 i + k`
    /// is position `i` with the `k`-th roll of `bgfast.batch.all_rolls` (the 15 non-doubles,
    /// then the doubles), its results in that function's order at
    /// `probabilities[offsets[b]:offsets[b + 1]]`: the numbers of
    /// `evaluate(batch.all_rolls(positions)[1])`, scored from each roll's origin as
    /// `best_move` scores plays (the first layer updated play by play; float rounding may
    /// differ in the last place). For the luck of a roll and the plays of a match. The
    /// output is the same on any thread count; releases the GIL, and Ctrl-C stops it. One
    /// position (a `Position` or one `(2, 25)` array), as `evaluate` takes it, is a batch
    /// of one: `offsets` of shape `(22,)`.
    #[pyo3(signature = (positions, threads = None))]
    #[allow(clippy::type_complexity)]
    fn score_rolls<'py>(
        &self,
        py: Python<'py>,
        positions: &Bound<'py, PyAny>,
        threads: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray2<f32>>)> {
        let runner = Runner::new(args::threads(threads)?).map_err(Error::from)?;
        let board = positions
            .cast::<PyUntypedArray>()
            .is_ok_and(|a| a.ndim() == 2);
        if board {
            // Checked as `evaluate` checks one position: its errors name the (2, 25) shape.
            counts::position(positions)?;
        }
        let one = board || positions.cast::<PyPosition>().is_ok();
        let rows = if one {
            counts::rows(PyList::new(py, [positions])?.as_any())?
        } else {
            counts::rows(positions)?
        };
        let n = rows.0.len();
        let net = &self.net;
        let blocks = n.saturating_mul(21);
        // About 16 results a roll to evaluate: the work detach::batch weighs.
        let evaluations = blocks.saturating_mul(16);
        let (offsets, flat) = detach::batch(py, evaluations, |cancel| {
            runner.run_for(blocks, || -> Result<_, Error> {
                // Two passes: the results counted first (each row checked), then one buffer
                // for all their probabilities, allocated before any evaluation and written
                // in place. A batch too large for memory is refused before the work, and
                // no allocation can fail, and abort, while the rows are scored.
                let sizes = runner.try_map(n, |i| {
                    if detach::stopping(cancel) {
                        return Err(Error::Interrupted);
                    }
                    count_all_rolls(&rows.0[i], i)
                })?;
                let mut offsets: Vec<i64> = alloc::vec_with_capacity(blocks + 1)?;
                offsets.push(0);
                let mut end = 0i64;
                for size in sizes.iter().flatten() {
                    end += i64::from(*size);
                    offsets.push(end);
                }
                let total = usize::try_from(end).expect("results of rows in memory");
                let mut flat = alloc::matrix(total, 5)?;
                let mut slices: Vec<(usize, &mut [f32])> = alloc::vec_with_capacity(n)?;
                let mut rest = flat.as_mut_slice();
                for (i, row) in sizes.iter().enumerate() {
                    let len = row.iter().map(|&k| k as usize).sum::<usize>() * 5;
                    let (slice, tail) = std::mem::take(&mut rest).split_at_mut(len);
                    slices.push((i, slice));
                    rest = tail;
                }
                let score = |(i, out): (usize, &mut [f32])| {
                    if detach::stopping(cancel) {
                        return Err(Error::Interrupted);
                    }
                    score_all_rolls(net, &rows.0[i], out)
                };
                if runner.parallel(n) {
                    runner.run(|| {
                        let min_task = runner.min_task();
                        slices
                            .into_par_iter()
                            .with_min_len(min_task)
                            .try_for_each(score)
                    })?;
                } else {
                    slices.into_iter().try_for_each(score)?;
                }
                Ok((offsets, flat))
            })
        })?;
        let total = flat.len() / 5;
        let probabilities =
            Array2::from_shape_vec((total, 5), flat).map_err(|e| Error::Internal(e.to_string()))?;
        Ok((offsets.into_pyarray(py), probabilities.into_pyarray(py)))
    }

    /// The play `rank` puts first: the one whose result is worst for the opponent by this
    /// net (the first in move-generation order among equals).
    fn best_move(
        &self,
        position: PyRef<'_, PyPosition>,
        dice: &Bound<'_, PyAny>,
    ) -> PyResult<PyMove> {
        let dice = args::dice(dice)?;
        let origin = position.inner;
        let net = &self.net;
        Ok(with_move_list(|list| -> Result<_, Error> {
            generate(&origin, dice, list)?;
            // A forced play needs no evaluation; generate refuses a finished game.
            let best = if list.len() == 1 {
                Some(0)
            } else {
                net.best(list)
            };
            let i = best.ok_or_else(|| Error::Internal("no result to choose".into()))?;
            Ok(PyMove {
                origin,
                mv: list.compact(i).mv(&origin, dice),
                result: list.result(i),
            })
        })?)
    }

    fn __repr__(&self) -> String {
        let race = match self.net.race() {
            Some(race) => format!("race {}", shape_text(race)),
            None => "no race net".into(),
        };
        format!(
            "<bgfast.Net inputs={:?}: contact {}, {race}>",
            self.net.inputs().name(),
            shape_text(self.net.contact())
        )
    }
}
