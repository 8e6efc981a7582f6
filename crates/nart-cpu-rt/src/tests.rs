use super::*;
use std::path::Path;
use std::process::Command;

/// Compiles C source into a shared object with the system's `cc`, or `None` when there is
/// none (a failure instead under `NART_REQUIRE_CC=1`, which CI sets).
fn shared_object(c_source: &str) -> Option<Vec<u8>> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let dir = std::env::temp_dir().join(format!(
        "nart-cpu-rt-test-{}-{:x}",
        std::process::id(),
        c_source.len() * 31 + c_source.bytes().map(usize::from).sum::<usize>()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("code.c");
    let so = dir.join("code.so");
    std::fs::write(&src, c_source).unwrap();
    let status = Command::new(&cc)
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&so)
        .arg(&src)
        .status();
    match status {
        Ok(s) if s.success() => {}
        other => {
            assert!(
                std::env::var_os("NART_REQUIRE_CC").is_none(),
                "NART_REQUIRE_CC is set but `{cc}` failed: {other:?}"
            );
            eprintln!("skipping: no working C compiler ({other:?})");
            return None;
        }
    }
    let bytes = std::fs::read(Path::new(&so)).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    Some(bytes)
}

/// out = a + k·b over two rank-2 f32 memrefs, reading sizes and strides from the
/// descriptors, and recording in out[0][0]'s neighbour whether the scratch buffer is aligned.
const ADD: &str = r#"
#include <stdint.h>
typedef struct { float *alloc, *data; int64_t offset, sizes[2], strides[2]; } M2;
static void run(void **args, float k) {
    M2 *a = args[0], *b = args[1], *o = args[2];
    for (int64_t i = 0; i < o->sizes[0]; i++)
        for (int64_t j = 0; j < o->sizes[1]; j++)
            o->data[o->offset + i * o->strides[0] + j * o->strides[1]] =
                a->data[a->offset + i * a->strides[0] + j * a->strides[1]] +
                k * b->data[b->offset + i * b->strides[0] + j * b->strides[1]];
    unsigned char *scratch = args[3];
    if (scratch) { scratch[0] = 1; scratch[SCRATCH - 1] = 1; }
}
void add1(void **args) { run(args, 1.0f); }
void add10(void **args) { run(args, 10.0f); }
int64_t scratch_aligned(void **args) { return ((uintptr_t)args[3] % 64) == 0; }
"#;

fn sig(shape: &[u64]) -> TensorSig {
    TensorSig {
        dtype: "f32".into(),
        shape: shape.to_vec(),
    }
}

fn header(entry: &str) -> Header {
    Header {
        triple: format!("{}-unknown-linux-gnu", host_arch()),
        cpu: "generic".into(),
        required_features: vec![],
        entry: entry.into(),
        inputs: vec![sig(&[2, 3]), sig(&[2, 3])],
        outputs: vec![sig(&[2, 3])],
        scratch_bytes: 100,
        truncated: vec![],
    }
}

fn artifact(header: &Header, object: &[u8]) -> Artifact {
    Artifact::new(TARGET, FORMAT, ABI_VERSION, encode(header, object))
}

fn inputs() -> Vec<Tensor> {
    vec![
        Tensor::from_vec(vec![2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap(),
        Tensor::from_vec(vec![2, 3], vec![0.5f32, 0.25, 0.0, -1.0, 2.0, 3.0]).unwrap(),
    ]
}

fn add_object() -> Option<Vec<u8>> {
    shared_object(&ADD.replace("SCRATCH", "100"))
}

#[test]
fn header_round_trips_and_damage_is_reported() {
    let h = header("add1");
    let bytes = encode(&h, b"\x7fELF...");
    let (back, object) = decode(&bytes).unwrap();
    assert_eq!(back, h);
    assert_eq!(object, b"\x7fELF...");
    assert!(decode(b"NARTCPU2....").unwrap_err().contains("NARTCPU1"));
    assert!(decode(b"NARTCPU1\x01").unwrap_err().contains("length"));
    assert!(decode(b"NARTCPU1\xff\0\0\0{}")
        .unwrap_err()
        .contains("only 2 follow"));
    assert!(decode(b"NARTCPU1\x02\0\0\0{}x")
        .unwrap_err()
        .contains("bad header"));
    let no_object = encode(&h, b"");
    assert!(decode(&no_object).unwrap_err().contains("missing"));
}

#[test]
fn runs_compiled_code_with_descriptors_and_scratch() {
    let Some(object) = add_object() else { return };
    let exe = CpuRuntime::new()
        .load(&artifact(&header("add1"), &object))
        .unwrap();
    let out = exe.run(&inputs()).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].shape(), &[2, 3]);
    assert_eq!(out[0].as_f32().unwrap(), &[1.5, 2.25, 3.0, 3.0, 7.0, 9.0]);
}

