//! Property tests of the net readers: whatever the bytes, an answer and never a panic; and a
//! `.bgnet` file that reads is exactly the file its net writes.

use bgfast_core::bearoff::file::fnv1a64;
use bgfast_engine::net::file::HEADER;
use bgfast_engine::net::onnx::read_mlp;
use bgfast_engine::net::{Activation, Dense, Inputs, Mlp, Net};
use proptest::prelude::*;

/// A board-encoding net with a 50-3-6 contact part and a 50-5 race part.
fn small_net() -> Net {
    let dense = |inputs: usize, outputs: usize, activation| {
        let weights = (0..inputs * outputs)
            .map(|k| (k % 7) as f32 - 3.0)
            .collect();
        let bias = (0..outputs).map(|k| k as f32 / 8.0).collect();
        Dense::new(0, inputs, outputs, weights, bias, activation).unwrap()
    };
    let contact = Mlp::new(vec![
        dense(50, 3, Activation::Tanh),
        dense(3, 6, Activation::Softmax),
    ])
    .unwrap();
    let race = Mlp::new(vec![dense(50, 5, Activation::Sigmoid)]).unwrap();
    Net::new(Inputs::Board, contact, Some(race)).unwrap()
}

/// Recomputes the header's length and checksum after an edit, as a forger would, so that
/// the edit reaches the payload parser.
fn reseal(bytes: &mut [u8]) {
    let len = (bytes.len() - HEADER) as u64;
    bytes[12..20].copy_from_slice(&len.to_le_bytes());
    let sum = fnv1a64(&bytes[HEADER..]);
    bytes[20..28].copy_from_slice(&sum.to_le_bytes());
}

/// A byte edit: overwrite, insert or delete at a position (taken modulo the length).
#[derive(Clone, Debug)]
enum Edit {
    Set(usize, u8),
    Insert(usize, u8),
    Delete(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Edit::Set(at, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Edit::Insert(at, b)),
        any::<usize>().prop_map(Edit::Delete),
    ]
}

/// Applies `edits` to `bytes` at or after `from`.
fn apply(bytes: &mut Vec<u8>, from: usize, edits: &[Edit]) {
    for e in edits {
        let span = bytes.len() - from;
        match *e {
            Edit::Set(at, b) if span > 0 => bytes[from + at % span] = b,
            Edit::Insert(at, b) => bytes.insert(from + at % (span + 1), b),
            Edit::Delete(at) if span > 0 => {
                bytes.remove(from + at % span);
            }
            _ => {}
        }
    }
}

/// Every net that reads writes back the same bytes: the format has one spelling per net.
fn check_bgnet(bytes: &[u8]) {
    if let Ok(net) = Net::from_bytes(bytes) {
        assert_eq!(net.to_bytes(), bytes);
    }
}

/// wildbg's race net as ONNX bytes (13 KB).
fn race_onnx() -> &'static [u8] {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/wildbg/race.onnx"
        );
        std::fs::read(path).unwrap()
    })
}

/// Any answer but a panic; a net read from edited bytes is still a valid net.
fn check_onnx(bytes: &[u8]) {
    if let Ok(mlp) = read_mlp(bytes) {
        assert!(mlp.inputs() >= 1 && !mlp.layers().is_empty());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        check_bgnet(&bytes);
        let mut with_magic = small_net().to_bytes()[..HEADER].to_vec();
        with_magic.extend_from_slice(&bytes);
        reseal(&mut with_magic);
        check_bgnet(&with_magic);
    }

    #[test]
    fn edited_payloads_with_matching_checksums_never_panic(
        edits in proptest::collection::vec(edit(), 1..6),
    ) {
        let mut bytes = small_net().to_bytes();
        apply(&mut bytes, HEADER, &edits);
        reseal(&mut bytes);
        check_bgnet(&bytes);
    }

    #[test]
    fn edited_files_never_panic(edits in proptest::collection::vec(edit(), 1..6)) {
        let mut bytes = small_net().to_bytes();
        apply(&mut bytes, 0, &edits);
        check_bgnet(&bytes);
    }

    #[test]
    fn random_bytes_are_never_an_onnx_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..512),
    ) {
        check_onnx(&bytes);
        // Behind a plausible start: a ModelProto whose graph field holds the bytes.
        let mut model = vec![0x08, 0x07, 0x3a];
        let mut len = bytes.len();
        while len >= 0x80 {
            model.push(len as u8 | 0x80);
            len >>= 7;
        }
        model.push(len as u8);
        model.extend_from_slice(&bytes);
        check_onnx(&model);
    }

    #[test]
    fn edited_onnx_files_never_panic(edits in proptest::collection::vec(edit(), 1..8)) {
        let mut bytes = race_onnx().to_vec();
        apply(&mut bytes, 0, &edits);
        check_onnx(&bytes);
    }

    #[test]
    fn cut_onnx_files_never_panic(cut in 0usize..13_000, edit in edit()) {
        let mut bytes = race_onnx()[..cut.min(race_onnx().len())].to_vec();
        apply(&mut bytes, 0, &[edit]);
        check_onnx(&bytes);
    }
}
