//! Reading dense nets from ONNX files (a minimal protobuf reader, no onnx at run time).
//!
//! ONNX files are protobuf messages (`onnx.proto`). This module reads the protobuf wire
//! format itself (varints, fixed32/64, length-delimited fields; unknown fields skipped) and
//! only the fields a dense net needs:
//!
//! | message | fields read |
//! |---|---|
//! | `ModelProto` | `graph` (7) |
//! | `GraphProto` | `node` (1), `initializer` (5), `input` (11), `output` (12); `sparse_initializer` (15) is refused |
//! | `NodeProto` | `input` (1), `output` (2), `op_type` (4), `attribute` (5), `domain` (7) |
//! | `AttributeProto` | `name` (1), `f` (2), `i` (3), `type` (20); any other value field marks it unreadable |
//! | `TensorProto` | `dims` (1), `data_type` (2), `float_data` (4, packed or not), `name` (8), `raw_data` (9); `segment` (3), `external_data` (13) and `data_location` (14) = external are refused |
//! | `ValueInfoProto` | `name` (1) |
//!
//! The reader descends only into those messages, a fixed depth of four, so no nesting can
//! exhaust the stack; every length is checked against the bytes left before it is used,
//! and what is kept is borrowed from the input or bounded by its size.
//!
//! The graph must be a chain from its one input (the graph inputs that are not
//! initializers) to its one output, each layer
//!
//! - `Gemm` (`transA = 0`, `transB` 0 or 1, `alpha` and `beta` folded into the weights and
//!   bias; the bias `C` absent, `[outputs]` or `[1, outputs]`), or `MatMul` optionally
//!   followed by `Add` of a bias, with their weights and biases as initializers;
//! - then optionally `Tanh`, `Sigmoid`, `Relu` or `HardSigmoid` (PyTorch's: `alpha` 1/6,
//!   `beta` 0.5), and for the last layer `Softmax` (axis 1 or -1) or `Sigmoid`, as
//!   [`Mlp::new`] requires.
//!
//! `Flatten` (axis 1) and `Identity` pass their input on. Tensors must be FLOAT (data type
//! 1) with their data in the file.

use core::fmt;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use super::file::read_capped;
use super::mlp::{MAX_WEIGHTS, MAX_WIDTH};
use super::{Activation, Dense, Mlp, NetError};

/// The longest file [`read_mlp_file`] reads (1 GiB): longer is refused before reading.
pub const MAX_FILE_LEN: u64 = 1 << 30;

/// The most entries (nodes, tensors, graph inputs and outputs, node inputs, outputs and
/// attributes, tensor dims) a file may hold. Each takes as little as two bytes of the file
/// but up to about 100 in memory, so without a cap a 1 GiB file of empty nodes would need
/// some 50 GiB; a dense net needs a few dozen.
pub const MAX_ENTRIES: usize = 1 << 20;

/// What the reader runs, for error messages about anything else.
const SUPPORTED: &str = "bgfast runs dense Gemm/MatMul+Add graphs with tanh, sigmoid, relu, \
     hard sigmoid and a softmax or sigmoid head";

/// Why ONNX bytes are not a dense net bgfast can run.
#[derive(Debug)]
pub enum OnnxError {
    /// The bytes are not well-formed protobuf.
    Protobuf {
        /// Where, in bytes from the start of the file.
        offset: usize,
        /// What is wrong.
        problem: String,
    },
    /// The graph is not a chain bgfast reads (inputs, outputs, links between nodes).
    Graph(String),
    /// A node bgfast cannot run, or cannot run where it is.
    Unsupported {
        /// The node, from 0 in the graph's order.
        node: usize,
        /// Its `op_type`.
        op: String,
        /// What is wrong.
        problem: String,
    },
    /// A weight or bias tensor bgfast cannot use.
    Tensor {
        /// The tensor's name.
        name: String,
        /// What is wrong.
        problem: String,
    },
    /// The layers were read but do not make a net.
    Invalid(NetError),
    /// Reading `path` failed (also: not a regular file, or too large).
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: io::Error,
    },
}

impl OnnxError {
    /// Whether the file was refused for want of memory (to read it or to hold its net),
    /// not for what it holds.
    pub fn is_out_of_memory(&self) -> bool {
        match self {
            OnnxError::Invalid(e) => e.is_out_of_memory(),
            OnnxError::Io { source, .. } => source.kind() == io::ErrorKind::OutOfMemory,
            _ => false,
        }
    }
}

