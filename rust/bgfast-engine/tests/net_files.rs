//! The `.bgnet` file format: round trips, and every kind of bad input refused with the
//! error that names it, never a panic.

use std::path::PathBuf;

use bgfast_core::bearoff::file::fnv1a64;
use bgfast_engine::eval::Evaluator;
use bgfast_engine::net::file::{FileError, FORMAT_VERSION, HEADER, MAGIC};
use bgfast_engine::net::{Activation, Dense, Inputs, Mlp, Net, NetError};

/// Deterministic small weights: a linear congruential sequence mapped to [-1, 1).
fn values(seed: u64, n: usize) -> Vec<f32> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 23) as f32) - 1.0
        })
        .collect()
}

fn dense(seed: u64, inputs: usize, outputs: usize, activation: Activation) -> Dense {
    Dense::new(
        0,
        inputs,
        outputs,
        values(seed, inputs * outputs),
        values(seed + 1, outputs),
        activation,
    )
    .unwrap()
}

/// A small board-encoding net: a 50-8-6 softmax contact part and a 50-4-5 sigmoid race part.
fn small_net() -> Net {
    let contact = Mlp::new(vec![
        dense(1, 50, 8, Activation::Tanh),
        dense(2, 8, 6, Activation::Softmax),
    ])
    .unwrap();
    let race = Mlp::new(vec![
        dense(3, 50, 4, Activation::Relu),
        dense(4, 4, 5, Activation::Sigmoid),
    ])
    .unwrap();
    Net::new(Inputs::Board, contact, Some(race)).unwrap()
}

#[test]
fn weights_that_could_overflow_float32_are_refused_and_large_finite_ones_agree() {
    let scaled = |scale: f32| {
        let mut w = values(2, 8 * 6);
        w.iter_mut().for_each(|x| *x *= scale);
        let last = Dense::new(1, 8, 6, w, values(3, 6), Activation::Softmax).unwrap();
        let first = dense(1, 50, 8, Activation::Relu);
        Net::new(Inputs::Board, Mlp::new(vec![first, last]).unwrap(), None)
    };
    // Finite weights whose sums reach float32's infinity: the passes would give NaN.
    let e = scaled(3e37).unwrap_err();
    assert!(
        matches!(&e, NetError::Parts(m) if m.contains("contact net's layer 1")),
        "{e}"
    );
    // Huge logits that stay finite: both passes give the same probabilities.
    let net = scaled(1e20).unwrap();
    let pos = Position::START;
    let (fast, reference) = (net.evaluate_one(&pos), net.evaluate_reference(&pos));
    let pairs = [
        (fast.win, reference.win),
        (fast.win_gammon, reference.win_gammon),
        (fast.win_backgammon, reference.win_backgammon),
        (fast.lose_gammon, reference.lose_gammon),
        (fast.lose_backgammon, reference.lose_backgammon),
    ];
    for (a, b) in pairs {
        assert!(
            a.is_finite() && (a - b).abs() < 1e-5,
            "{fast:?} {reference:?}"
        );
    }
}