#[test]
fn scratch_is_aligned_to_64_bytes() {
    let Some(object) = add_object() else { return };
    let mut h = header("scratch_aligned");
    h.inputs.clear();
    h.outputs.clear();
    for bytes in [1u64, 63, 100, 4097] {
        h.scratch_bytes = bytes;
        let exe = CpuExecutable::load(h.clone(), &object).unwrap();
        // The entry returns a value the convention ignores; call it through the raw pointer
        // to read it back.
        let mut scratch = Scratch::new(bytes).unwrap();
        let mut args = [
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            scratch.ptr(),
        ];
        // SAFETY: the test object's `scratch_aligned` takes `void **` and returns an int64_t.
        let f: unsafe extern "C" fn(*mut *mut u8) -> i64 =
            unsafe { std::mem::transmute(exe.entry) };
        assert_eq!(unsafe { f(args.as_mut_ptr()) }, 1, "{bytes} bytes");
    }
}

#[test]
fn two_objects_loaded_at_once_stay_apart() {
    let Some(object) = add_object() else { return };
    let a = CpuRuntime::new()
        .load(&artifact(&header("add1"), &object))
        .unwrap();
    let b = CpuRuntime::new()
        .load(&artifact(&header("add10"), &object))
        .unwrap();
    assert_eq!(a.run(&inputs()).unwrap()[0].as_f32().unwrap()[0], 1.5);
    assert_eq!(b.run(&inputs()).unwrap()[0].as_f32().unwrap()[0], 6.0);
    drop(a);
    let c = CpuRuntime::new()
        .load(&artifact(&header("add1"), &object))
        .unwrap();
    assert_eq!(c.run(&inputs()).unwrap()[0].as_f32().unwrap()[0], 1.5);
    assert_eq!(b.run(&inputs()).unwrap()[0].as_f32().unwrap()[0], 6.0);
}

#[test]
fn runs_from_several_threads() {
    let Some(object) = add_object() else { return };
    let exe = CpuRuntime::new()
        .load(&artifact(&header("add1"), &object))
        .unwrap();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..50 {
                    let out = exe.run(&inputs()).unwrap();
                    assert_eq!(out[0].as_f32().unwrap()[5], 9.0);
                }
            });
        }
    });
}

#[test]
fn wrong_inputs_are_refused_with_what_was_expected() {
    let Some(object) = add_object() else { return };
    let exe = CpuRuntime::new()
        .load(&artifact(&header("add1"), &object))
        .unwrap();
    let err = exe.run(&inputs()[..1]).unwrap_err().to_string();
    assert!(err.contains("expected 2 inputs, got 1"), "{err}");
    let mut bad = inputs();
    bad[1] = Tensor::from_vec(vec![3, 2], vec![0.0f32; 6]).unwrap();
    let err = exe.run(&bad).unwrap_err().to_string();
    assert!(
        err.contains("input 1: expected f32[2, 3], got f32[3, 2]"),
        "{err}"
    );
    bad[1] = Tensor::from_vec(vec![2, 3], vec![0i32; 6]).unwrap();
    let err = exe.run(&bad).unwrap_err().to_string();
    assert!(err.contains("got i32[2, 3]"), "{err}");
}