impl fmt::Display for OnnxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OnnxError::Protobuf { offset, problem } => {
                write!(f, "not a readable ONNX file (byte {offset}): {problem}")
            }
            OnnxError::Graph(problem) => write!(f, "ONNX graph: {problem}"),
            OnnxError::Unsupported { node, op, problem } => {
                write!(f, "node {node} '{op}': {problem}")
            }
            OnnxError::Tensor { name, problem } => write!(f, "tensor '{name}': {problem}"),
            OnnxError::Invalid(e @ NetError::OutOfMemory { .. }) => write!(f, "{e}"),
            OnnxError::Invalid(e) => write!(f, "bad net: {e}"),
            OnnxError::Io { path, source } => {
                write!(f, "I/O error on {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for OnnxError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OnnxError::Invalid(e) => Some(e),
            OnnxError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<NetError> for OnnxError {
    fn from(e: NetError) -> OnnxError {
        OnnxError::Invalid(e)
    }
}

/// Reads the dense net in ONNX `bytes`.
pub fn read_mlp(bytes: &[u8]) -> Result<Mlp, OnnxError> {
    let graph = read_model(bytes)?;
    // Layers naming their own tensors hold at most the floats the file does; only layers
    // sharing one could hold more.
    let max_weights = MAX_WEIGHTS.max(bytes.len() / 4);
    chain(&graph, max_weights)
}

/// Reads the dense net in the ONNX file at `path`: only a regular file of at most
/// [`MAX_FILE_LEN`] bytes, the size checked before it is read.
pub fn read_mlp_file(path: &Path) -> Result<Mlp, OnnxError> {
    let bytes = read_capped(path, MAX_FILE_LEN).map_err(|source| OnnxError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    read_mlp(&bytes)
}

// ---------------------------------------------------------------------------------------
// The protobuf wire format.

/// A field's value, by wire type.
#[derive(Clone, Copy)]
enum Value<'a> {
    Varint(u64),
    Fixed64,
    Bytes(&'a [u8]),
    Fixed32(u32),
}

/// One field of a message: its number, its value, and where the value starts in the file
/// (for a length-delimited value, its first byte after the length).
struct Field<'a> {
    number: u64,
    value: Value<'a>,
    at: usize,
}

/// The fields of one message, in order.
struct Wire<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// The offset of `bytes` in the file, for error messages.
    base: usize,
}

fn protobuf(offset: usize, problem: impl Into<String>) -> OnnxError {
    OnnxError::Protobuf {
        offset,
        problem: problem.into(),
    }
}

impl<'a> Wire<'a> {
    fn new(bytes: &'a [u8]) -> Wire<'a> {
        Wire {
            bytes,
            pos: 0,
            base: 0,
        }
    }

    /// The fields of the message held in `field`.
    fn nested(field: &Field<'a>, bytes: &'a [u8]) -> Wire<'a> {
        Wire {
            bytes,
            pos: 0,
            base: field.at,
        }
    }

    fn error(&self, problem: impl Into<String>) -> OnnxError {
        protobuf(self.base + self.pos, problem)
    }

    fn varint(&mut self) -> Result<u64, OnnxError> {
        let mut value = 0u64;
        for k in 0..10 {
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(self.error("the data ends inside a number"));
            };
            // The tenth byte holds the 64th bit only.
            if k == 9 && b > 1 {
                return Err(self.error("a number longer than 64 bits"));
            }
            self.pos += 1;
            value |= u64::from(b & 0x7f) << (7 * k);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        // Unreachable: the tenth byte either ends the number or is refused above.
        Err(self.error("a number longer than 64 bits"))
    }

    fn take(&mut self, n: u64) -> Result<&'a [u8], OnnxError> {
        let left = self.bytes.len() - self.pos;
        if n > left as u64 {
            return Err(self.error(format!("a field claims {n} bytes, {left} are left")));
        }
        let out = &self.bytes[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(out)
    }

    /// The next field, `None` at the end of the message.
    fn next(&mut self) -> Result<Option<Field<'a>>, OnnxError> {
        if self.pos == self.bytes.len() {
            return Ok(None);
        }
        // Errors in the tag are reported where the field starts.
        let field_at = self.base + self.pos;
        let tag = self.varint()?;
        let number = tag >> 3;
        if number == 0 || number > (1 << 29) - 1 {
            return Err(protobuf(
                field_at,
                format!("field number {number} is out of range"),
            ));
        }
        let mut at = self.base + self.pos;
        let value = match tag & 7 {
            0 => Value::Varint(self.varint()?),
            1 => {
                self.take(8)?;
                Value::Fixed64
            }
            2 => {
                let len = self.varint()?;
                // A nested message's offsets count from its first byte, after the length.
                at = self.base + self.pos;
                Value::Bytes(self.take(len)?)
            }
            5 => {
                let b = self.take(4)?;
                Value::Fixed32(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
            3 | 4 => {
                return Err(protobuf(
                    field_at,
                    "protobuf groups (wire types 3, 4) are not ONNX",
                ))
            }
            t => return Err(protobuf(field_at, format!("wire type {t} does not exist"))),
        };
        Ok(Some(Field { number, value, at }))
    }
}

impl<'a> Field<'a> {
    fn mismatch(&self, message: &str, expected: &str) -> OnnxError {
        protobuf(
            self.at,
            format!("{message} field {} is not {expected}", self.number),
        )
    }

    fn bytes(&self, message: &str) -> Result<&'a [u8], OnnxError> {
        match self.value {
            Value::Bytes(b) => Ok(b),
            _ => Err(self.mismatch(message, "length-delimited")),
        }
    }

    fn message(&self, message: &str) -> Result<Wire<'a>, OnnxError> {
        Ok(Wire::nested(self, self.bytes(message)?))
    }

    fn string(&self, message: &str) -> Result<&'a str, OnnxError> {
        core::str::from_utf8(self.bytes(message)?).map_err(|_| {
            protobuf(
                self.at,
                format!("{message} field {}: not UTF-8", self.number),
            )
        })
    }

    fn varint(&self, message: &str) -> Result<u64, OnnxError> {
        match self.value {
            Value::Varint(v) => Ok(v),
            _ => Err(self.mismatch(message, "a varint")),
        }
    }

    fn fixed32(&self, message: &str) -> Result<u32, OnnxError> {
        match self.value {
            Value::Fixed32(v) => Ok(v),
            _ => Err(self.mismatch(message, "a fixed32")),
        }
    }
}

