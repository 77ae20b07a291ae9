//! Dense nets: validated layers and the reference forward pass.
//!
//! A [`Mlp`] is a chain of dense layers `y = f(W x + b)`. Hidden layers use tanh, sigmoid,
//! relu, hard sigmoid or no activation; the last layer is the head, either a softmax over
//! the six exclusive outcomes (wildbg's order: win single, gammon, backgammon, lose single,
//! gammon, backgammon) or five sigmoids that are gnubg's five probabilities (made
//! consistent as gnubg makes them: a gammon no likelier than a win, R16).

use core::fmt;

use crate::eval::Probabilities;

/// The most inputs or outputs one layer may have.
pub const MAX_WIDTH: usize = 1 << 16;
/// The most weights one layer may hold (256 MiB of float32).
pub const MAX_WEIGHTS: usize = 1 << 26;

/// A layer's activation.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Activation {
    /// `f(x) = x`.
    Identity,
    /// `tanh`.
    Tanh,
    /// The logistic function.
    Sigmoid,
    /// `max(x, 0)`.
    Relu,
    /// PyTorch's hard sigmoid, `clamp(x / 6 + 1 / 2, 0, 1)` (ONNX's `HardSigmoid` with
    /// `alpha = 1/6`, `beta = 0.5`, as PyTorch exports it).
    HardSigmoid,
    /// Softmax over the layer's outputs (the head only).
    Softmax,
}

impl Activation {
    /// Every activation, for listing.
    pub const ALL: [Activation; 6] = [
        Activation::Identity,
        Activation::Tanh,
        Activation::Sigmoid,
        Activation::Relu,
        Activation::HardSigmoid,
        Activation::Softmax,
    ];

    /// The slope of [`Activation::HardSigmoid`]: 1/6 as a float, as PyTorch exports it.
    pub const HARD_SIGMOID_ALPHA: f32 = 1.0 / 6.0;

    /// The activation's name: `"identity"`, `"tanh"`, `"sigmoid"`, `"relu"`,
    /// `"hardsigmoid"`, `"softmax"`.
    pub const fn name(self) -> &'static str {
        match self {
            Activation::Identity => "identity",
            Activation::Tanh => "tanh",
            Activation::Sigmoid => "sigmoid",
            Activation::Relu => "relu",
            Activation::HardSigmoid => "hardsigmoid",
            Activation::Softmax => "softmax",
        }
    }

    /// The activation named `name`.
    pub fn from_name(name: &str) -> Option<Activation> {
        Activation::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// What a net's last layer means.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Head {
    /// Softmax over six exclusive outcomes, wildbg's order.
    Outcomes,
    /// Five sigmoids: gnubg's five probabilities, made consistent as gnubg makes them
    /// ([`Probabilities::from_estimates`]).
    Gnubg,
}

/// A net that cannot be built: what is wrong, and where.
#[derive(Clone, PartialEq, Debug)]
pub enum NetError {
    /// A part has no layer.
    Empty,
    /// A layer's weights or bias do not have the layer's shape, or its width is out of range.
    Shape {
        /// The layer, from 0.
        layer: usize,
        /// What is wrong.
        problem: String,
    },
    /// Layer `layer`'s inputs do not match what comes before it.
    Chain {
        /// The layer, from 0.
        layer: usize,
        /// The inputs it takes.
        inputs: usize,
        /// The width before it (the encoding's width for layer 0).
        expected: usize,
    },
    /// A weight or bias that is NaN or infinite.
    NotFinite {
        /// The layer, from 0.
        layer: usize,
        /// `"weights"` or `"bias"`.
        what: &'static str,
        /// Its flat index.
        index: usize,
    },
    /// An activation where it cannot be (softmax before the head, a head bgfast cannot read).
    Activation {
        /// The layer, from 0.
        layer: usize,
        /// What is wrong.
        problem: String,
    },
    /// The contact and race parts disagree, or a part does not fit the input encoding.
    Parts(String),
    /// There is no memory for the net's weights (a net's size comes from its file or its
    /// arrays: refused rather than aborting the process).
    OutOfMemory {
        /// The bytes asked for.
        bytes: usize,
    },
}