#[test]
fn artifacts_this_machine_cannot_run_are_refused() {
    let Some(object) = add_object() else { return };
    let mut h = header("add1");
    h.triple = "riscv64-unknown-linux-gnu".into();
    let err = CpuRuntime::new()
        .load(&artifact(&h, &object))
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("for riscv64-unknown-linux-gnu but this machine is"),
        "{err}"
    );

    let mut h = header("add1");
    h.required_features = vec!["warp-drive".into()];
    let err = CpuRuntime::new()
        .load(&artifact(&h, &object))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("warp-drive"), "{err}");

    let err = CpuRuntime::new()
        .load(&artifact(&header("no_such_entry"), &object))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("no entry 'no_such_entry'"), "{err}");

    let mut h = header("add1");
    h.inputs[0].dtype = "!onnx.string".into();
    let err = CpuRuntime::new()
        .load(&artifact(&h, &object))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("input 0: unsupported dtype"), "{err}");

    let err = CpuRuntime::new()
        .load(&artifact(&header("add1"), b"not an ELF file"))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("cannot load the compiled code"), "{err}");

    let old = Artifact::new(
        TARGET,
        FORMAT,
        "nart-cpu-abi-0",
        encode(&header("add1"), &object),
    );
    let err = CpuRuntime::new().load(&old).err().unwrap().to_string();
    assert!(err.contains("nart-cpu-abi-0"), "{err}");
    let other = Artifact::new(TARGET, "mlir-text", ABI_VERSION, vec![]);
    assert!(CpuRuntime::new().load(&other).is_err());
}

#[test]
fn host_features_are_checked_by_name() {
    assert_eq!(host_has_feature("warp-drive"), None);
    #[cfg(target_arch = "x86_64")]
    assert_eq!(host_has_feature("sse2"), Some(true));
    #[cfg(target_arch = "aarch64")]
    assert_eq!(host_has_feature("neon"), Some(true));
}

/// Code that fills its output through the runtime interface (`args[4]`), as the generated
/// code's parallel loops do, and writes the interface's version (or -1 without one) first.
const PAR: &str = r#"
#include <stdint.h>
typedef struct { float *alloc, *data; int64_t offset, sizes[2], strides[2]; } M2;
typedef void (*body_fn)(void *, int64_t, int64_t);
typedef struct {
    uint64_t version;
    void *ctx;
    void (*parallel_for)(void *, body_fn, void *, int64_t, int64_t);
} Iface;
static void fill(void *cap, int64_t begin, int64_t end) {
    M2 *o = cap;
    for (int64_t i = begin; i < end; i++) o->data[i] = (float)i * 2.0f;
}
void par(void **args) {
    M2 *o = args[2];
    Iface *rt = args[4];
    int64_t n = o->sizes[0] * o->sizes[1];
    if (rt) rt->parallel_for(rt->ctx, fill, o, n, 1); else fill(o, 0, n);
    o->data[0] = rt ? (float)rt->version : -1.0f;
}
"#;

#[test]
fn the_runtime_interface_is_passed_after_the_scratch_pointer() {
    let Some(object) = shared_object(PAR) else {
        return;
    };
    let mut h = header("par");
    h.outputs = vec![sig(&[40, 50])];
    for threads in [1, 2, 3] {
        let exe = CpuRuntime::with_threads(threads)
            .load(&artifact(&h, &object))
            .unwrap();
        let got = exe.run(&inputs()).unwrap()[0].to_f32_vec().unwrap();
        let first = if threads == 1 {
            -1.0
        } else {
            INTERFACE_VERSION as f32
        };
        assert_eq!(got[0], first, "threads {threads}");
        assert!(
            got.iter()
                .enumerate()
                .skip(1)
                .all(|(i, &x)| x == i as f32 * 2.0),
            "threads {threads}"
        );
    }
    let exe = CpuExecutable::load_with_threads(h.clone(), &object, 2).unwrap();
    assert_eq!(exe.threads(), 2);
    exe.run(&inputs()).unwrap();
    assert_eq!(exe.loops_on_pool(), 1);
}

#[test]
fn artifacts_of_the_convention_without_the_interface_are_refused() {
    let old = Artifact::new(
        TARGET,
        FORMAT,
        "nart-cpu-abi-1",
        encode(&header("add1"), b"x"),
    );
    let err = CpuRuntime::new().load(&old).err().unwrap().to_string();
    assert!(
        err.contains("nart-cpu-abi-1") && err.contains(ABI_VERSION),
        "{err}"
    );
}