// ---------------------------------------------------------------------------------------
// The messages bgfast reads.

struct Graph<'a> {
    nodes: Vec<Node<'a>>,
    initializers: Vec<Tensor<'a>>,
    inputs: Vec<&'a str>,
    outputs: Vec<&'a str>,
}

struct Node<'a> {
    inputs: Vec<&'a str>,
    outputs: Vec<&'a str>,
    op: &'a str,
    domain: &'a str,
    attributes: Vec<Attribute<'a>>,
}

struct Attribute<'a> {
    name: &'a str,
    /// `AttributeType`: 1 FLOAT, 2 INT, others unreadable here.
    kind: Option<u64>,
    f: Option<f32>,
    i: Option<i64>,
    /// A value bgfast does not read (a string, a tensor, a list...).
    other: bool,
}

struct Tensor<'a> {
    name: &'a str,
    dims: Vec<u64>,
    data_type: Option<u64>,
    float_data: Vec<f32>,
    raw_data: Option<&'a [u8]>,
    /// Data stored outside the file, or split in segments.
    elsewhere: Option<&'static str>,
}

/// The entries read so far, against [`MAX_ENTRIES`].
#[derive(Default)]
struct Entries(usize);

impl Entries {
    /// Counts one more entry, or refuses the file if it holds too many.
    fn add(&mut self) -> Result<(), OnnxError> {
        self.0 += 1;
        if self.0 > MAX_ENTRIES {
            return Err(OnnxError::Graph(format!(
                "the file holds more than {MAX_ENTRIES} entries (nodes, tensors, names, \
                 attributes, dims); {SUPPORTED}"
            )));
        }
        Ok(())
    }
}

fn read_model(bytes: &[u8]) -> Result<Graph<'_>, OnnxError> {
    let mut wire = Wire::new(bytes);
    let mut entries = Entries::default();
    let mut graph = None;
    while let Some(field) = wire.next()? {
        if field.number == 7 {
            if graph.is_some() {
                return Err(protobuf(field.at, "the model holds two graphs"));
            }
            graph = Some(read_graph(field.message("ModelProto")?, &mut entries)?);
        }
    }
    graph.ok_or_else(|| OnnxError::Graph("the file holds no graph".into()))
}

