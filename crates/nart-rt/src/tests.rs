//! Packages built by hand with a toy target: round trip, determinism, every kind of broken
//! file, input checking, casts between segments.

use nart_target_rt::{Artifact, Executable, RtError, RuntimeRegistry, TargetRuntime};
use nart_tensor::Tensor;

use crate::manifest::{
    CastStep, Dim, Manifest, QuantSpec, SegmentStep, Step, TargetInfo, TensorSpec,
};
use crate::package::{ALIGN, HEADER_LEN, MAGIC};
use crate::{crc32, Error, Package, Session};

/// A target whose artifact is an f32 `k` (4 bytes): with one input it adds `k`; with two it
/// returns `a * k + b`.
struct Affine;
struct AffineExe(f32);

impl Executable for AffineExe {
    fn run(&self, x: &[Tensor]) -> Result<Vec<Tensor>, RtError> {
        let a = x[0].to_f32_vec().map_err(|e| RtError::run(e.to_string()))?;
        let y: Vec<f32> = match x {
            [_] => a.iter().map(|v| v + self.0).collect(),
            [_, b] => {
                let b = b.to_f32_vec().map_err(|e| RtError::run(e.to_string()))?;
                a.iter().zip(b).map(|(a, b)| a * self.0 + b).collect()
            }
            _ => return Err(RtError::inputs("one or two inputs")),
        };
        Ok(vec![
            Tensor::from_vec(x[0].shape().to_vec(), y).map_err(|e| RtError::run(e.to_string()))?
        ])
    }
}

impl TargetRuntime for Affine {
    fn target(&self) -> &str {
        "affine"
    }
    fn load(&self, a: &Artifact) -> Result<Box<dyn Executable>, RtError> {
        a.expect_format("f32-le")?;
        let b: [u8; 4] = a
            .bytes
            .as_slice()
            .try_into()
            .map_err(|_| RtError::corrupt("affine", "expected 4 bytes"))?;
        Ok(Box::new(AffineExe(f32::from_le_bytes(b))))
    }
}

fn runtimes() -> RuntimeRegistry {
    let mut r = RuntimeRegistry::new();
    r.register(Box::new(Affine));
    r
}

fn spec(name: &str, dtype: &str, shape: &[Dim]) -> TensorSpec {
    TensorSpec {
        name: name.into(),
        dtype: dtype.into(),
        shape: Some(shape.to_vec()),
        value: None,
    }
}

fn n() -> Dim {
    Dim::Symbol("N".into())
}

fn segment(reads: &[&str], writes: &[&str], blob: usize) -> Step {
    Step::Segment(SegmentStep {
        target: "affine".into(),
        format: "f32-le".into(),
        sdk_version: "1".into(),
        ops: 1,
        reads: reads.iter().map(|s| s.to_string()).collect(),
        writes: writes.iter().map(|s| s.to_string()).collect(),
        blob,
    })
}

fn cast(reads: &str, writes: &str) -> CastStep {
    CastStep {
        reads: reads.into(),
        writes: writes.into(),
        quant: QuantSpec {
            storage: "i8".into(),
            bits: 8,
            min: -128,
            max: 127,
            scales: vec![0.25],
            zero_points: vec![0],
            axis: None,
            block_shape: None,
        },
        float: "f32".into(),
    }
}

/// `y = (q(x + 1) as float) * 2 + x2` with `x: f32[N, 3]`, `x2: f32[N, 3]`, and `x + 1`
/// returned as well (read by a later step and returned: copied, not moved).
fn manifest() -> Manifest {
    Manifest {
        nart_version: "test".into(),
        model: "toy".into(),
        inputs: vec![
            spec("x", "f32", &[n(), Dim::Static(3)]),
            spec("x2", "f32", &[n(), Dim::Static(3)]),
        ],
        outputs: vec![
            spec("y", "f32", &[n(), Dim::Static(3)]),
            spec("t0", "f32", &[n(), Dim::Static(3)]),
        ],
        targets: vec![TargetInfo {
            name: "affine".into(),
            sdk_version: "1".into(),
        }],
        steps: vec![
            segment(&["x"], &["t0"], 0),
            Step::Quantize(cast("t0", "t1")),
            Step::Dequantize(cast("t1", "t2")),
            segment(&["t2", "x2"], &["y"], 1),
        ],
        blobs: vec![],
        notes: [("quantization".to_string(), "test".to_string())].into(),
    }
}

fn package() -> Package {
    Package::new(
        manifest(),
        vec![1.0f32.to_le_bytes().to_vec(), 2.0f32.to_le_bytes().to_vec()],
    )
    .unwrap()
}

fn t(shape: &[usize], v: &[f32]) -> Tensor {
    Tensor::from_vec(shape.to_vec(), v.to_vec()).unwrap()
}