/// Keeps the rows of a `[4, 2]` i64 input whose first element is positive, in order, writing
/// them to a `[4, 2]` output and their count to a `[1]` output; `args[3]` is the count output.
const KEEP_POSITIVE: &str = r#"
#include <stdint.h>
typedef struct { int64_t *alloc, *data; int64_t offset, sizes[2], strides[2]; } M2;
typedef struct { int64_t *alloc, *data; int64_t offset, sizes[1], strides[1]; } M1;
void keep(void **args) {
    M2 *x = args[0], *o = args[1];
    M1 *n = args[2];
    int64_t k = 0;
    for (int64_t i = 0; i < x->sizes[0]; i++) {
        if (x->data[i * 2] > 0) {
            o->data[k * 2] = x->data[i * 2];
            o->data[k * 2 + 1] = x->data[i * 2 + 1];
            k++;
        }
    }
    n->data[0] = k;
}
void lie(void **args) { M1 *n = args[2]; n->data[0] = 5; }
"#;

fn keep_header(entry: &str) -> Header {
    let i64s = |shape: &[u64]| TensorSig {
        dtype: "i64".into(),
        shape: shape.to_vec(),
    };
    Header {
        triple: format!("{}-unknown-linux-gnu", host_arch()),
        cpu: "generic".into(),
        required_features: vec![],
        entry: entry.into(),
        inputs: vec![i64s(&[4, 2])],
        outputs: vec![i64s(&[4, 2]), i64s(&[1])],
        scratch_bytes: 0,
        truncated: vec![Truncated {
            output: 0,
            length: 1,
        }],
    }
}

#[test]
fn outputs_of_run_time_length_are_truncated_to_the_reported_rows() {
    let Some(object) = shared_object(KEEP_POSITIVE) else {
        return;
    };
    let exe = CpuRuntime::new()
        .load(&artifact(&keep_header("keep"), &object))
        .unwrap();
    let x = |v: Vec<i64>| vec![Tensor::from_vec(vec![4, 2], v).unwrap()];
    let out = exe.run(&x(vec![3, 30, -1, 10, 0, 11, 7, 70])).unwrap();
    // The length output is not returned.
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].shape(), &[2, 2]);
    assert_eq!(out[0].as_i64().unwrap(), &[3, 30, 7, 70]);
    let none = exe.run(&x(vec![-3, 30, -1, 10, 0, 11, -7, 70])).unwrap();
    assert_eq!(none[0].shape(), &[0, 2]);
    let all = exe.run(&x(vec![1, 2, 3, 4, 5, 6, 7, 8])).unwrap();
    assert_eq!(all[0].shape(), &[4, 2]);
    assert_eq!(all[0].as_i64().unwrap(), &[1, 2, 3, 4, 5, 6, 7, 8]);
    // A length beyond the bound is an error, not a read past the buffer.
    let liar = CpuRuntime::new()
        .load(&artifact(&keep_header("lie"), &object))
        .unwrap();
    let err = liar.run(&x(vec![0; 8])).unwrap_err().to_string();
    assert!(
        err.contains("reported 5 rows") && err.contains("at most 4"),
        "{err}"
    );
}

#[test]
fn truncations_that_do_not_fit_the_outputs_are_refused_at_load() {
    let cases: [(Vec<Truncated>, &str); 4] = [
        (
            vec![Truncated {
                output: 0,
                length: 2,
            }],
            "no such pair",
        ),
        (
            vec![Truncated {
                output: 1,
                length: 0,
            }],
            "not i64[1]",
        ),
        (
            vec![
                Truncated {
                    output: 0,
                    length: 1,
                },
                Truncated {
                    output: 0,
                    length: 1,
                },
            ],
            "named twice",
        ),
        (
            vec![Truncated {
                output: 0,
                length: 0,
            }],
            "no such pair",
        ),
    ];
    for (truncated, want) in cases {
        let mut h = keep_header("keep");
        h.truncated = truncated;
        let err = CpuRuntime::new()
            .load(&artifact(&h, b"x"))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains(want), "{want}: {err}");
    }
}

#[test]
fn artifacts_of_abi_version_2_still_load_and_run() {
    let Some(object) = add_object() else { return };
    let h = header("add1");
    let bytes = encode(&h, &object);
    // A version 2 header has no `truncated` field at all.
    assert!(!String::from_utf8_lossy(&bytes).contains("truncated"));
    let old = Artifact::new(TARGET, FORMAT, "nart-cpu-abi-2", bytes);
    let out = CpuRuntime::new()
        .load(&old)
        .unwrap()
        .run(&inputs())
        .unwrap();
    assert_eq!(out[0].as_f32().unwrap(), &[1.5, 2.25, 3.0, 3.0, 7.0, 9.0]);
}