fn read_graph<'a>(mut wire: Wire<'a>, entries: &mut Entries) -> Result<Graph<'a>, OnnxError> {
    let mut graph = Graph {
        nodes: Vec::new(),
        initializers: Vec::new(),
        inputs: Vec::new(),
        outputs: Vec::new(),
    };
    const M: &str = "GraphProto";
    while let Some(field) = wire.next()? {
        if matches!(field.number, 1 | 5 | 11 | 12) {
            entries.add()?;
        }
        match field.number {
            1 => graph.nodes.push(read_node(field.message(M)?, entries)?),
            5 => graph
                .initializers
                .push(read_tensor(field.message(M)?, entries)?),
            11 => graph.inputs.push(read_value_name(field.message(M)?)?),
            12 => graph.outputs.push(read_value_name(field.message(M)?)?),
            15 => {
                return Err(OnnxError::Graph(
                    "sparse initializers are not supported; store the weights dense".into(),
                ))
            }
            _ => {}
        }
    }
    Ok(graph)
}

fn read_value_name(mut wire: Wire<'_>) -> Result<&str, OnnxError> {
    let mut name = "";
    while let Some(field) = wire.next()? {
        if field.number == 1 {
            name = field.string("ValueInfoProto")?;
        }
    }
    Ok(name)
}

fn read_node<'a>(mut wire: Wire<'a>, entries: &mut Entries) -> Result<Node<'a>, OnnxError> {
    let mut node = Node {
        inputs: Vec::new(),
        outputs: Vec::new(),
        op: "",
        domain: "",
        attributes: Vec::new(),
    };
    const M: &str = "NodeProto";
    while let Some(field) = wire.next()? {
        if matches!(field.number, 1 | 2 | 5) {
            entries.add()?;
        }
        match field.number {
            1 => node.inputs.push(field.string(M)?),
            2 => node.outputs.push(field.string(M)?),
            4 => node.op = field.string(M)?,
            5 => node.attributes.push(read_attribute(field.message(M)?)?),
            7 => node.domain = field.string(M)?,
            _ => {}
        }
    }
    Ok(node)
}

fn read_attribute(mut wire: Wire<'_>) -> Result<Attribute<'_>, OnnxError> {
    let mut a = Attribute {
        name: "",
        kind: None,
        f: None,
        i: None,
        other: false,
    };
    const M: &str = "AttributeProto";
    while let Some(field) = wire.next()? {
        match field.number {
            1 => a.name = field.string(M)?,
            2 => a.f = Some(f32::from_bits(field.fixed32(M)?)),
            // int64 on the wire: the varint's bits are the two's complement.
            3 => a.i = Some(field.varint(M)? as i64),
            20 => a.kind = Some(field.varint(M)?),
            // s, t, g, floats, ints, strings, tensors, graphs, sparse tensors, type protos.
            4..=11 | 14 | 15 | 22 | 23 => a.other = true,
            _ => {}
        }
    }
    Ok(a)
}

fn read_tensor<'a>(mut wire: Wire<'a>, entries: &mut Entries) -> Result<Tensor<'a>, OnnxError> {
    let mut t = Tensor {
        name: "",
        dims: Vec::new(),
        data_type: None,
        float_data: Vec::new(),
        raw_data: None,
        elsewhere: None,
    };
    const M: &str = "TensorProto";
    while let Some(field) = wire.next()? {
        match (field.number, field.value) {
            // dims: int64, unpacked (proto2's default) or packed.
            (1, Value::Varint(v)) => {
                entries.add()?;
                t.dims.push(v);
            }
            (1, Value::Bytes(b)) => {
                let mut packed = Wire::nested(&field, b);
                while packed.pos < b.len() {
                    entries.add()?;
                    t.dims.push(packed.varint()?);
                }
            }
            (1, _) => return Err(field.mismatch(M, "a varint or packed varints")),
            (2, _) => t.data_type = Some(field.varint(M)?),
            (3, _) => t.elsewhere = Some("is split in segments"),
            // float_data: packed (as onnx.proto declares it) or not.
            (4, Value::Fixed32(v)) => t.float_data.push(f32::from_bits(v)),
            (4, Value::Bytes(b)) => {
                if b.len() % 4 != 0 {
                    return Err(protobuf(field.at, "packed float_data is not whole floats"));
                }
                t.float_data
                    .try_reserve(b.len() / 4)
                    .map_err(|_| NetError::OutOfMemory { bytes: b.len() })?;
                t.float_data.extend(
                    b.chunks_exact(4)
                        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                );
            }
            (4, _) => return Err(field.mismatch(M, "floats")),
            (8, _) => t.name = field.string(M)?,
            (9, _) => t.raw_data = Some(field.bytes(M)?),
            (13, _) => t.elsewhere = Some("keeps its data in an external file"),
            // DataLocation EXTERNAL = 1.
            (14, _) if field.varint(M)? == 1 => {
                t.elsewhere = Some("keeps its data in an external file")
            }
            _ => {}
        }
    }
    Ok(t)
}