/// A file around `payload` with a correct header (a forger's tool: the checksum matches).
fn seal(payload: &[u8]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&fnv1a64(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// A payload writer for hand-made files.
#[derive(Default)]
struct Payload(Vec<u8>);

impl Payload {
    fn name(mut self, name: &str) -> Self {
        self.0.push(name.len() as u8);
        self.0.extend_from_slice(name.as_bytes());
        self
    }
    fn u32(mut self, v: u32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn floats(mut self, v: &[f32]) -> Self {
        for x in v {
            self.0.extend_from_slice(&x.to_le_bytes());
        }
        self
    }
    /// A layer header and its weights and bias.
    fn layer(self, inputs: u32, outputs: u32, activation: &str, weights: &[f32]) -> Self {
        let n = (inputs * outputs) as usize;
        self.u32(inputs)
            .u32(outputs)
            .name(activation)
            .floats(&weights[..n])
            .floats(&vec![0.0; outputs as usize])
    }
    /// A board-encoding file with one part of one layer, 50 inputs to 6 `activation`s.
    fn one_layer(activation: &str, weights: &[f32]) -> Self {
        Payload::default()
            .name("board")
            .u32(1)
            .u32(1)
            .layer(50, 6, activation, weights)
    }
    fn file(&self) -> Vec<u8> {
        seal(&self.0)
    }
}

fn temp_dir(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("net_files-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn bytes_round_trip_bit_for_bit() {
    let net = small_net();
    let bytes = net.to_bytes();
    assert_eq!(&bytes[..8], b"BGFNET\r\n");
    let back = Net::from_bytes(&bytes).unwrap();
    assert_eq!(back, net);
    assert_eq!(back.to_bytes(), bytes);
    // Signed zeros, subnormals and large values survive: weights are stored as their bits
    // (the largest, f32::MAX, could overflow a sum and are refused: see below).
    let odd = [-0.0f32, f32::MIN_POSITIVE / 4.0, 1e20, -f32::EPSILON];
    let mut w = values(9, 300);
    w[..4].copy_from_slice(&odd);
    let bytes = Payload::one_layer("softmax", &w).file();
    let net = Net::from_bytes(&bytes).unwrap();
    let got = &net.contact().layers()[0].weights()[..4];
    assert_eq!(got.map_bits(), odd.map_bits());
    assert_eq!(net.to_bytes(), bytes);
}

trait Bits {
    fn map_bits(&self) -> Vec<u32>;
}

impl Bits for [f32] {
    fn map_bits(&self) -> Vec<u32> {
        self.iter().map(|v| v.to_bits()).collect()
    }
}

#[test]
fn contact_only_nets_round_trip() {
    let contact = Mlp::new(vec![dense(5, 50, 5, Activation::Sigmoid)]).unwrap();
    let net = Net::new(Inputs::Board, contact, None).unwrap();
    assert_eq!(Net::from_bytes(&net.to_bytes()).unwrap(), net);
}

#[test]
fn save_and_load_round_trip_and_replace() {
    let dir = temp_dir("save");
    let path = dir.join("small.bgnet");
    let net = small_net();
    net.save(&path).unwrap();
    assert_eq!(Net::load(&path).unwrap(), net);
    // Saving again replaces the file and leaves no temporary file behind.
    let other = Net::new(
        Inputs::Board,
        Mlp::new(vec![dense(7, 50, 6, Activation::Softmax)]).unwrap(),
        None,
    )
    .unwrap();
    other.save(&path).unwrap();
    assert_eq!(Net::load(&path).unwrap(), other);
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["small.bgnet"]);
}

#[test]
fn load_refuses_what_is_not_a_readable_regular_file() {
    let dir = temp_dir("load");
    let io = |r: Result<Net, FileError>| match r {
        Err(e @ FileError::Io { .. }) => e.to_string(),
        other => panic!("{other:?}"),
    };
    let missing = io(Net::load(&dir.join("missing.bgnet")));
    assert!(missing.starts_with("I/O error on "), "{missing}");
    assert!(missing.contains("missing.bgnet"), "{missing}");
    let directory = io(Net::load(&dir));
    assert!(directory.contains("not a regular file"), "{directory}");
    // A sparse file just over the cap is refused by its size, without being read.
    let huge = dir.join("huge.bgnet");
    let file = std::fs::File::create(&huge).unwrap();
    file.set_len(bgfast_engine::net::file::MAX_FILE_LEN + 1)
        .unwrap();
    drop(file);
    let too_large = io(Net::load(&huge));
    assert!(too_large.contains("at most"), "{too_large}");
    std::fs::remove_file(&huge).unwrap();
    // Saving into a directory that does not exist fails and says where.
    let nowhere = dir.join("no/such/dir/x.bgnet");
    match small_net().save(&nowhere) {
        Err(FileError::Io { path, .. }) => assert_eq!(path, nowhere),
        other => panic!("{other:?}"),
    }
}

#[test]
fn header_damage_is_named() {
    let good = small_net().to_bytes();
    let err = |bytes: &[u8]| Net::from_bytes(bytes).unwrap_err();

    let mut magic = good.clone();
    magic[0] = b'X';
    assert!(matches!(err(&magic), FileError::BadMagic));
    assert_eq!(err(&magic).to_string(), "not a bgfast net file (bad magic)");
    assert!(matches!(err(b"PK\x03\x04"), FileError::BadMagic));
    // A text-mode copy turns "\r\n" into "\n".
    let mut text = good.clone();
    text.remove(6);
    assert!(matches!(err(&text), FileError::BadMagic));

    let mut future = good.clone();
    future[8..12].copy_from_slice(&7u32.to_le_bytes());
    assert!(matches!(err(&future), FileError::Version { found: 7 }));
    assert_eq!(
        err(&future).to_string(),
        "net file version 7; this bgfast reads version 1"
    );

    for cut in [0, 5, 8, HEADER - 1, HEADER, good.len() - 1] {
        let e = err(&good[..cut]);
        assert!(matches!(e, FileError::Truncated(_)), "{cut}: {e:?}");
        assert!(e.to_string().starts_with("truncated: "), "{e}");
    }

    let mut longer = good.clone();
    longer.extend_from_slice(&[0, 0]);
    assert!(matches!(
        err(&longer),
        FileError::TrailingBytes { extra: 2 }
    ));

    let mut damaged = good.clone();
    let last = damaged.len() - 1;
    damaged[last] ^= 1;
    assert!(matches!(err(&damaged), FileError::Checksum));
    assert_eq!(
        err(&damaged).to_string(),
        "checksum mismatch (file damaged)"
    );

    let mut huge = good.clone();
    huge[12..20].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(err(&huge), FileError::Truncated(_)));
}

#[test]
fn payload_problems_are_named_even_with_a_matching_checksum() {
    let w = values(11, 300);
    let err = |p: Payload| Net::from_bytes(&p.file()).unwrap_err();
    let board = || Payload::default().name("board");

    // The baseline is good.
    Net::from_bytes(&Payload::one_layer("softmax", &w).file()).unwrap();

    let e = err(Payload::one_layer("swish", &w));
    assert!(
        matches!(&e, FileError::UnknownActivation { part: "contact", layer: 0, name } if name == "swish"),
        "{e:?}"
    );
    assert!(e.to_string().contains("\"swish\""), "{e}");

    let e = err(Payload::default()
        .name("tesauro198")
        .u32(1)
        .u32(1)
        .layer(50, 6, "softmax", &w));
    assert!(matches!(&e, FileError::UnknownInputs(n) if n == "tesauro198"));
    assert!(e.to_string().contains("wildbg, board"), "{e}");

    for parts in [0, 3, u32::MAX] {
        let e = err(board().u32(parts).u32(1).layer(50, 6, "softmax", &w));
        assert!(matches!(e, FileError::Malformed(_)), "{parts}: {e:?}");
    }

    let e = err(Payload::default().name("bo\u{e9}").u32(1));
    assert!(matches!(e, FileError::Malformed(_)), "{e:?}");

    // Counts and sizes far beyond the file are truncation, found before allocating.
    let e = err(board().u32(1).u32(u32::MAX));
    assert!(matches!(e, FileError::Truncated(_)), "{e:?}");
    let e = err(board()
        .u32(1)
        .u32(1)
        .u32(1 << 16)
        .u32(1 << 15)
        .name("softmax")
        .floats(&w[..20]));
    assert!(
        matches!(&e, FileError::Truncated(m) if m.contains("2147483648 floats")),
        "{e:?}"
    );
    let e = err(board()
        .u32(1)
        .u32(1)
        .u32(u32::MAX)
        .u32(u32::MAX)
        .name("softmax"));
    assert!(matches!(e, FileError::Truncated(_)), "{e:?}");

    // A layer that does not fit the encoding, or a NaN weight: the net is refused.
    let e = err(board().u32(1).u32(1).layer(10, 6, "softmax", &w));
    assert!(matches!(e, FileError::Invalid(NetError::Parts(_))), "{e:?}");
    assert!(e.to_string().starts_with("bad net: "), "{e}");
    let mut nan = w.clone();
    nan[17] = f32::NAN;
    let e = err(Payload::one_layer("softmax", &nan));
    assert!(
        matches!(
            e,
            FileError::Invalid(NetError::NotFinite {
                layer: 0,
                what: "weights",
                index: 17
            })
        ),
        "{e:?}"
    );
    let e = err(board().u32(1).u32(0));
    assert!(matches!(e, FileError::Invalid(NetError::Empty)), "{e:?}");

    // Bytes after the last part.
    let e = err(Payload::one_layer("softmax", &w).u32(0));
    assert!(matches!(e, FileError::TrailingBytes { extra: 4 }), "{e:?}");
}

#[test]
fn every_single_byte_change_and_cut_of_a_small_file_is_refused() {
    let good = small_net().to_bytes();
    for at in 0..good.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut bad = good.clone();
            bad[at] ^= flip;
            assert!(Net::from_bytes(&bad).is_err(), "byte {at} ^ {flip:#x}");
        }
        assert!(Net::from_bytes(&good[..at]).is_err(), "cut at {at}");
    }
}

