//! The `.bgnet` file format: round trips, and every kind of bad input refused with the
//! error that names it, never a panic.

use std::path::PathBuf;

use bgfast_core::bearoff::file::fnv1a64;
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
    // Signed zeros and subnormals survive: weights are stored as their bits.
    let odd = [-0.0f32, f32::MIN_POSITIVE / 4.0, f32::MAX, -f32::MAX];
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