impl Tensor<'_> {
    fn error(&self, problem: impl Into<String>) -> OnnxError {
        OnnxError::Tensor {
            name: self.name.to_string(),
            problem: problem.into(),
        }
    }

    /// Its shape, as `[2, 3]`.
    fn shape(&self) -> String {
        format!("{:?}", self.dims)
    }

    /// The values, in row-major order, checked against the shape.
    fn floats(&self) -> Result<Vec<f32>, OnnxError> {
        if let Some(problem) = self.elsewhere {
            return Err(self.error(format!("{problem}; bgfast reads weights held in the file")));
        }
        match self.data_type {
            Some(1) => {}
            Some(t) => {
                return Err(self.error(format!(
                    "data type {t}; bgfast reads FLOAT (1) tensors only"
                )))
            }
            None => return Err(self.error("no data type")),
        }
        let count = self
            .dims
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d))
            .ok_or_else(|| self.error(format!("shape {} is too large", self.shape())))?;
        let values = match self.raw_data {
            Some(raw) if self.float_data.is_empty() => {
                if raw.len() as u64 != count.saturating_mul(4) {
                    return Err(self.error(format!(
                        "shape {} but {} bytes of raw data",
                        self.shape(),
                        raw.len()
                    )));
                }
                let mut values = floats_with_capacity(raw.len() / 4)?;
                values.extend(
                    raw.chunks_exact(4)
                        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                );
                values
            }
            Some(_) => return Err(self.error("holds both raw_data and float_data")),
            None => {
                if self.float_data.len() as u64 != count {
                    return Err(self.error(format!(
                        "shape {} but {} floats",
                        self.shape(),
                        self.float_data.len()
                    )));
                }
                let mut values = floats_with_capacity(self.float_data.len())?;
                values.extend_from_slice(&self.float_data);
                values
            }
        };
        Ok(values)
    }

    /// `(rows, columns)` of a 2-D tensor.
    fn matrix(&self) -> Result<(usize, usize), OnnxError> {
        match self.dims[..] {
            // Checked before anything loops over the shape: a [0, 2^40] matrix holds no
            // data, so only its widths can refuse it.
            [rows, columns]
                if [rows, columns]
                    .iter()
                    .all(|&d| (1..=MAX_WIDTH as u64).contains(&d)) =>
            {
                Ok((rows as usize, columns as usize))
            }
            [_, _] => Err(self.error(format!(
                "shape {}; each width must be 1 to {MAX_WIDTH}",
                self.shape()
            ))),
            _ => Err(self.error(format!("shape {}; a weight matrix is 2-D", self.shape()))),
        }
    }

    /// The biases of a layer of `outputs`: a tensor of shape `[outputs]` or `[1, outputs]`.
    fn bias(&self, outputs: usize) -> Result<Vec<f32>, OnnxError> {
        let fits = match self.dims[..] {
            [n] => dim(n) == outputs,
            [1, n] => dim(n) == outputs,
            _ => false,
        };
        if !fits {
            return Err(self.error(format!(
                "shape {}; the bias of {outputs} outputs is [{outputs}] or [1, {outputs}]",
                self.shape()
            )));
        }
        self.floats()
    }
}

/// A dimension as a width: one that does not fit is out of range for [`Dense::new`] anyway.
fn dim(d: u64) -> usize {
    usize::try_from(d).unwrap_or(usize::MAX)
}