// ---------------------------------------------------------------------------------------
// The shipped net and wildbg's ONNX files.

use bgfast_core::Position;
use bgfast_engine::net::onnx::{read_mlp, read_mlp_file, OnnxError};
use bgfast_engine::net::Phase;

fn wildbg_onnx(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../tests/data/wildbg/{name}.onnx"))
}

fn shipped_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("nets/wildbg.bgnet")
}

#[test]
fn the_shipped_net_is_wildbgs_onnx_nets_bit_for_bit() {
    let contact = read_mlp_file(&wildbg_onnx("contact")).unwrap();
    let race = read_mlp_file(&wildbg_onnx("race")).unwrap();
    let converted = Net::new(Inputs::Wildbg, contact, Some(race)).unwrap();
    assert_eq!(*Net::wildbg(), converted);
    assert_eq!(Net::load(&shipped_path()).unwrap(), converted);
    // The file is exactly what the converter writes (one spelling per net).
    assert_eq!(std::fs::read(shipped_path()).unwrap(), converted.to_bytes());
}

fn training_onnx(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../../tests/data/wildbg-training/{name}.onnx"))
}

#[test]
fn the_large_shipped_net_is_wildbgs_training_nets_bit_for_bit() {
    let contact = read_mlp_file(&training_onnx("contact-17")).unwrap();
    let race = read_mlp_file(&training_onnx("race-16")).unwrap();
    let converted = Net::new(Inputs::Wildbg, contact, Some(race)).unwrap();
    assert_eq!(*Net::wildbg_large(), converted);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("nets/wildbg-large.bgnet");
    assert_eq!(std::fs::read(path).unwrap(), converted.to_bytes());
    let widths: Vec<_> = converted
        .contact()
        .layers()
        .iter()
        .map(|l| l.outputs())
        .collect();
    assert_eq!(widths, [300, 250, 200, 6]);
}

