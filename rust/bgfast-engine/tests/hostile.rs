//! Hostile but well-formed input to the engine's readers: each case was a crash, an abort
//! or an unbounded allocation before its fix.

use bgfast_engine::net::onnx::{read_mlp, OnnxError, MAX_ENTRIES};

/// A protobuf varint.
fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let low = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(low);
            return out;
        }
        out.push(low | 0x80);
    }
}

/// A ModelProto whose graph (field 7) is `graph`.
fn model(graph: &[u8]) -> Vec<u8> {
    let mut out = vec![0x3a];
    out.extend(varint(graph.len() as u64));
    out.extend_from_slice(graph);
    out
}

fn graph_error(bytes: &[u8]) -> String {
    match read_mlp(bytes) {
        Err(e @ OnnxError::Graph(_)) => e.to_string(),
        Err(e) => panic!("not a graph error: {e}"),
        Ok(_) => panic!("read a net"),
    }
}

#[test]
fn onnx_files_of_many_tiny_entries_are_refused_not_held_in_memory() {
    // Each empty entry is two bytes of the file and about 100 of memory: a 19 MiB file of
    // empty nodes took 1 GiB (a 1 GiB file would have taken 50 GiB, and aborted).
    let too_many = MAX_ENTRIES + 1;
    let cases: [(&str, Vec<u8>); 4] = [
        ("empty nodes", [0x0a, 0x00].repeat(too_many)),
        ("empty initializers", [0x2a, 0x00].repeat(too_many)),
        // One node with empty input names, one tensor with packed dims of one byte each.
        ("node inputs", {
            let inputs = [0x0a, 0x00].repeat(too_many);
            let mut node = vec![0x0a];
            node.extend(varint(inputs.len() as u64));
            node.extend(inputs);
            node
        }),
        ("packed dims", {
            let dims = vec![0x01; too_many];
            let mut tensor = vec![0x0a];
            tensor.extend(varint(dims.len() as u64));
            tensor.extend(dims);
            let mut graph = vec![0x2a];
            graph.extend(varint(tensor.len() as u64));
            graph.extend(tensor);
            graph
        }),
    ];
    for (name, graph) in cases {
        let message = graph_error(&model(&graph));
        assert!(
            message.contains(&format!("more than {MAX_ENTRIES} entries")),
            "{name}: {message}"
        );
    }
    // Under the cap, the same graph is read (and refused for what it is, not its size).
    let message = graph_error(&model(&[0x0a, 0x00].repeat(1000)));
    assert!(!message.contains("entries"), "{message}");
}

/// A length-delimited field.
fn field(number: u64, bytes: &[u8]) -> Vec<u8> {
    let mut out = varint(number << 3 | 2);
    out.extend(varint(bytes.len() as u64));
    out.extend_from_slice(bytes);
    out
}

/// A varint field.
fn varint_field(number: u64, value: u64) -> Vec<u8> {
    let mut out = varint(number << 3);
    out.extend(varint(value));
    out
}

#[test]
fn onnx_layers_sharing_one_initializer_are_refused_before_copying_it_without_bound() {
    // One 256 x 256 matrix, named by 3,000 Gemm nodes in a chain: a 100 KB file, whose
    // layers each copied the matrix (768 MB, and 26 GB for 10^5 nodes) before the head
    // was found wrong. Shared weights are capped: at most MAX_WEIGHTS in all (or one per 4
    // bytes of the file, which layers with tensors of their own never exceed).
    let width = 256u64;
    let mut tensor = Vec::new();
    tensor.extend(varint_field(1, width));
    tensor.extend(varint_field(1, width));
    tensor.extend(varint_field(2, 1));
    tensor.extend(field(8, b"W"));
    tensor.extend(field(9, &vec![0u8; (4 * width * width) as usize]));
    let mut graph = field(5, &tensor);
    graph.extend(field(11, &field(1, b"x")));
    let layers = 3000;
    for k in 0..layers {
        let mut node = Vec::new();
        let input = if k == 0 {
            "x".to_string()
        } else {
            format!("h{}", k - 1)
        };
        node.extend(field(1, input.as_bytes()));
        node.extend(field(1, b"W"));
        node.extend(field(2, format!("h{k}").as_bytes()));
        node.extend(field(4, b"Gemm"));
        graph.extend(field(1, &node));
    }
    graph.extend(field(12, &field(1, format!("h{}", layers - 1).as_bytes())));
    let message = match read_mlp(&model(&graph)) {
        Err(e @ OnnxError::Unsupported { .. }) => e.to_string(),
        Err(e) => panic!("not refused for its weights: {e}"),
        Ok(_) => panic!("read a net"),
    };
    let cap = bgfast_engine::net::mlp::MAX_WEIGHTS;
    assert!(
        message.contains(&format!("at most {cap}, the larger of {cap}")),
        "{message}"
    );
    // Refused at the first layer past the cap, not after all 3,000.
    let first_over = cap / (width * width) as usize;
    assert!(
        message.starts_with(&format!("node {first_over} ")),
        "{message}"
    );
}

#[cfg(target_arch = "x86_64")]
#[test]
fn a_level_claimed_by_another_caller_never_runs_a_build_the_cpu_lacks() {
    // `bgfast_core::isa::net_level` is public and decided by its first caller: a claim of
    // every instruction set used to make the engine's `unsafe` dispatch run AVX-512 code
    // on any CPU (illegal instructions from safe code). On a CPU without AVX-512 this
    // test crashed; here it checks that the build is still the one the CPU has.
    bgfast_core::isa::net_level(|| 200);
    let want = if std::env::var("BGFAST_ISA").is_ok_and(|v| v.trim() == "baseline") {
        "x86-64 baseline"
    } else if is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("fma")
    {
        "AVX-512"
    } else if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        "AVX2+FMA"
    } else {
        "x86-64 baseline"
    };
    assert_eq!(bgfast_engine::net::isa_name(), want);
    // And the net still evaluates, with the build this CPU runs.
    let start = bgfast_core::Position::START;
    let p = bgfast_engine::Evaluator::evaluate_one(bgfast_engine::Net::wildbg(), &start);
    assert!(p.win > 0.4 && p.win < 0.6, "{p:?}");
}

#[test]
fn mutated_onnx_files_are_read_or_refused_never_a_panic() {
    // Random byte changes, insertions and deletions of wildbg's race net: every one is
    // either a net or an error (no panic, no huge allocation).
    use bgfast_core::rng::GameRng;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/wildbg/race.onnx"
    );
    let good = std::fs::read(path).unwrap();
    read_mlp(&good).unwrap();
    let mut rng = GameRng::new(2026, 12);
    let (mut read, mut refused) = (0, 0);
    for _ in 0..300 {
        let mut bytes = good.clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(bytes.len() as u32) as usize;
            let byte = rng.below(256) as u8;
            match rng.below(3) {
                0 => bytes[at] = byte,
                1 => bytes.insert(at, byte),
                _ => {
                    bytes.remove(at);
                }
            }
        }
        match read_mlp(&bytes) {
            Ok(_) => read += 1,
            Err(e) => {
                assert!(!e.to_string().is_empty());
                refused += 1;
            }
        }
    }
    assert!(
        refused > 0 && read + refused == 300,
        "{read} read, {refused} refused"
    );
}