// ---------------------------------------------------------------------------------------
// The chain of layers.

/// A layer whose weights are read and whose activation is not yet known.
struct Linear {
    inputs: usize,
    outputs: usize,
    /// Row-major `[outputs][inputs]`.
    weights: Vec<f32>,
    /// `None` after a `MatMul` that an `Add` may still follow.
    bias: Option<Vec<f32>>,
}

impl Linear {
    fn finish(self, layers: &mut Vec<Dense>, activation: Activation) -> Result<(), OnnxError> {
        let bias = self.bias.unwrap_or_else(|| vec![0.0; self.outputs]);
        let layer = Dense::new(
            layers.len(),
            self.inputs,
            self.outputs,
            self.weights,
            bias,
            activation,
        )?;
        layers.push(layer);
        Ok(())
    }
}

/// An empty vector with room for `n` floats, or [`NetError::OutOfMemory`]: a file's
/// tensors may be as large as the file, which must not abort the process.
fn floats_with_capacity(n: usize) -> Result<Vec<f32>, OnnxError> {
    let mut out = Vec::new();
    out.try_reserve_exact(n)
        .map_err(|_| NetError::OutOfMemory {
            bytes: n.saturating_mul(4),
        })?;
    Ok(out)
}

/// `[rows][columns]` row-major to `[columns][rows]`.
fn transpose(values: &[f32], rows: usize, columns: usize) -> Result<Vec<f32>, OnnxError> {
    let mut out = floats_with_capacity(values.len())?;
    for c in 0..columns {
        out.extend((0..rows).map(|r| values[r * columns + c]));
    }
    Ok(out)
}

/// A node with what it reads resolved.
struct Step<'g, 'a> {
    index: usize,
    node: &'g Node<'a>,
    initializers: &'g HashMap<&'a str, &'g Tensor<'a>>,
}

impl<'g, 'a> Step<'g, 'a> {
    fn unsupported(&self, problem: impl Into<String>) -> OnnxError {
        OnnxError::Unsupported {
            node: self.index,
            op: self.node.op.to_string(),
            problem: problem.into(),
        }
    }

    /// The initializer named by input `k`, `None` if the input is absent or empty.
    fn initializer(&self, k: usize) -> Result<Option<&'g Tensor<'a>>, OnnxError> {
        match self.node.inputs.get(k) {
            None | Some(&"") => Ok(None),
            Some(name) => match self.initializers.get(name) {
                Some(t) => Ok(Some(*t)),
                None => Err(self.unsupported(format!(
                    "input {k} '{name}' is not an initializer; bgfast reads weights and biases \
                     stored in the graph"
                ))),
            },
        }
    }

    fn required(&self, k: usize) -> Result<&'g Tensor<'a>, OnnxError> {
        self.initializer(k)?
            .ok_or_else(|| self.unsupported(format!("input {k} is missing")))
    }

    /// Checks that the node reads `current` as input 0 and nothing else but `extra` more
    /// inputs.
    fn reads(&self, current: &str, extra: usize) -> Result<(), OnnxError> {
        match self.node.inputs.first() {
            Some(&first) if first == current => {}
            first => {
                return Err(self.unsupported(format!(
                    "reads {:?}, not {current:?}, the output of what comes before it; bgfast \
                     reads a chain of nodes",
                    first.copied().unwrap_or("")
                )))
            }
        }
        if self.node.inputs.len() > 1 + extra {
            return Err(self.unsupported(format!("{} inputs", self.node.inputs.len())));
        }
        Ok(())
    }

    /// The attribute `name`, refusing any attribute not in `allowed`.
    /// Refuses any attribute.
    fn no_attributes(&self) -> Result<(), OnnxError> {
        self.attribute("", &[]).map(|_| ())
    }

    fn attribute(
        &self,
        name: &str,
        allowed: &[&str],
    ) -> Result<Option<&'g Attribute<'a>>, OnnxError> {
        if let Some(a) = self
            .node
            .attributes
            .iter()
            .find(|a| !allowed.contains(&a.name))
        {
            return Err(self.unsupported(format!("attribute '{}' is not supported", a.name)));
        }
        Ok(self.node.attributes.iter().find(|a| a.name == name))
    }