#[test]
fn wildbgs_weights_are_pinned() {
    // First and last weight and bias of each layer, as onnx.numpy_helper.to_array prints
    // them from the ONNX initializers, as float32 bits.
    let net = Net::wildbg();
    let pins = [
        (
            net.contact(),
            [202, 150],
            [0x3d968600, 0xbd87f3de, 0x3c99b708, 0xbf2f72a8],
        ),
        (
            net.contact(),
            [150, 6],
            [0xbe0d6bca, 0x370bcc40, 0x3e861ee0, 0xbf0407de],
        ),
        (
            net.race().unwrap(),
            [186, 16],
            [0x3e9ba7c7, 0x3e3594a2, 0x3ec7a32d, 0xbf78d809],
        ),
        (
            net.race().unwrap(),
            [16, 6],
            [0x3d4d495d, 0x3ea704fc, 0xbe8fe74c, 0xbe9a3b60],
        ),
    ];
    for (k, (part, [inputs, outputs], bits)) in pins.into_iter().enumerate() {
        let layer = &part.layers()[k % 2];
        assert_eq!((layer.inputs(), layer.outputs()), (inputs, outputs));
        let (w, b) = (layer.weights(), layer.bias());
        let got = [w[0], w[w.len() - 1], b[0], b[b.len() - 1]].map(f32::to_bits);
        assert_eq!(got, bits, "layer {k}");
        let activation = [Activation::Tanh, Activation::Softmax][k % 2];
        assert_eq!(layer.activation(), activation);
    }
    assert_eq!(net.contact().layers()[0].weights()[0], 0.073_497_77);
    assert_eq!(net.inputs(), Inputs::Wildbg);
}

#[test]
fn the_shipped_net_scores_the_start_as_an_independent_forward_pass_does() {
    // numpy in float64 on the ONNX weights, with the start's 202 inputs built by hand from
    // the encoding's table: six outcomes (0.38743, 0.14274, 0.01650, 0.31529, 0.11923,
    // 0.01882).
    let p = Net::wildbg().evaluate_reference(&Position::START);
    let expected = [
        0.546_664_9,
        0.159_233_7,
        0.016_498_65,
        0.138_046_1,
        0.018_817_17,
    ];
    for (got, want) in p.to_array().iter().zip(expected) {
        assert!((got - want).abs() < 1e-5, "{p:?}");
    }
    assert!(
        p.win > 0.5 && p.win < 0.6,
        "the side to roll is ahead at the start"
    );
}

#[test]
fn the_shipped_net_scores_races_with_its_race_part() {
    let mut mover = [0u8; 25];
    let mut opponent = [0u8; 25];
    mover[..6].copy_from_slice(&[3, 3, 3, 2, 2, 2]);
    opponent[..6].copy_from_slice(&[2, 2, 2, 3, 3, 3]);
    let pos = Position::from_counts(&mover, &opponent).unwrap();
    assert_eq!(Phase::of(&pos), Phase::Race);
    let net = Net::wildbg();
    assert!(std::ptr::eq(net.part(&pos).0, net.race().unwrap()));
    let p = net.evaluate_reference(&pos);
    assert!(p.win > 0.5 && p.win <= 1.0, "{p:?}");
    assert!(
        p.win_gammon >= p.win_backgammon && p.win_backgammon >= 0.0,
        "{p:?}"
    );
    assert!(p.lose_gammon < 0.01, "{p:?}");
}

