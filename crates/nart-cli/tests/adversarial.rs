//! A seeded adversarial suite for the `nart` binary, run as a black box: every case runs in a
//! child process under `ulimit -v` (bounded memory) and a timeout (no hang), and must end with
//! exit code 0, or 1 with a message naming what is wrong (the node, the input, the file or the
//! flag); never a panic, never a signal.
//!
//! The families, each from fixed seeds so that a failure reproduces (the models are built here
//! with the prost types):
//! - **huge sizes**: ConstantOfShape, Expand, Tile, Range, OneHot, Pad, Resize, broadcasting,
//!   MatMul and Einsum sized from initializers or from inputs, under `--max-memory` or its
//!   default, and inputs of 2^40 elements (`.pb`, `.npy`, and `nart bench`'s synthetic ones);
//! - **unbounded loops**: Loops without a trip count, with a trip count of 2^62, nested, and
//!   collecting scan outputs, under `--max-loop-iterations` and `--max-memory`;
//! - **invalid models**: zero windows, inputs listed twice, inputs overriding initializers (which
//!   must compute the right values), and seeded byte mutations of the committed models;
//! - **hostile command lines**: non-UTF-8 paths and values, `/dev/full`, a closed pipe, missing
//!   files, directories as files and files as directories, and huge or malformed numbers in
//!   flags.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nart_test_dialect::child::{self, Bounds, Out, Outcome};

use nart_onnx_proto::{
    tensor_shape_proto, type_proto, AttributeProto, GraphProto, Message, ModelProto, NodeProto,
    OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};

/// The address-space limit of every child, in KiB (`ulimit -v`).
const MEMORY_KIB: u64 = 2 << 20;

/// The longest a case may run.
const TIMEOUT: Duration = Duration::from_secs(20);

/// xorshift64*: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

// ----- models -----

const F32: i32 = 1;
const I64: i32 = 7;
const BOOL: i32 = 9;

fn info(name: &str, elem: i32, dims: Option<&[i64]>) -> ValueInfoProto {
    let shape = dims.map(|dims| TensorShapeProto {
        dim: dims
            .iter()
            .map(|&d| tensor_shape_proto::Dimension {
                value: Some(tensor_shape_proto::dimension::Value::DimValue(d)),
                ..Default::default()
            })
            .collect(),
    });
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem),
                shape,
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn i64s(name: &str, dims: &[i64], v: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(I64),
        int64_data: v.to_vec(),
        ..Default::default()
    }
}

fn f32s(name: &str, dims: &[i64], v: &[f32]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(F32),
        float_data: v.to_vec(),
        ..Default::default()
    }
}

fn attr_ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(7),
        ints: v.to_vec(),
        ..Default::default()
    }
}

fn attr_str(name: &str, v: &str) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(3),
        s: Some(v.as_bytes().to_vec()),
        ..Default::default()
    }
}

fn attr_graph(name: &str, g: GraphProto) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(5),
        g: Some(g),
        ..Default::default()
    }
}

fn node(
    op: &str,
    name: &str,
    inputs: &[&str],
    outputs: &[&str],
    attrs: Vec<AttributeProto>,
) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        name: Some(name.into()),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        attribute: attrs,
        ..Default::default()
    }
}

fn graph(
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: Vec<ValueInfoProto>,
    inits: Vec<TensorProto>,
) -> GraphProto {
    GraphProto {
        name: Some("g".into()),
        node: nodes,
        input: inputs,
        output: outputs,
        initializer: inits,
        ..Default::default()
    }
}

fn model(g: GraphProto) -> Vec<u8> {
    ModelProto {
        ir_version: Some(10),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(21),
        }],
        graph: Some(g),
        ..Default::default()
    }
    .encode_to_vec()
}

/// A case folder: `model.onnx` and an `in/` folder of `input_N.pb`.
struct Case {
    dir: PathBuf,
}

impl Case {
    fn new(root: &Path, name: &str, model: &[u8], inputs: &[TensorProto]) -> Case {
        let dir = root.join(name);
        std::fs::create_dir_all(dir.join("in")).expect("the case folder is created");
        std::fs::write(dir.join("model.onnx"), model).expect("writes the model");
        for (i, t) in inputs.iter().enumerate() {
            std::fs::write(dir.join(format!("in/input_{i}.pb")), t.encode_to_vec())
                .expect("writes an input");
        }
        Case { dir }
    }