    fn float(&self, name: &str, allowed: &[&str], default: f32) -> Result<f32, OnnxError> {
        match self.attribute(name, allowed)? {
            None => Ok(default),
            Some(a) if !a.other && matches!(a.kind, None | Some(1)) => Ok(a.f.unwrap_or(0.0)),
            Some(_) => Err(self.unsupported(format!("attribute '{name}' is not a float"))),
        }
    }

    fn int(&self, name: &str, allowed: &[&str], default: i64) -> Result<i64, OnnxError> {
        match self.attribute(name, allowed)? {
            None => Ok(default),
            Some(a) if !a.other && matches!(a.kind, None | Some(2)) => Ok(a.i.unwrap_or(0)),
            Some(_) => Err(self.unsupported(format!("attribute '{name}' is not an integer"))),
        }
    }

    /// `Gemm`: `alpha A B' + beta C`, `B'` is `B` or its transpose.
    fn gemm(&self, current: &str) -> Result<Linear, OnnxError> {
        const ALLOWED: &[&str] = &["alpha", "beta", "transA", "transB"];
        self.reads(current, 2)?;
        let alpha = self.float("alpha", ALLOWED, 1.0)?;
        let beta = self.float("beta", ALLOWED, 1.0)?;
        if self.int("transA", ALLOWED, 0)? != 0 {
            return Err(self.unsupported("transA = 1; bgfast reads Gemm with transA = 0"));
        }
        let trans_b = match self.int("transB", ALLOWED, 0)? {
            0 => false,
            1 => true,
            t => return Err(self.unsupported(format!("transB = {t}; it is 0 or 1"))),
        };
        let b = self.required(1)?;
        let (rows, columns) = b.matrix()?;
        let values = b.floats()?;
        let (inputs, outputs, weights) = if trans_b {
            // B is [outputs][inputs] already.
            (columns, rows, values)
        } else {
            (rows, columns, transpose(&values, rows, columns)?)
        };
        let weights = weights.into_iter().map(|w| alpha * w).collect();
        let bias = match self.initializer(2)? {
            Some(c) => c.bias(outputs)?.into_iter().map(|v| beta * v).collect(),
            None => vec![0.0; outputs],
        };
        Ok(Linear {
            inputs,
            outputs,
            weights,
            bias: Some(bias),
        })
    }

    /// `MatMul`: `A B`, `B` of shape `[inputs, outputs]`.
    fn matmul(&self, current: &str) -> Result<Linear, OnnxError> {
        self.reads(current, 1)?;
        self.no_attributes()?;
        let b = self.required(1)?;
        let (inputs, outputs) = b.matrix()?;
        let weights = transpose(&b.floats()?, inputs, outputs)?;
        Ok(Linear {
            inputs,
            outputs,
            weights,
            bias: None,
        })
    }

    /// `Add` of a bias to the `MatMul` before it, in either order.
    fn add(&self, current: &str, linear: &mut Linear) -> Result<(), OnnxError> {
        self.no_attributes()?;
        let bias_input = match self.node.inputs[..] {
            [a, _] if a == current => 1,
            [_, b] if b == current => 0,
            _ => {
                return Err(self.unsupported(format!(
                    "does not add a bias to {current:?}, the output of what comes before it"
                )))
            }
        };
        linear.bias = Some(self.required(bias_input)?.bias(linear.outputs)?);
        Ok(())
    }
}