/// A container around `json` and `data`, with correct lengths and checksum.
fn container(version: u32, json: &[u8], data: &[u8]) -> Vec<u8> {
    let mut b = MAGIC.to_vec();
    b.extend_from_slice(&version.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(&(json.len() as u64).to_le_bytes());
    b.extend_from_slice(&crc32(json).to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(&(data.len() as u64).to_le_bytes());
    b.extend_from_slice(json);
    b.resize((HEADER_LEN + json.len()).div_ceil(ALIGN) * ALIGN, 0);
    b.extend_from_slice(data);
    b
}

fn open_err(bytes: Vec<u8>) -> String {
    Package::from_bytes(bytes).unwrap_err().to_string()
}

#[test]
fn round_trip_runs_and_is_deterministic() {
    let p = package();
    assert_eq!(p.as_bytes(), package().as_bytes(), "same input, same bytes");
    assert_eq!(&p.as_bytes()[..8], b"\x89NPK\r\n\x1a\n");
    let q = Package::from_bytes(p.as_bytes().to_vec()).unwrap();
    assert_eq!(q.manifest(), p.manifest());
    assert_eq!(q.blob(1), 2.0f32.to_le_bytes());
    assert_eq!(q.manifest().blobs[1].offset % ALIGN as u64, 0);
    let s = Session::load(&q, &runtimes()).unwrap();
    // t0 = x + 1 = [0.1, 1.3, -2]; q/dq at scale 0.25: [0, 1.25, -2]; y = 2 t2 + x2.
    let out = s
        .run(vec![
            t(&[1, 3], &[-0.9, 0.3, -3.0]),
            t(&[1, 3], &[1.0, 1.0, 1.0]),
        ])
        .unwrap();
    assert_eq!(out[0], t(&[1, 3], &[1.0, 3.5, -3.0]));
    assert_eq!(out[1].to_f32_vec().unwrap(), [-0.9f32 + 1.0, 1.3, -2.0]);
}

#[test]
fn wrong_inputs_name_the_input_the_expected_and_the_given() {
    let s = Session::load(&package(), &runtimes()).unwrap();
    let run = |v: Vec<Tensor>| s.run(v).unwrap_err().to_string();
    let ok = t(&[2, 3], &[0.0; 6]);
    assert_eq!(
        run(vec![ok.clone()]),
        "bad inputs: expected 2 inputs ('x', 'x2'), given 1"
    );
    let i64s = Tensor::from_vec(vec![2, 3], vec![0i64; 6]).unwrap();
    assert_eq!(
        run(vec![ok.clone(), i64s]),
        "bad inputs: input #1 'x2': expected dtype f32, given i64"
    );
    assert_eq!(
        run(vec![t(&[6], &[0.0; 6]), ok.clone()]),
        "bad inputs: input #0 'x': expected rank 2 [N, 3], given rank 1 [6]"
    );
    assert_eq!(
        run(vec![t(&[3, 2], &[0.0; 6]), ok.clone()]),
        "bad inputs: input #0 'x': dimension 1 must be 3 (shape [N, 3]), given 2 (shape [3, 2])"
    );
    assert_eq!(
        run(vec![ok.clone(), t(&[1, 3], &[0.0; 3])]),
        "bad inputs: input #1 'x2': dimension 0 is 'N', which input 'x' set to 2, given 1 (shape [1, 3])"
    );
    // Symbolic dims bind per run.
    assert!(s.run(vec![ok.clone(), ok.clone()]).is_ok());
    // By name.
    let named = |v: &[&str]| {
        let v = v.iter().map(|n| (n.to_string(), ok.clone())).collect();
        s.run_named(v).map(|_| ()).map_err(|e| e.to_string())
    };
    assert_eq!(named(&["x2", "x"]), Ok(()));
    assert_eq!(
        named(&["x", "y"]),
        Err("bad inputs: no input is named 'y' (the inputs: 'x', 'x2')".into())
    );
    assert_eq!(
        named(&["x", "x"]),
        Err("bad inputs: input 'x' is given twice".into())
    );
    assert_eq!(
        named(&["x2"]),
        Err("bad inputs: input 'x' is missing".into())
    );
    let out = s
        .run_named(vec![("x2".into(), ok.clone()), ("x".into(), ok.clone())])
        .unwrap();
    assert_eq!(out[0].0, "y");
    assert_eq!(out[1].0, "t0");
}

#[test]
fn broken_files_are_errors() {
    let good = package().as_bytes().to_vec();
    assert_eq!(
        open_err(b"PK\x03\x04 not a package".to_vec()),
        "not a nart package: the file does not start with the package magic bytes"
    );
    assert!(open_err(vec![]).starts_with("not a nart package"));
    let mut newer = good.clone();
    newer[8] = 2;
    assert_eq!(
        open_err(newer),
        format!(
            "package format version 2 is not supported: this runtime (nart-rt {}) reads format version 1; the package is newer, use a newer nart",
            crate::VERSION
        )
    );
    let e = open_err(good[..good.len() - 1].to_vec());
    assert!(e.starts_with("truncated package: the data section"), "{e}");
    let e = open_err(good[..30].to_vec());
    assert!(e.starts_with("truncated package: the header"), "{e}");
    let mut longer = good.clone();
    longer.push(0);
    assert_eq!(
        open_err(longer),
        "corrupt package: 1 bytes after the end of the data section"
    );
    // A flipped bit in the manifest, then in the last blob.
    let mut flipped = good.clone();
    flipped[HEADER_LEN + 10] ^= 1;
    assert!(open_err(flipped).starts_with("corrupt package: the checksum of the manifest is"),);
    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    assert!(open_err(flipped).starts_with("corrupt package: the checksum of blob #1 is"));
}

#[test]
fn bad_manifests_are_errors() {
    let data = [1.0f32.to_le_bytes(), 2.0f32.to_le_bytes()].concat();
    let e = open_err(container(1, b"{\"nart_version\": ", &data));
    assert!(
        e.starts_with("bad package manifest: EOF while parsing"),
        "{e}"
    );
    let e = open_err(container(1, b"[1, 2]", &data));
    assert!(e.starts_with("bad package manifest: invalid type"), "{e}");
    let json = |m: &Manifest| serde_json::to_vec(m).unwrap();
    let mut m = package().manifest().clone();
    m.blobs[1].offset = 64;
    assert_eq!(
        open_err(container(1, &json(&m), &data)),
        "corrupt package: blob #1 (offset 64, 4 bytes) lies outside the 8-byte data section or is misaligned"
    );
    let mut m = package().manifest().clone();
    m.blobs[1].length = u64::MAX;
    assert!(open_err(container(1, &json(&m), &data)).contains("lies outside"));
    let mut m = package().manifest().clone();
    m.steps.swap(0, 1);
    assert_eq!(
        open_err(container(1, &json(&m), &data)),
        "bad package manifest: step #0 (quantize) reads 't0', which nothing before it defines"
    );
    let mut m = package().manifest().clone();
    m.outputs[0].name = "z".into();
    assert_eq!(
        open_err(container(1, &json(&m), &data)),
        "bad package manifest: output #0 'z' returns 'z', which no input or step defines"
    );
    let mut m = package().manifest().clone();
    m.inputs[0].dtype = "f33".into();
    assert_eq!(
        open_err(container(1, &json(&m), &data)),
        "bad package manifest: input #0 'x' has unknown dtype 'f33'"
    );
    let mut m = package().manifest().clone();
    if let Step::Quantize(c) = &mut m.steps[1] {
        c.quant.scales = vec![0.0];
    }
    assert_eq!(
        open_err(container(1, &json(&m), &data)),
        "bad package manifest: step #1 (quantize): scale 0 is not a positive number"
    );
    let mut m = package().manifest().clone();
    if let Step::Segment(s) = &mut m.steps[3] {
        s.blob = 7;
    }
    assert_eq!(
        open_err(container(1, &json(&m), &data)),
        "bad package manifest: step #3 (segment on 'affine') uses blob #7, but the package has 2 blobs"
    );
}

#[test]
fn load_errors_name_the_step() {
    let p = package();
    let e = Session::load(&p, &RuntimeRegistry::new()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot load step #0 (segment on 'affine'): no runtime for target 'affine' (known: )"
    );
    let bad = Package::new(manifest(), vec![vec![1, 2, 3], vec![0; 4]]).unwrap();
    let e = Session::load(&bad, &runtimes()).unwrap_err();
    assert!(matches!(e, Error::Load { .. }));
    assert!(e.to_string().contains("expected 4 bytes"), "{e}");
}

/// A seeded mutation test: random byte flips, insertions, deletions and truncations of a good
/// package give an error or a package that still loads and runs (a flip in padding), never a
/// panic.
#[test]
fn mutated_packages_never_panic() {
    let good = package().as_bytes().to_vec();
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let rt = runtimes();
    let mut errors = 0;
    for _ in 0..3000 {
        let mut b = good.clone();
        for _ in 0..1 + next() % 3 {
            let at = (next() % b.len() as u64) as usize;
            match next() % 4 {
                0 => b[at] ^= 1 << (next() % 8),
                1 => b[at] = next() as u8,
                2 => b.truncate(at),
                _ => b.insert(at, next() as u8),
            }
            if b.is_empty() {
                break;
            }
        }
        match Package::from_bytes(b) {
            Err(_) => errors += 1,
            Ok(p) => {
                if let Ok(s) = Session::load(&p, &rt) {
                    let _ = s.run(vec![t(&[1, 3], &[0.0; 3]), t(&[1, 3], &[0.0; 3])]);
                }
            }
        }
    }
    assert!(errors > 2500, "most mutations are caught: {errors}");
}