    fn model(&self) -> String {
        self.dir
            .join("model.onnx")
            .to_str()
            .expect("UTF-8")
            .to_string()
    }

    fn inputs(&self) -> String {
        self.dir.join("in").to_str().expect("UTF-8").to_string()
    }

    fn outputs(&self) -> String {
        self.dir.join("out").to_str().expect("UTF-8").to_string()
    }

    /// `nart run` on this case, with `extra` flags.
    fn run_args(&self, extra: &[&str]) -> Vec<OsString> {
        let mut a = os(&[
            "run",
            "--model",
            &self.model(),
            "--inputs",
            &self.inputs(),
            "--outputs",
            &self.outputs(),
        ]);
        a.extend(os(extra));
        a
    }
}

// ----- running -----

#[derive(Clone, Copy, PartialEq, Debug)]
enum Expect {
    /// Exit code 0.
    Ok,
    /// Exit code 1 and standard error containing every one of these.
    Error(&'static [&'static str]),
    /// Exit code 1 and standard error containing this.
    Says(&'static str),
    /// Exit code 0, or 1 with an `error:` line.
    Either,
}

fn run(args: &[OsString], out: Out) -> Outcome {
    let bounds = Bounds {
        memory_kib: MEMORY_KIB,
        timeout: TIMEOUT,
    };
    child::run(env!("CARGO_BIN_EXE_nart"), args, None, out, bounds)
}

#[derive(Default)]
struct Report {
    failures: Vec<String>,
    cases: usize,
}

impl Report {
    fn case(&mut self, name: &str, args: &[OsString], out: Out, expect: Expect) -> Outcome {
        self.cases += 1;
        let o = run(args, out);
        let what = |why: &str| {
            let args: String = format!("{args:?}").chars().take(400).collect();
            format!(
                "{name}: {why} (args {args}, exit {:?}, signal {:?})\n{}",
                o.code,
                o.signal,
                o.stderr.chars().take(600).collect::<String>()
            )
        };
        let problem = if o.timed_out {
            Some(what("timed out"))
        } else if o.signal.is_some() {
            Some(what("killed by a signal"))
        } else if o.stderr.contains("panicked") || o.stderr.contains("memory allocation") {
            Some(what("panicked or aborted"))
        } else {
            match (expect, o.code) {
                (Expect::Ok, Some(0)) | (Expect::Either, Some(0)) => None,
                (Expect::Either, Some(1)) => {
                    (!o.stderr.contains("error")).then(|| what("no error message"))
                }
                (Expect::Error(needles), Some(1)) => needles
                    .iter()
                    .find(|n| !o.stderr.contains(*n))
                    .map(|n| what(&format!("the message does not say '{n}'"))),
                (Expect::Says(n), Some(1)) => (!o.stderr.contains(n))
                    .then(|| what(&format!("the message does not say '{n}'"))),
                (e, _) => Some(what(&format!("expected {e:?}"))),
            }
        };
        self.failures.extend(problem);
        o
    }

    fn fail(&mut self, msg: String) {
        self.failures.push(msg);
    }