/// Builds the chain of layers of `graph`.
/// The net `graph` describes, whose layers may hold at most `max_weights` weights in all.
fn chain(graph: &Graph<'_>, max_weights: usize) -> Result<Mlp, OnnxError> {
    let mut initializers = HashMap::new();
    for t in &graph.initializers {
        if initializers.insert(t.name, t).is_some() {
            return Err(OnnxError::Graph(format!(
                "two initializers are named '{}'",
                t.name
            )));
        }
    }
    // Older exporters list the initializers among the graph inputs too.
    let data: Vec<&str> = graph
        .inputs
        .iter()
        .copied()
        .filter(|name| !initializers.contains_key(name))
        .collect();
    let [input] = data[..] else {
        return Err(OnnxError::Graph(format!(
            "{} inputs {data:?}; bgfast reads a graph of one input",
            data.len()
        )));
    };
    let [output] = graph.outputs[..] else {
        return Err(OnnxError::Graph(format!(
            "{} outputs {:?}; bgfast reads a graph of one output",
            graph.outputs.len(),
            graph.outputs
        )));
    };

    let mut layers = Vec::new();
    let mut pending: Option<Linear> = None;
    let mut weights = 0usize;
    let mut current = input;
    for (index, node) in graph.nodes.iter().enumerate() {
        let step = Step {
            index,
            node,
            initializers: &initializers,
        };
        if !matches!(node.domain, "" | "ai.onnx") {
            return Err(step.unsupported(format!("operator domain '{}'; {SUPPORTED}", node.domain)));
        }
        let [out] = node.outputs[..] else {
            return Err(step.unsupported(format!(
                "{} outputs; bgfast reads nodes of one output",
                node.outputs.len()
            )));
        };
        let activation = match node.op {
            "Tanh" => Some(Activation::Tanh),
            "Sigmoid" => Some(Activation::Sigmoid),
            "Relu" => Some(Activation::Relu),
            "HardSigmoid" => Some(Activation::HardSigmoid),
            "Softmax" => Some(Activation::Softmax),
            _ => None,
        };
        match (node.op, activation) {
            ("Gemm", _) | ("MatMul", _) => {
                // Two linear nodes in a row: the first is a layer without activation.
                if let Some(linear) = pending.take() {
                    linear.finish(&mut layers, Activation::Identity)?;
                }
                let linear = if node.op == "Gemm" {
                    step.gemm(current)?
                } else {
                    step.matmul(current)?
                };
                // Every layer copies its weights, and many nodes may name one initializer:
                // refused here, not once all the copies are made (a small file of 10^5
                // nodes naming one 256 x 256 matrix asked for 26 GB).
                weights += linear.weights.len();
                if weights > max_weights {
                    return Err(step.unsupported(format!(
                        "the layers so far hold {weights} weights (layers sharing tensors): \
                         at most {max_weights}, the larger of {MAX_WEIGHTS} and one weight per \
                         4 bytes of the file"
                    )));
                }
                pending = Some(linear);
            }
            ("Add", _) => match pending.as_mut() {
                Some(linear) if linear.bias.is_none() => step.add(current, linear)?,
                _ => {
                    return Err(step.unsupported(format!(
                        "bgfast reads Add only as the bias of a MatMul; {SUPPORTED}"
                    )))
                }
            },
            (_, Some(activation)) => {
                step.reads(current, 0)?;
                if activation == Activation::Softmax {
                    let axis = step.int("axis", &["axis"], -1)?;
                    if axis != 1 && axis != -1 {
                        return Err(step.unsupported(format!(
                            "axis {axis}; bgfast reads a softmax over axis 1 (or -1) of a \
                             batch of rows"
                        )));
                    }
                } else if activation == Activation::HardSigmoid {
                    const ALLOWED: &[&str] = &["alpha", "beta"];
                    // ONNX's defaults are 0.2 and 0.5; PyTorch writes alpha 1/6.
                    let alpha = step.float("alpha", ALLOWED, 0.2)?;
                    let beta = step.float("beta", ALLOWED, 0.5)?;
                    if alpha != Activation::HARD_SIGMOID_ALPHA || beta != 0.5 {
                        return Err(step.unsupported(format!(
                            "HardSigmoid with alpha {alpha} and beta {beta}; bgfast runs \
                             PyTorch's (alpha 1/6, beta 0.5)"
                        )));
                    }
                } else {
                    step.no_attributes()?;
                }
                let Some(linear) = pending.take() else {
                    return Err(step.unsupported(format!(
                        "an activation that does not follow a Gemm or MatMul; {SUPPORTED}"
                    )));
                };
                linear.finish(&mut layers, activation)?;
            }
            ("Identity", _) | ("Flatten", _) => {
                step.reads(current, 0)?;
                if step.int("axis", &["axis"], 1)? != 1 {
                    return Err(step.unsupported("bgfast reads Flatten with axis 1 only"));
                }
            }
            _ => return Err(step.unsupported(SUPPORTED)),
        }
        current = out;
    }
    if let Some(linear) = pending.take() {
        linear.finish(&mut layers, Activation::Identity)?;
    }
    if current != output {
        return Err(OnnxError::Graph(format!(
            "the chain of nodes ends at {current:?}, not at the graph's output {output:?}"
        )));
    }
    Ok(Mlp::new(layers)?)
}