impl NetError {
    /// Whether the net was refused for want of memory, not for what it holds.
    pub fn is_out_of_memory(&self) -> bool {
        matches!(self, NetError::OutOfMemory { .. })
    }
}

/// A vector of `n` copies of `value`, or [`NetError::OutOfMemory`].
pub(crate) fn try_filled<T: Clone>(n: usize, value: T) -> Result<Vec<T>, NetError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| NetError::OutOfMemory {
        bytes: n.saturating_mul(size_of::<T>()),
    })?;
    v.resize(n, value);
    Ok(v)
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetError::Empty => f.write_str("a net needs at least one layer"),
            NetError::Shape { layer, problem } => write!(f, "layer {layer}: {problem}"),
            NetError::Chain {
                layer,
                inputs,
                expected,
            } => write!(
                f,
                "layer {layer} takes {inputs} inputs, but what comes before it gives {expected}"
            ),
            NetError::NotFinite { layer, what, index } => {
                write!(f, "layer {layer}: {what}[{index}] is not a finite number")
            }
            NetError::Activation { layer, problem } => write!(f, "layer {layer}: {problem}"),
            NetError::Parts(problem) => f.write_str(problem),
            NetError::OutOfMemory { bytes } => {
                write!(f, "cannot allocate {bytes} bytes for the net's weights")
            }
        }
    }
}

impl std::error::Error for NetError {}

/// One dense layer: `outputs` values `f(W x + b)` of `inputs` values.
#[derive(Clone, PartialEq, Debug)]
pub struct Dense {
    inputs: usize,
    outputs: usize,
    /// Row-major `[outputs][inputs]` (ONNX's `Gemm` with `transB = 1`, PyTorch's `Linear`).
    weights: Vec<f32>,
    bias: Vec<f32>,
    activation: Activation,
}

impl Dense {
    /// A layer from row-major `[outputs][inputs]` weights and `outputs` biases, checked.
    /// `layer` (its place in the net) is only for error messages.
    pub fn new(
        layer: usize,
        inputs: usize,
        outputs: usize,
        weights: Vec<f32>,
        bias: Vec<f32>,
        activation: Activation,
    ) -> Result<Dense, NetError> {
        let shape = |problem: String| NetError::Shape { layer, problem };
        if !(1..=MAX_WIDTH).contains(&inputs) || !(1..=MAX_WIDTH).contains(&outputs) {
            return Err(shape(format!(
                "{outputs} x {inputs} weights: each width must be 1 to {MAX_WIDTH}"
            )));
        }
        if inputs * outputs > MAX_WEIGHTS {
            return Err(shape(format!(
                "{outputs} x {inputs} weights: at most {MAX_WEIGHTS} weights per layer"
            )));
        }
        if weights.len() != inputs * outputs {
            return Err(shape(format!(
                "{} weights for a {outputs} x {inputs} layer",
                weights.len()
            )));
        }
        if bias.len() != outputs {
            return Err(shape(format!(
                "{} biases for a layer of {outputs} outputs",
                bias.len()
            )));
        }
        for (what, values) in [("weights", &weights), ("bias", &bias)] {
            if let Some(index) = values.iter().position(|v| !v.is_finite()) {
                return Err(NetError::NotFinite { layer, what, index });
            }
        }
        Ok(Dense {
            inputs,
            outputs,
            weights,
            bias,
            activation,
        })
    }

    /// Inputs taken.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Outputs given.
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// Row-major `[outputs][inputs]` weights.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// The biases.
    pub fn bias(&self) -> &[f32] {
        &self.bias
    }

    /// The activation.
    pub fn activation(&self) -> Activation {
        self.activation
    }

    /// `out = f(W x + b)`, scalar, in input order (the reference the fast paths match).
    fn forward(&self, x: &[f32], out: &mut [f32]) {
        for (o, (row, b)) in out
            .iter_mut()
            .zip(self.weights.chunks_exact(self.inputs).zip(&self.bias))
        {
            *o = row.iter().zip(x).fold(*b, |s, (w, v)| s + w * v);
        }
        activate(self.activation, out);
    }
}