    /// Reports the run, fails the test if a case failed, and removes the scratch folder when
    /// none did (a failure keeps the files to look at).
    fn finish(self, family: &str, start: Instant, scratch: Option<&Path>) {
        eprintln!(
            "{family}: {} cases in {:.1} s",
            self.cases,
            start.elapsed().as_secs_f64()
        );
        assert!(
            self.failures.is_empty(),
            "{} of {} {family} cases failed:\n{}",
            self.failures.len(),
            self.cases,
            self.failures.join("\n\n")
        );
        if let Some(dir) = scratch {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("nart-adversarial-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("the scratch folder is created");
    d
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The value of output `k` of a run, decoded as f32s.
fn output_f32(dir: &Path, k: usize) -> Vec<f32> {
    let bytes = std::fs::read(dir.join(format!("out/output_{k}.pb"))).unwrap_or_default();
    let t = TensorProto::decode(bytes.as_slice()).unwrap_or_default();
    if !t.float_data.is_empty() {
        return t.float_data;
    }
    t.raw_data
        .unwrap_or_default()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

// ----- families -----

/// A node whose output size comes from its inputs: `big` elements or so. Its node inputs, the
/// tensors that feed them and its attributes.
fn sizing_parts(
    rng: &mut Rng,
    op: &str,
    big: i64,
) -> (Vec<&'static str>, Vec<TensorProto>, Vec<AttributeProto>) {
    let vec1 = |name: &str, v: &[i64]| i64s(name, &[v.len() as i64], v);
    // Operands whose broadcast (or product) has `side * side` elements.
    let side = (big as f64).sqrt() as i64;
    let ones = |name: &str, dims: &[i64]| {
        let mut t = f32s(name, dims, &[]);
        t.raw_data = Some(vec![0; 4 * dims.iter().product::<i64>() as usize]);
        t
    };
    let equation = |e: &str| AttributeProto {
        name: Some("equation".into()),
        r#type: Some(3),
        s: Some(e.as_bytes().to_vec()),
        ..Default::default()
    };
    match op {
        "ConstantOfShape" => (
            vec!["s"],
            vec![vec1("s", &[big, rng.pick(&[1, 2, 3])])],
            vec![],
        ),
        "Expand" => (
            vec!["x", "s"],
            vec![f32s("x", &[1], &[1.0]), vec1("s", &[big, 4])],
            vec![],
        ),
        "Tile" => (
            vec!["x", "r"],
            vec![f32s("x", &[2], &[1.0, 2.0]), vec1("r", &[big])],
            vec![],
        ),
        "Range" => (
            vec!["a", "b", "d"],
            vec![
                f32s("a", &[], &[0.0]),
                f32s("b", &[], &[big as f32]),
                f32s("d", &[], &[1.0]),
            ],
            vec![],
        ),
        "OneHot" => (
            vec!["i", "d", "v"],
            vec![
                vec1("i", &[0, 1, 2, 3]),
                i64s("d", &[], &[big]),
                f32s("v", &[2], &[0.0, 1.0]),
            ],
            vec![],
        ),
        "Pad" => (
            vec!["x", "p"],
            vec![f32s("x", &[1, 1], &[1.0]), vec1("p", &[0, 0, big, big])],
            vec![],
        ),
        "Resize" => (
            vec!["x", "", "", "s"],
            vec![
                f32s("x", &[1, 1, 2, 2], &[1.0; 4]),
                vec1("s", &[1, 1, big, big]),
            ],
            vec![attr_str("mode", "nearest")],
        ),
        "Add" => (
            vec!["a", "b"],
            vec![ones("a", &[side, 1]), ones("b", &[1, side])],
            vec![],
        ),
        "MatMul" => (
            vec!["a", "b"],
            vec![ones("a", &[side, 1]), ones("b", &[1, side])],
            vec![],
        ),
        _ => (
            vec!["a", "b"],
            vec![ones("a", &[side]), ones("b", &[side])],
            vec![equation("i,j->ij")],
        ),
    }
}

/// A model of one sizing node with its inputs as initializers (static: the size is known when
/// the model is planned) or as model inputs (dynamic); returns the model and its input files.
fn sizing_model(rng: &mut Rng, op: &str, big: i64, dynamic: bool) -> (Vec<u8>, Vec<TensorProto>) {
    let (ins, vals, attrs) = sizing_parts(rng, op, big);
    let out = info("y", F32, None);
    let n = node(op, "sizer", &ins, &["y"], attrs);
    if dynamic {
        let inputs = vals
            .iter()
            .map(|t| info(t.name(), t.data_type(), Some(&t.dims)))
            .collect();
        (model(graph(vec![n], inputs, vec![out], vec![])), vals)
    } else {
        (model(graph(vec![n], vec![], vec![out], vals)), vec![])
    }
}

/// Huge sizes: every sizing op, static and dynamic, over the limit; inputs of 2^40 elements.
#[test]
fn huge_sizes() {
    let start = Instant::now();
    let root = scratch("huge");
    let mut rng = Rng(0x5eed_1001);
    let mut r = Report::default();
    let ops = [
        "ConstantOfShape",
        "Expand",
        "Tile",
        "Range",
        "OneHot",
        "Pad",
        "Resize",
        "Add",
        "MatMul",
        "Einsum",
    ];
    for i in 0..150 {
        let op = ops[i % ops.len()];
        let dynamic = rng.below(2) == 1;
        // Either the default limit and sizes past any machine (for ops sized by values), or a
        // tight limit and sizes just past it (operands of broadcasting ops are real data).
        let broadcast = matches!(op, "Add" | "MatMul" | "Einsum");
        let default_limit = !broadcast && rng.below(3) == 0;
        let big = if default_limit {
            rng.pick(&[1i64 << 40, 1 << 45, 1 << 50, 1 << 62, i64::MAX])
        } else if broadcast {
            rng.pick(&[1i64 << 23, 1 << 24, 1 << 26])
        } else {
            rng.pick(&[1i64 << 24, 1 << 26, 1 << 30, 1 << 33])
        };
        let (bytes, inputs) = sizing_model(&mut rng, op, big, dynamic);
        let case = Case::new(&root, &format!("c{i}"), &bytes, &inputs);
        let flags: Vec<&str> = if default_limit {
            vec![]
        } else {
            vec!["--max-memory", "16M"]
        };
        let name = format!(
            "{op} #{i} ({}, {})",
            if dynamic { "dynamic" } else { "static" },
            big
        );
        let o = r.case(
            &name,
            &case.run_args(&flags),
            Out::Pipe,
            Expect::Error(&["\"sizer\" ("]),
        );
        if o.code == Some(1)
            && !["memory limit", "too large", "too long"]
                .iter()
                .any(|m| o.stderr.contains(m))
        {
            r.fail(format!(
                "{name}: the error is not about size:\n{}",
                o.stderr
            ));
        }
    }
    // Inputs of 2^40 elements: a .pb, a .npy header, and bench's synthetic inputs.
    let relu = |dims: &[i64]| {
        model(graph(
            vec![node("Relu", "relu", &["x"], &["y"], vec![])],
            vec![info("x", F32, Some(dims))],
            vec![info("y", F32, Some(dims))],
            vec![],
        ))
    };
    let big = [1i64 << 40];
    let pb = Case::new(&root, "pb", &relu(&big), &[f32s("x", &big, &[])]);
    r.case(
        "a 2^40-element .pb",
        &pb.run_args(&[]),
        Out::Pipe,
        Expect::Error(&["input #0 'x'"]),
    );
    let mut raw = f32s("x", &big, &[]);
    raw.raw_data = Some(vec![0; 16]);
    let pb = Case::new(&root, "pb-raw", &relu(&big), &[raw]);
    r.case(
        "a 2^40-element raw .pb",
        &pb.run_args(&[]),
        Out::Pipe,
        Expect::Error(&["input #0 'x'"]),
    );
    let npy = Case::new(&root, "npy", &relu(&big), &[]);
    let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }";
    let mut file = b"\x93NUMPY\x01\x00".to_vec();
    let padded = format!("{header}{}\n", " ".repeat(117 - header.len()));
    file.extend((padded.len() as u16).to_le_bytes());
    file.extend(padded.as_bytes());
    std::fs::write(npy.dir.join("in/input_0.npy"), file).expect("writes");
    r.case(
        "a 2^40-element .npy",
        &npy.run_args(&[]),
        Out::Pipe,
        Expect::Error(&["input #0 'x'", "memory limit"]),
    );
    for dims in [&big[..], &[1 << 30, 1 << 30], &[i64::MAX, 2]] {
        let m = Case::new(&root, "bench", &relu(dims), &[]);
        r.case(
            &format!("bench with synthetic inputs {dims:?}"),
            &os(&["bench", "--model", &m.model(), "--runs", "1"]),
            Out::Pipe,
            Expect::Error(&["input #0 'x'"]),
        );
    }
    r.finish("huge sizes", start, Some(&root));
}

/// A Loop over `body`, with optional trip count and condition initializers.
fn loop_model(m: Option<i64>, scan: Option<i64>, nested: bool) -> Vec<u8> {
    let mut body_nodes = vec![
        node("Identity", "keep", &["c"], &["co"], vec![]),
        node("Identity", "carry", &["v"], &["vo"], vec![]),
    ];
    let mut body_outs = vec![info("co", BOOL, Some(&[])), info("vo", F32, Some(&[1]))];
    let mut inits = vec![];
    if let Some(n) = scan {
        body_nodes.push(node(
            "ConstantOfShape",
            "chunk",
            &["shape"],
            &["so"],
            vec![],
        ));
        body_outs.push(info("so", F32, Some(&[n])));
        inits.push(i64s("shape", &[1], &[n]));
    }
    if nested {
        let inner = graph(
            vec![
                node("Identity", "ikeep", &["ic"], &["ico"], vec![]),
                node("Identity", "icarry", &["iv"], &["ivo"], vec![]),
            ],
            vec![
                info("ii", I64, Some(&[])),
                info("ic", BOOL, Some(&[])),
                info("iv", F32, Some(&[1])),
            ],
            vec![info("ico", BOOL, Some(&[])), info("ivo", F32, Some(&[1]))],
            vec![],
        );
        body_nodes.push(node(
            "Loop",
            "inner",
            &["", "c", "v"],
            &["w"],
            vec![attr_graph("body", inner)],
        ));
        body_nodes[1] = node("Identity", "carry", &["w"], &["vo"], vec![]);
    }
    let mut body = graph(
        body_nodes,
        vec![
            info("i", I64, Some(&[])),
            info("c", BOOL, Some(&[])),
            info("v", F32, Some(&[1])),
        ],
        body_outs,
        inits,
    );
    body.name = Some("body".into());
    let mut outer_inits = vec![TensorProto {
        name: Some("cond".into()),
        dims: vec![],
        data_type: Some(BOOL),
        int32_data: vec![1],
        ..Default::default()
    }];
    let m_name = if let Some(m) = m {
        outer_inits.push(i64s("M", &[], &[m]));
        "M"
    } else {
        ""
    };
    let mut outs = vec![info("y", F32, Some(&[1]))];
    let mut results = vec!["y"];
    if scan.is_some() {
        outs.push(info("scanned", F32, None));
        results.push("scanned");
    }
    model(graph(
        vec![node(
            "Loop",
            "loop",
            &[m_name, "cond", "x"],
            &results,
            vec![attr_graph("body", body)],
        )],
        vec![info("x", F32, Some(&[1]))],
        outs,
        outer_inits,
    ))
}

/// Unbounded loops under the iteration and memory limits.
#[test]
fn unbounded_loops() {
    let start = Instant::now();
    let root = scratch("loops");
    let mut rng = Rng(0x5eed_1002);
    let mut r = Report::default();
    for i in 0..60 {
        let m = rng.pick(&[None, Some(1i64 << 62), Some(i64::MAX)]);
        let nested = rng.below(3) == 0;
        let limit = rng.pick(&[0u64, 1, 100, 5000]);
        let case = Case::new(
            &root,
            &format!("l{i}"),
            &loop_model(m, None, nested),
            &[f32s("x", &[1], &[1.0])],
        );
        let name = format!("loop #{i} (M {m:?}, nested {nested}, limit {limit})");
        r.case(
            &name,
            &case.run_args(&["--max-loop-iterations", &limit.to_string()]),
            Out::Pipe,
            Expect::Error(&["ran past the limit of", "loop iterations"]),
        );
    }
    // Scan outputs that pile up past the memory limit.
    for (i, chunk) in [1i64 << 16, 1 << 18].into_iter().enumerate() {
        let case = Case::new(
            &root,
            &format!("s{i}"),
            &loop_model(Some(1 << 40), Some(chunk), false),
            &[f32s("x", &[1], &[1.0])],
        );
        r.case(
            &format!("scan outputs of {chunk} floats"),
            &case.run_args(&["--max-memory", "8M"]),
            Out::Pipe,
            Expect::Error(&["\"loop\" (", "memory limit"]),
        );
    }
    // A loop within the limits runs and carries its value.
    let case = Case::new(
        &root,
        "fine",
        &loop_model(Some(10), None, false),
        &[f32s("x", &[1], &[3.0])],
    );
    r.case(
        "ten iterations",
        &case.run_args(&["--max-loop-iterations", "10"]),
        Out::Pipe,
        Expect::Ok,
    );
    if output_f32(&case.dir, 0) != [3.0] {
        r.fail(format!(
            "ten iterations: wrong output {:?}",
            output_f32(&case.dir, 0)
        ));
    }
    r.finish("unbounded loops", start, Some(&root));
}

/// Invalid models, inputs overriding initializers, and mutations of the committed models.
#[test]
fn invalid_models() {
    let start = Instant::now();
    let root = scratch("invalid");
    let mut rng = Rng(0x5eed_1003);
    let mut r = Report::default();
    let x = f32s("x", &[1, 1, 4, 4], &[1.0; 16]);
    for i in 0..40 {
        let op = rng.pick(&["MaxPool", "AveragePool", "LpPool", "Conv"]);
        let attr = rng.pick(&["kernel_shape", "strides", "dilations"]);
        if op != "Conv" && attr == "dilations" && op != "MaxPool" {
            continue;
        }
        let bad = [rng.pick(&[0i64, -1, -1 << 40]), rng.pick(&[0i64, 1, 2])];
        let mut attrs = vec![attr_ints(attr, &bad)];
        if attr != "kernel_shape" && op != "Conv" {
            attrs.push(attr_ints("kernel_shape", &[2, 2]));
        }
        let (ins, inits) = if op == "Conv" {
            (vec!["x", "w"], vec![f32s("w", &[1, 1, 2, 2], &[1.0; 4])])
        } else {
            (vec!["x"], vec![])
        };
        let g = graph(
            vec![node(op, "win", &ins, &["y"], attrs)],
            vec![info("x", F32, Some(&[1, 1, 4, 4]))],
            vec![info("y", F32, None)],
            inits,
        );
        let case = Case::new(&root, &format!("w{i}"), &model(g), std::slice::from_ref(&x));
        r.case(
            &format!("{op} {attr} {bad:?}"),
            &case.run_args(&[]),
            Out::Pipe,
            Expect::Error(&["node 'win'", "must hold positive values"]),
        );
    }
    // An input listed twice.
    let g = graph(
        vec![node("Add", "add", &["x", "x"], &["y"], vec![])],
        vec![info("x", F32, Some(&[2])), info("x", F32, Some(&[2]))],
        vec![info("y", F32, Some(&[2]))],
        vec![],
    );
    let case = Case::new(&root, "twice", &model(g), &[f32s("x", &[2], &[1.0, 2.0])]);
    r.case(
        "input listed twice",
        &case.run_args(&[]),
        Out::Pipe,
        Expect::Error(&["lists input 'x' more than once"]),
    );
    // An input that overrides an initializer: given, it wins; left out, the initializer is its
    // default.
    let g = graph(
        vec![node("Add", "add", &["x", "b"], &["y"], vec![])],
        vec![info("b", F32, Some(&[2])), info("x", F32, Some(&[2]))],
        vec![info("y", F32, Some(&[2]))],
        vec![f32s("b", &[2], &[10.0, 20.0])],
    );
    let bytes = model(g);
    let given = Case::new(
        &root,
        "override",
        &bytes,
        &[
            f32s("x", &[2], &[1.0, 2.0]),
            f32s("b", &[2], &[100.0, 200.0]),
        ],
    );
    r.case(
        "override given",
        &given.run_args(&[]),
        Out::Pipe,
        Expect::Ok,
    );
    if output_f32(&given.dir, 0) != [101.0, 202.0] {
        r.fail(format!(
            "override given: output {:?}, want [101, 202]",
            output_f32(&given.dir, 0)
        ));
    }
    let default = Case::new(&root, "default", &bytes, &[f32s("x", &[2], &[1.0, 2.0])]);
    r.case(
        "override left out",
        &default.run_args(&[]),
        Out::Pipe,
        Expect::Ok,
    );
    if output_f32(&default.dir, 0) != [11.0, 22.0] {
        r.fail(format!(
            "override left out: output {:?}, want [11, 22]",
            output_f32(&default.dir, 0)
        ));
    }
    // Seeded byte mutations of the committed models, run on their own test data.
    let models = ["digits_mlp", "digits_cnn", "tiny_transformer"];
    for i in 0..200 {
        let m = rng.pick(&models);
        let dir = repo().join("tests/models").join(m);
        let mut bytes =
            std::fs::read(dir.join("model.onnx")).expect("the committed models are readable");
        for _ in 0..1 + rng.below(4) {
            let k = rng.below(bytes.len());
            match rng.below(3) {
                0 => bytes[k] ^= 1 << rng.below(8),
                1 => bytes.truncate(k.max(1)),
                _ => bytes[k] = rng.pick(&[0x00, 0xff, 0x7f, 0x80]),
            }
        }
        let case = Case::new(&root, &format!("m{i}"), &bytes, &[]);
        let data = dir.join("test_data_set_0");
        let args = os(&[
            "run",
            "--model",
            &case.model(),
            "--inputs",
            data.to_str().expect("UTF-8"),
            "--outputs",
            &case.outputs(),
            "--max-memory",
            "512M",
        ]);
        r.case(
            &format!("{m} mutation #{i}"),
            &args,
            Out::Pipe,
            Expect::Either,
        );
    }
    r.finish("invalid models", start, Some(&root));
}

/// Hostile command lines.
#[test]
fn hostile_command_lines() {
    let start = Instant::now();
    let root = scratch("cli");
    let mut r = Report::default();
    let relu = model(graph(
        vec![node("Relu", "relu", &["x"], &["y"], vec![])],
        vec![info("x", F32, Some(&[2]))],
        vec![info("y", F32, Some(&[2]))],
        vec![],
    ));
    let ok = Case::new(&root, "ok", &relu, &[f32s("x", &[2], &[-1.0, 2.0])]);
    r.case("a valid run", &ok.run_args(&[]), Out::Pipe, Expect::Ok);
    // Non-UTF-8 paths work.
    let mut odd = root.clone().into_os_string().into_vec();
    odd.extend_from_slice(b"/\xff\xfe");
    let odd = PathBuf::from(OsString::from_vec(odd));
    std::fs::create_dir_all(odd.join("in")).expect("creates");
    std::fs::write(odd.join("model.onnx"), &relu).expect("writes");
    std::fs::copy(ok.dir.join("in/input_0.pb"), odd.join("in/input_0.pb")).expect("copies");
    let args: Vec<OsString> = vec![
        "run".into(),
        "--model".into(),
        odd.join("model.onnx").into_os_string(),
        "--inputs".into(),
        odd.join("in").into_os_string(),
        "--outputs".into(),
        odd.join("out\u{fffd}").into_os_string(),
    ];
    r.case("non-UTF-8 paths", &args, Out::Pipe, Expect::Ok);
    let mut args = ok.run_args(&[]);
    args.extend(["--func".into(), OsString::from_vec(b"\xff".to_vec())]);
    r.case(
        "non-UTF-8 --func",
        &args,
        Out::Pipe,
        Expect::Error(&["error"]),
    );
    let mut args = ok.run_args(&[]);
    args.push(OsString::from_vec(b"--\xff".to_vec()));
    r.case(
        "non-UTF-8 flag",
        &args,
        Out::Pipe,
        Expect::Error(&["error"]),
    );
    // Output that cannot be written.
    let m = ok.model();
    r.case(
        "bench to /dev/full",
        &os(&["bench", "--model", &m, "--runs", "1"]),
        Out::Full,
        Expect::Error(&["cannot write to standard output"]),
    );
    r.case(
        "bench --json to a closed pipe",
        &os(&["bench", "--model", &m, "--runs", "1", "--json"]),
        Out::Closed,
        Expect::Error(&["cannot write to standard output"]),
    );
    r.case(
        "--help to /dev/full",
        &os(&["--help"]),
        Out::Full,
        Expect::Error(&["cannot write to standard output"]),
    );
    r.case(
        "--version to a closed pipe",
        &os(&["--version"]),
        Out::Closed,
        Expect::Error(&["cannot write to standard output"]),
    );
    r.case(
        "run-tests to /dev/full",
        &os(&[
            "run-tests",
            "--outputs",
            &ok.outputs(),
            &ok.dir.to_string_lossy(),
        ]),
        Out::Full,
        Expect::Error(&["cannot write to standard output"]),
    );
    r.case(
        "outputs under /dev/full",
        &os(&[
            "run",
            "--model",
            &m,
            "--inputs",
            &ok.inputs(),
            "--outputs",
            "/dev/full/out",
        ]),
        Out::Pipe,
        Expect::Error(&["/dev/full"]),
    );
    r.case(
        "outputs is a file",
        &os(&[
            "run",
            "--model",
            &m,
            "--inputs",
            &ok.inputs(),
            "--outputs",
            &m,
        ]),
        Out::Pipe,
        Expect::Error(&["model.onnx"]),
    );
    // Missing files, folders as files and files as folders.
    let dir = root.to_str().expect("UTF-8").to_string();
    for (name, args, needle) in [
        (
            "missing model",
            vec![
                "run",
                "--model",
                "/nonexistent/m.onnx",
                "--inputs",
                &dir,
                "--outputs",
                &dir,
            ],
            "/nonexistent/m.onnx",
        ),
        (
            "a folder as model",
            vec!["run", "--model", &dir, "--inputs", &dir, "--outputs", &dir],
            "Is a directory",
        ),
        (
            "a file as inputs",
            vec!["run", "--model", &m, "--inputs", &m, "--outputs", &dir],
            "is not a folder",
        ),
        (
            "missing inputs",
            vec![
                "run",
                "--model",
                &m,
                "--inputs",
                "/nonexistent",
                "--outputs",
                &dir,
            ],
            "/nonexistent",
        ),
        (
            "/dev/null as model",
            vec!["bench", "--model", "/dev/null"],
            "/dev/null",
        ),
        (
            "a file as dataset",
            vec!["run", "--model", &m, "--dataset", &m, "--outputs", &dir],
            "model.onnx",
        ),
        (
            "unknown function",
            vec![
                "run",
                "--model",
                &m,
                "--inputs",
                &ok.inputs(),
                "--outputs",
                &dir,
                "--func",
                "nope",
            ],
            "nope",
        ),
    ] {
        r.case(name, &os(&args), Out::Pipe, Expect::Says(needle));
    }
    // Huge or malformed numbers in flags, and malformed command lines.
    for (name, extra) in [
        (
            "--max-memory 10^30",
            vec!["--max-memory", "1000000000000000000000000000000"],
        ),
        (
            "--max-memory 2^64 T",
            vec!["--max-memory", "18446744073709551615T"],
        ),
        ("--max-memory 1e3", vec!["--max-memory", "1e3"]),
        ("--max-memory -1", vec!["--max-memory=-1"]),
        ("--max-memory 200%", vec!["--max-memory", "200%"]),
        ("--max-memory empty", vec!["--max-memory", ""]),
        (
            "--max-loop-iterations 10^30",
            vec!["--max-loop-iterations", "1000000000000000000000000000000"],
        ),
        ("--max-loop-iterations -1", vec!["--max-loop-iterations=-1"]),
        ("two inputs flags", vec!["--dataset", "/tmp"]),
    ] {
        let mut args = ok.run_args(&[]);
        args.extend(os(&extra));
        r.case(name, &args, Out::Pipe, Expect::Error(&["error"]));
    }
    for (name, args) in [
        (
            "--runs 10^30",
            vec![
                "bench",
                "--model",
                &m,
                "--runs",
                "1000000000000000000000000000000",
            ],
        ),
        (
            "--runs 2^64-1",
            vec!["bench", "--model", &m, "--runs", "18446744073709551615"],
        ),
        ("--runs 0", vec!["bench", "--model", &m, "--runs", "0"]),
        ("--runs -3", vec!["bench", "--model", &m, "--runs=-3"]),
        ("unknown subcommand", vec!["frobnicate"]),
        (
            "run without --model",
            vec!["run", "--inputs", &dir, "--outputs", &dir],
        ),
    ] {
        r.case(name, &os(&args), Out::Pipe, Expect::Error(&["error"]));
    }
    // Without a subcommand, the usage goes to standard error.
    r.case(
        "no subcommand",
        &[],
        Out::Pipe,
        Expect::Says("Usage: nart <COMMAND>"),
    );
    // The tightest memory limit fails with a message; a generous one runs.
    r.case(
        "--max-memory 0",
        &ok.run_args(&["--max-memory", "0"]),
        Out::Pipe,
        Expect::Error(&["memory limit"]),
    );
    r.case(
        "--max-memory 50%",
        &ok.run_args(&["--max-memory", "50%"]),
        Out::Pipe,
        Expect::Ok,
    );
    let o = r.case("--help", &os(&["run", "--help"]), Out::Pipe, Expect::Ok);
    if !String::from_utf8_lossy(&o.stdout).contains("--max-memory <SIZE>") {
        r.fail("run --help does not show --max-memory".into());
    }
    r.finish("hostile command lines", start, Some(&root));
}