#[test]
fn every_sampled_corruption_of_the_shipped_file_is_refused() {
    let good = std::fs::read(shipped_path()).unwrap();
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut bad = good.clone();
    // Every header byte, then 3000 sampled offsets in the payload, each changed by a
    // sampled nonzero xor.
    let sampled: Vec<u64> = (0..3000).map(|_| next()).collect();
    let offsets = (0..HEADER as u64).chain(sampled);
    for at in offsets {
        let at = at as usize % good.len();
        let flip = (next() % 255 + 1) as u8;
        bad[at] ^= flip;
        assert!(Net::from_bytes(&bad).is_err(), "byte {at} ^ {flip:#x}");
        bad[at] = good[at];
    }
    for _ in 0..500 {
        let cut = next() as usize % good.len();
        assert!(Net::from_bytes(&good[..cut]).is_err(), "cut at {cut}");
    }
}

// ---------------------------------------------------------------------------------------
// ONNX: hand-made protobufs.

/// A protobuf message writer: just what the tests need.
#[derive(Default, Clone)]
struct Pb(Vec<u8>);

impl Pb {
    fn raw_varint(out: &mut Vec<u8>, mut v: u64) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    fn varint(mut self, field: u64, v: u64) -> Self {
        Pb::raw_varint(&mut self.0, field << 3);
        Pb::raw_varint(&mut self.0, v);
        self
    }
    fn fixed32(mut self, field: u64, v: u32) -> Self {
        Pb::raw_varint(&mut self.0, (field << 3) | 5);
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn bytes(mut self, field: u64, b: &[u8]) -> Self {
        Pb::raw_varint(&mut self.0, (field << 3) | 2);
        Pb::raw_varint(&mut self.0, b.len() as u64);
        self.0.extend_from_slice(b);
        self
    }
    fn str(self, field: u64, s: &str) -> Self {
        self.bytes(field, s.as_bytes())
    }
    fn msg(self, field: u64, m: Pb) -> Self {
        self.bytes(field, &m.0)
    }
}

fn le_floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A FLOAT tensor with its data in raw_data.
fn tensor(name: &str, dims: &[u64], values: &[f32]) -> Pb {
    let t = dims.iter().fold(Pb::default(), |t, &d| t.varint(1, d));
    t.varint(2, 1).str(8, name).bytes(9, &le_floats(values))
}

/// A FLOAT tensor with its data in float_data, unpacked, and its dims packed.
fn tensor_float_data(name: &str, dims: &[u64], values: &[f32]) -> Pb {
    let mut packed = Vec::new();
    for &d in dims {
        Pb::raw_varint(&mut packed, d);
    }
    let t = Pb::default().bytes(1, &packed).varint(2, 1).str(8, name);
    values.iter().fold(t, |t, v| t.fixed32(4, v.to_bits()))
}

fn attr_f(name: &str, v: f32) -> Pb {
    Pb::default()
        .str(1, name)
        .fixed32(2, v.to_bits())
        .varint(20, 1)
}

fn attr_i(name: &str, v: i64) -> Pb {
    Pb::default().str(1, name).varint(3, v as u64).varint(20, 2)
}

fn node(op: &str, inputs: &[&str], output: &str, attributes: Vec<Pb>) -> Pb {
    let n = inputs.iter().fold(Pb::default(), |n, i| n.str(1, i));
    let n = n
        .str(2, output)
        .str(3, &format!("{op}_{output}"))
        .str(4, op);
    attributes.into_iter().fold(n, |n, a| n.msg(5, a))
}

/// A graph input or output: a FLOAT tensor of shape `[batch, width]`, both symbolic
/// (TypeProto.tensor_type, its elem_type and shape).
fn value_info(name: &str) -> Pb {
    let symbol = |s: &str| Pb::default().str(2, s);
    let shape = Pb::default()
        .msg(1, symbol("batch"))
        .msg(1, symbol(&format!("{name}_width")));
    let float_tensor = Pb::default().msg(1, Pb::default().varint(1, 1).msg(2, shape));
    Pb::default().str(1, name).msg(2, float_tensor)
}

/// A model of `nodes` and `initializers`, from graph input `x` to graph output `y`.
fn model(nodes: Vec<Pb>, initializers: Vec<Pb>) -> Vec<u8> {
    let mut g = Pb::default();
    for n in nodes {
        g = g.msg(1, n);
    }
    g = g.str(2, "test");
    for t in initializers {
        g = g.msg(5, t);
    }
    let g = g.msg(11, value_info("x")).msg(12, value_info("y"));
    let opset = Pb::default().str(1, "").varint(2, 13);
    Pb::default()
        .varint(1, 7)
        .str(2, "bgfast tests")
        .msg(8, opset)
        .msg(7, g)
        .0
}

/// A 3-4-5 net: Flatten, Gemm (transB 0, alpha 2, beta 0.5, bias [1, 4]), Relu, Identity,
/// MatMul, Add (bias first), Sigmoid.
fn gemm_matmul_net() -> (Vec<u8>, Vec<f32>, Vec<f32>) {
    let w1: Vec<f32> = (0..12).map(|k| k as f32 - 5.5).collect(); // [3 inputs][4 outputs]
    let w2: Vec<f32> = (0..20).map(|k| (k as f32) / 8.0).collect(); // [4][5]
    let bytes = model(
        vec![
            node("Flatten", &["x"], "f", vec![attr_i("axis", 1)]),
            node(
                "Gemm",
                &["f", "w1", "b1"],
                "g",
                vec![
                    attr_f("alpha", 2.0),
                    attr_f("beta", 0.5),
                    attr_i("transB", 0),
                ],
            ),
            node("Relu", &["g"], "r", vec![]),
            node("Identity", &["r"], "i", vec![]),
            node("MatMul", &["i", "w2"], "m", vec![]),
            node("Add", &["b2", "m"], "a", vec![]),
            node("Sigmoid", &["a"], "y", vec![]),
        ],
        vec![
            tensor("w1", &[3, 4], &w1),
            tensor_float_data("b1", &[1, 4], &[1.0, 2.0, 3.0, 4.0]),
            tensor_float_data("w2", &[4, 5], &w2),
            tensor("b2", &[5], &[0.5; 5]),
        ],
    );
    (bytes, w1, w2)
}

#[test]
fn onnx_gemm_and_matmul_add_layers_are_read_with_alpha_beta_and_transposes() {
    let (bytes, w1, w2) = gemm_matmul_net();
    let mlp = read_mlp(&bytes).unwrap();
    let [l1, l2] = mlp.layers() else {
        panic!("{mlp:?}")
    };
    assert_eq!(
        (l1.inputs(), l1.outputs(), l1.activation()),
        (3, 4, Activation::Relu)
    );
    assert_eq!(
        (l2.inputs(), l2.outputs(), l2.activation()),
        (4, 5, Activation::Sigmoid)
    );
    // Row-major [outputs][inputs]: output o, input i is B[i][o]; alpha 2 is exact.
    for o in 0..4 {
        for i in 0..3 {
            assert_eq!(l1.weights()[o * 3 + i], 2.0 * w1[i * 4 + o]);
        }
    }
    assert_eq!(l1.bias(), [0.5, 1.0, 1.5, 2.0]);
    for o in 0..5 {
        for i in 0..4 {
            assert_eq!(l2.weights()[o * 4 + i], w2[i * 5 + o]);
        }
    }
    assert_eq!(l2.bias(), [0.5; 5]);
    // onnx.reference.ReferenceEvaluator on the same bytes (which pass
    // onnx.checker.check_model with full_check), input [0.1, -0.2, 0.05].
    let onnx = [
        0.992_878_6,
        0.995_332_66,
        0.996_943_8,
        0.997_999_7,
        0.998_691_4,
    ];
    // The five sigmoids are then made consistent as gnubg makes them (R16): here every
    // gammon is capped by the win (or the loss) it is part of.
    let [win, ..] = onnx;
    let consistent = [win, win, win, 1.0 - win, 1.0 - win];
    let got = mlp.forward_reference(&[0.1, -0.2, 0.05]).to_array();
    for (g, o) in got.iter().zip(consistent) {
        assert!((g - o).abs() < 1e-6, "{got:?}");
    }
}

#[test]
fn onnx_gemm_without_bias_and_stacked_linear_layers() {
    let w: Vec<f32> = (0..12).map(|k| k as f32).collect();
    let bytes = model(
        vec![
            node("Gemm", &["x", "w"], "h", vec![attr_i("transB", 1)]),
            node("Gemm", &["h", "v", ""], "z", vec![attr_i("transB", 1)]),
            node("Softmax", &["z"], "y", vec![attr_i("axis", 1)]),
        ],
        vec![tensor("w", &[4, 3], &w), tensor("v", &[6, 4], &[0.25; 24])],
    );
    let mlp = read_mlp(&bytes).unwrap();
    let [l1, l2] = mlp.layers() else {
        panic!("{mlp:?}")
    };
    assert_eq!(l1.activation(), Activation::Identity);
    assert_eq!(l1.weights(), &w[..]);
    assert_eq!(l1.bias(), [0.0; 4]);
    assert_eq!(
        (l2.inputs(), l2.outputs(), l2.activation()),
        (4, 6, Activation::Softmax)
    );
}

/// The error of `bytes`, as its message.
fn onnx_error(bytes: &[u8]) -> (OnnxError, String) {
    let e = read_mlp(bytes).unwrap_err();
    let message = e.to_string();
    (e, message)
}

/// The 3-6 softmax net with node `k` replaced by `replacement`.
fn softmax_net_with(replace: Option<(usize, Pb)>, initializers: Vec<Pb>) -> Vec<u8> {
    let mut nodes = vec![
        node("Gemm", &["x", "w", "b"], "z", vec![attr_i("transB", 1)]),
        node("Softmax", &["z"], "y", vec![attr_i("axis", -1)]),
    ];
    if let Some((k, n)) = replace {
        nodes[k] = n;
    }
    let mut inits = vec![
        tensor("w", &[6, 3], &[0.5; 18]),
        tensor("b", &[6], &[0.0; 6]),
    ];
    inits.extend(initializers);
    model(nodes, inits)
}

#[test]
fn onnx_unsupported_graphs_name_the_node_and_the_problem() {
    read_mlp(&softmax_net_with(None, vec![])).unwrap();

    let conv = node("Conv", &["x", "w"], "z", vec![]);
    let (e, m) = onnx_error(&softmax_net_with(Some((0, conv)), vec![]));
    assert!(matches!(&e, OnnxError::Unsupported { node: 0, op, .. } if op == "Conv"));
    assert_eq!(
        m,
        "node 0 'Conv': bgfast runs dense Gemm/MatMul+Add graphs with tanh, sigmoid, relu, \
         hard sigmoid and a softmax or sigmoid head"
    );

    let trans_a = node(
        "Gemm",
        &["x", "w", "b"],
        "z",
        vec![attr_i("transA", 1), attr_i("transB", 1)],
    );
    let (_, m) = onnx_error(&softmax_net_with(Some((0, trans_a)), vec![]));
    assert!(m.starts_with("node 0 'Gemm': transA = 1"), "{m}");

    let unknown = node("Gemm", &["x", "w", "b"], "z", vec![attr_i("transC", 1)]);
    let (_, m) = onnx_error(&softmax_net_with(Some((0, unknown)), vec![]));
    assert!(m.contains("attribute 'transC'"), "{m}");

    let axis0 = node("Softmax", &["z"], "y", vec![attr_i("axis", 0)]);
    let (_, m) = onnx_error(&softmax_net_with(Some((1, axis0)), vec![]));
    assert!(m.starts_with("node 1 'Softmax': axis 0"), "{m}");

    let elsewhere = node("Softmax", &["w"], "y", vec![]);
    let (_, m) = onnx_error(&softmax_net_with(Some((1, elsewhere)), vec![]));
    assert!(m.contains("chain"), "{m}");

    let custom = node("Softmax", &["z"], "y", vec![]).str(7, "com.example");
    let (_, m) = onnx_error(&softmax_net_with(Some((1, custom)), vec![]));
    assert!(m.contains("domain 'com.example'"), "{m}");

    let not_init = node("Gemm", &["x", "q", "b"], "z", vec![attr_i("transB", 1)]);
    let (_, m) = onnx_error(&softmax_net_with(Some((0, not_init)), vec![]));
    assert!(m.contains("'q' is not an initializer"), "{m}");

    let dangling = node("Softmax", &["z"], "s", vec![]);
    let (e, _) = onnx_error(&softmax_net_with(Some((1, dangling)), vec![]));
    assert!(matches!(e, OnnxError::Graph(_)), "{e:?}");

    // A 3-way softmax is no head bgfast reads.
    let three = tensor("w", &[3, 3], &[0.5; 9]);
    let bytes = model(
        vec![
            node("Gemm", &["x", "w"], "z", vec![attr_i("transB", 1)]),
            node("Softmax", &["z"], "y", vec![]),
        ],
        vec![three],
    );
    let (e, m) = onnx_error(&bytes);
    assert!(
        matches!(e, OnnxError::Invalid(NetError::Activation { .. })),
        "{e:?}"
    );
    assert!(
        m.starts_with("bad net: layer 0: the last layer is 3 softmax outputs"),
        "{m}"
    );
}

/// A 3-4-6 net whose hidden layer's activation is `hidden`.
fn hard_sigmoid_net(hidden: Pb) -> Vec<u8> {
    model(
        vec![
            node("Gemm", &["x", "w1", "b1"], "h", vec![attr_i("transB", 1)]),
            hidden,
            node("Gemm", &["a", "w2", "b2"], "z", vec![attr_i("transB", 1)]),
            node("Softmax", &["z"], "y", vec![attr_i("axis", 1)]),
        ],
        vec![
            tensor("w1", &[4, 3], &[0.5; 12]),
            tensor("b1", &[4], &[0.0; 4]),
            tensor("w2", &[6, 4], &[0.25; 24]),
            tensor("b2", &[6], &[0.0; 6]),
        ],
    )
}

#[test]
fn onnx_hard_sigmoid_is_pytorchs_only() {
    // PyTorch's nn.Hardsigmoid exports alpha 1/6 (beta left at ONNX's default 0.5).
    let torch = node("HardSigmoid", &["h"], "a", vec![attr_f("alpha", 1.0 / 6.0)]);
    let mlp = read_mlp(&hard_sigmoid_net(torch)).unwrap();
    assert_eq!(mlp.layers()[0].activation(), Activation::HardSigmoid);
    // ONNX's own default slope (0.2) is another function: refused, naming it.
    let onnx_default = node("HardSigmoid", &["h"], "a", vec![]);
    let (e, m) = onnx_error(&hard_sigmoid_net(onnx_default));
    assert!(
        matches!(&e, OnnxError::Unsupported { node: 1, .. }),
        "{e:?}"
    );
    assert!(m.contains("alpha 0.2 and beta 0.5"), "{m}");
    let shifted = node(
        "HardSigmoid",
        &["h"],
        "a",
        vec![attr_f("alpha", 1.0 / 6.0), attr_f("beta", 0.4)],
    );
    let (_, m) = onnx_error(&hard_sigmoid_net(shifted));
    assert!(m.contains("beta 0.4"), "{m}");
}

#[test]
fn onnx_tensors_bgfast_cannot_use_are_named() {
    let with_w = |w: Pb| {
        model(
            vec![
                node("Gemm", &["x", "w", "b"], "z", vec![attr_i("transB", 1)]),
                node("Softmax", &["z"], "y", vec![]),
            ],
            vec![w, tensor("b", &[6], &[0.0; 6])],
        )
    };
    let double = Pb::default()
        .varint(1, 6)
        .varint(1, 3)
        .varint(2, 11)
        .str(8, "w")
        .bytes(9, &[0; 144]);
    let (_, m) = onnx_error(&with_w(double));
    assert_eq!(
        m,
        "tensor 'w': data type 11; bgfast reads FLOAT (1) tensors only"
    );

    let external = tensor("w", &[6, 3], &[]).varint(14, 1);
    let (_, m) = onnx_error(&with_w(external));
    assert!(m.contains("external file"), "{m}");

    let short = tensor("w", &[6, 3], &[0.5; 17]);
    let (_, m) = onnx_error(&with_w(short));
    assert!(m.contains("shape [6, 3] but 68 bytes"), "{m}");

    let vector = tensor("w", &[18], &[0.5; 18]);
    let (_, m) = onnx_error(&with_w(vector));
    assert!(m.contains("2-D"), "{m}");

    // A matrix with no data but an enormous width is refused by its width.
    let empty = tensor("w", &[0, 1 << 40], &[]);
    let (_, m) = onnx_error(&with_w(empty));
    assert!(m.contains("each width must be"), "{m}");

    let nan = tensor("w", &[6, 3], &[f32::NAN; 18]);
    let (e, _) = onnx_error(&with_w(nan));
    assert!(
        matches!(e, OnnxError::Invalid(NetError::NotFinite { .. })),
        "{e:?}"
    );

    let (_, m) = onnx_error(&model(vec![], vec![]));
    assert_eq!(
        m,
        "ONNX graph: the chain of nodes ends at \"x\", not at the graph's output \"y\""
    );
    let (_, m) = onnx_error(&Pb::default().varint(1, 7).0);
    assert_eq!(m, "ONNX graph: the file holds no graph");
}

#[test]
fn onnx_garbage_and_truncation_are_errors() {
    let good = std::fs::read(wildbg_onnx("race")).unwrap();
    read_mlp(&good).unwrap();
    for cut in (0..good.len()).step_by(7) {
        assert!(read_mlp(&good[..cut]).is_err(), "cut at {cut}");
    }
    // A wire type that does not exist, a group, a 65-bit number, a length beyond the end.
    for bad in [
        &[0x0f][..],
        &[0x0b],
        &[
            0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
        ],
        &[0x3a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00],
        &[0x00],
    ] {
        let (e, m) = onnx_error(bad);
        assert!(matches!(e, OnnxError::Protobuf { .. }), "{bad:?}: {e:?}");
        assert!(m.starts_with("not a readable ONNX file (byte "), "{m}");
    }
    // Offsets count from the start of the file, inside nested messages too: a model whose
    // graph (field 7, length 2 at bytes 1..2) holds a field of wire type 7 at byte 2.
    let (_, m) = onnx_error(&[0x3a, 0x02, 0x0f, 0x00]);
    assert_eq!(
        m,
        "not a readable ONNX file (byte 2): wire type 7 does not exist"
    );
    let dir = temp_dir("onnx");
    match read_mlp_file(&dir) {
        Err(OnnxError::Io { .. }) => {}
        other => panic!("{other:?}"),
    }
}