/// Applies `activation` to `values` in place.
pub fn activate(activation: Activation, values: &mut [f32]) {
    match activation {
        Activation::Identity => {}
        Activation::Tanh => values.iter_mut().for_each(|v| *v = v.tanh()),
        Activation::Sigmoid => values
            .iter_mut()
            .for_each(|v| *v = 1.0 / (1.0 + (-*v).exp())),
        Activation::Relu => values.iter_mut().for_each(|v| *v = v.max(0.0)),
        Activation::HardSigmoid => values.iter_mut().for_each(|v| {
            *v = (*v * Activation::HARD_SIGMOID_ALPHA + 0.5).clamp(0.0, 1.0);
        }),
        Activation::Softmax => {
            let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let mut sum = 0.0;
            for v in values.iter_mut() {
                *v = (*v - max).exp();
                sum += *v;
            }
            values.iter_mut().for_each(|v| *v /= sum);
        }
    }
}

/// A validated chain of dense layers ending in a head bgfast can read.
#[derive(Clone, PartialEq, Debug)]
pub struct Mlp {
    layers: Vec<Dense>,
    head: Head,
}

impl Mlp {
    /// Checks that the layers chain, that only the last one is a softmax, and that the last
    /// one is a 6-way softmax or 5 sigmoids.
    pub fn new(layers: Vec<Dense>) -> Result<Mlp, NetError> {
        let Some(last) = layers.last() else {
            return Err(NetError::Empty);
        };
        for (k, pair) in layers.windows(2).enumerate() {
            if pair[1].inputs != pair[0].outputs {
                return Err(NetError::Chain {
                    layer: k + 1,
                    inputs: pair[1].inputs,
                    expected: pair[0].outputs,
                });
            }
        }
        let n = layers.len() - 1;
        if let Some(k) = layers[..n]
            .iter()
            .position(|l| l.activation == Activation::Softmax)
        {
            return Err(NetError::Activation {
                layer: k,
                problem: "softmax is only supported as the last layer".into(),
            });
        }
        let head = match (last.activation, last.outputs) {
            (Activation::Softmax, 6) => Head::Outcomes,
            (Activation::Sigmoid, 5) => Head::Gnubg,
            (activation, outputs) => {
                return Err(NetError::Activation {
                    layer: n,
                    problem: format!(
                        "the last layer is {outputs} {} outputs; bgfast reads a softmax over 6 \
                         outcomes (win single, gammon, backgammon, lose single, gammon, \
                         backgammon) or 5 sigmoids (gnubg's win, win gammon, win backgammon, \
                         lose gammon, lose backgammon)",
                        activation.name()
                    ),
                })
            }
        };
        Ok(Mlp { layers, head })
    }

    /// Inputs of the first layer.
    pub fn inputs(&self) -> usize {
        self.layers[0].inputs
    }

    /// The layers, first to last.
    pub fn layers(&self) -> &[Dense] {
        &self.layers
    }

    /// What the last layer means.
    pub fn head(&self) -> Head {
        self.head
    }

    /// The widest layer's outputs (scratch size for a forward pass).
    pub fn widest(&self) -> usize {
        self.layers.iter().map(|l| l.outputs).max().unwrap_or(0)
    }

    /// Reads the head's outputs as probabilities.
    #[inline]
    pub fn probabilities(&self, out: &[f32]) -> Probabilities {
        match self.head {
            Head::Outcomes => {
                Probabilities::from_outcomes([out[0], out[1], out[2], out[3], out[4], out[5]])
            }
            Head::Gnubg => Probabilities::from_estimates([out[0], out[1], out[2], out[3], out[4]]),
        }
    }

    /// The reference forward pass of `x` (`self.inputs()` values): plain scalar code in
    /// input order, kept as the specification the fast paths are tested against.
    pub fn forward_reference(&self, x: &[f32]) -> Probabilities {
        let mut a = x[..self.inputs()].to_vec();
        for layer in &self.layers {
            let mut b = vec![0.0; layer.outputs];
            layer.forward(&a, &mut b);
            a = b;
        }
        self.probabilities(&a)
    }
}
