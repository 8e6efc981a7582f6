use super::*;

const MODEL: &str = r#"
func.func @main(%x: tensor<2x4xf32>, %img: tensor<1x2x5x5xf32>) -> (tensor<2x3xf32>, tensor<1x3x2x2xf32>, tensor<6xf32>) {
  %w = "graph.constant"() <{value = dense<[[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [0.0, 1.0, 1.0], [-2.0, 0.5, 0.75]]> : tensor<4x3xf32>}> : () -> tensor<4x3xf32>
  %b = "graph.constant"() <{value = dense<[1.0, -2.0, 3.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %y = "graph.MatMul"(%x, %w) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %z = "graph.Add"(%y, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = "graph.Relu"(%z) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = "graph.constant"() <{value = dense<[6]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %f = "graph.Reshape"(%r, %s) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<6xf32>
  %k = "graph.constant"() <{value = dense<0.25> : tensor<3x2x3x3xf32>}> : () -> tensor<3x2x3x3xf32>
  %none = "graph.none"() : () -> none
  %c = "graph.Conv"(%img, %k, %none) <{pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, none) -> tensor<1x3x3x3xf32>
  %p, %pi = "graph.MaxPool"(%c) <{kernel_shape = array<i64: 2, 2>}> : (tensor<1x3x3x3xf32>) -> (tensor<1x3x2x2xf32>, none)
  return %r, %p, %f : tensor<2x3xf32>, tensor<1x3x2x2xf32>, tensor<6xf32>
}
"#;

fn have_cc() -> bool {
    let ok = check_linker(&linker(&Machine::Host)).is_none();
    assert!(
        ok || std::env::var_os("NART_REQUIRE_CC").is_none(),
        "NART_REQUIRE_CC is set but there is no C compiler"
    );
    ok
}

fn inputs() -> Vec<nart_tensor::Tensor> {
    let x: Vec<f32> = (0..8).map(|i| i as f32 * 0.5 - 1.5).collect();
    let img: Vec<f32> = (0..50).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
    vec![
        nart_tensor::Tensor::from_vec(vec![2, 4], x).unwrap(),
        nart_tensor::Tensor::from_vec(vec![1, 2, 5, 5], img).unwrap(),
    ]
}

/// The reference interpreter's outputs for [`MODEL`].
fn reference() -> Vec<nart_tensor::Tensor> {
    let mut ctx = lowering_context();
    nart_interp::register(&mut ctx);
    let m = nart_ir::parser::parse_source(&mut ctx, "m.mlir", MODEL).unwrap();
    let func = ctx
        .collect_ops(m, nart_ir::WalkOrder::PreOrder)
        .into_iter()
        .find(|&op| ctx.op_name_str(op) == "func.func")
        .unwrap();
    let interp = nart_interp::Interpreter::new(&ctx, func).unwrap();
    interp.run(inputs()).unwrap()
}

#[test]
fn compiled_code_matches_the_interpreter() {
    if !have_cc() {
        return;
    }
    let target = CpuTarget::host();
    let (artifact, lowered) = target.compile_function_text(MODEL, "model").unwrap();
    assert!(lowered.scratch_bytes > 0, "intermediates live in the arena");
    assert!(!lowered.loops.contains("memref.alloc"), "{}", lowered.loops);
    let exe = CpuRuntime::new().load(&artifact).unwrap();
    let got = exe.run(&inputs()).unwrap();
    let want = reference();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.shape(), w.shape());
        let (g, w) = (g.to_f32_vec().unwrap(), w.to_f32_vec().unwrap());
        for (a, b) in g.iter().zip(&w) {
            assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0), "{g:?} vs {w:?}");
        }
    }
}

#[test]
fn compilation_is_deterministic() {
    if !have_cc() {
        return;
    }
    let target = CpuTarget::host();
    let a = lower_to_loops(MODEL, "model").unwrap();
    let b = lower_to_loops(MODEL, "model").unwrap();
    assert_eq!(a.loops, b.loops);
    let ir_a = target.emit(&a, Emit::Llvm).unwrap();
    let ir_b = target.emit(&b, Emit::Llvm).unwrap();
    assert_eq!(ir_a, ir_b);
    let text = String::from_utf8(ir_a).unwrap();
    assert!(text.contains("define void @nart_entry(ptr"), "{text}");
}

#[test]
fn dynamic_shapes_and_other_types_are_refused_with_reasons() {
    let mut ctx = lowering_context();
    let src = r#"func.func @f(%a: tensor<?x4xf32>, %b: tensor<2x4xf64>, %c: tensor<2x4xf8E4M3FN>) -> (tensor<?x4xf32>, tensor<2x4xf32>, tensor<2x4xf64>) {
  %0 = "graph.Relu"(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = "graph.Cast"(%c) <{to = 1 : i64}> : (tensor<2x4xf8E4M3FN>) -> tensor<2x4xf32>
  %2 = "graph.Softsign"(%b) : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %3 = "graph.Relu"(%b) : (tensor<2x4xf64>) -> tensor<2x4xf64>
  return %0, %1, %3 : tensor<?x4xf32>, tensor<2x4xf32>, tensor<2x4xf64>
}"#;
    let m = nart_ir::parser::parse_source(&mut ctx, "f.mlir", src).unwrap();
    let ops: Vec<Op> = ctx
        .collect_ops(m, nart_ir::WalkOrder::PreOrder)
        .into_iter()
        .filter(|&op| ctx.op_name_str(op).starts_with("graph."))
        .collect();
    let t = CpuTarget::host();
    let reasons: Vec<String> = ops
        .iter()
        .map(|&op| match t.supports(&ctx, op) {
            Support::Refused(r) => r.to_string(),
            Support::Supported => "supported".into(),
        })
        .collect();
    if t.availability().is_err() {
        return;
    }
    assert!(
        reasons[0].contains("tensor<?x4xf32>") && reasons[0].contains("--dim"),
        "{reasons:?}"
    );
    // Float8 is a storage format; f64 is computed.
    assert!(
        reasons[1].contains("f8E4M3FN is a storage format"),
        "{reasons:?}"
    );
    assert_eq!(reasons[2], "op not supported");
    assert_eq!(reasons[3], "supported");
}

#[test]
fn aarch64_objects_are_generated() {
    let target = CpuTarget::cross_aarch64(false);
    let lowered = lower_to_loops(MODEL, "model").unwrap();
    let asm = String::from_utf8(target.emit(&lowered, Emit::Asm).unwrap()).unwrap();
    assert!(asm.contains("nart_entry"), "{asm}");
    // NEON registers or instructions appear in the optimized loops.
    assert!(asm.contains("ldr") && asm.contains("str"), "{asm}");
}

#[test]
fn llvm_feature_strings_map_to_checked_features() {
    assert_eq!(
        required_features("+avx2,+fma,-avx512f,+sse4.2,+cx16,+avx512vnni"),
        ["avx2", "avx512vnni", "fma", "sse4.2"]
    );
    assert_eq!(required_features("+neon,+dotprod"), ["dotprod", "neon"]);
}

/// Whether `tool` runs; under `NART_REQUIRE_AARCH64=1` (CI) a missing tool is a failure.
fn have_aarch64_tools() -> bool {
    let ok = ["aarch64-linux-gnu-gcc", "qemu-aarch64"].iter().all(|t| {
        std::process::Command::new(t)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !ok {
        assert!(
            std::env::var_os("NART_REQUIRE_AARCH64").is_none(),
            "NART_REQUIRE_AARCH64 is set but aarch64-linux-gnu-gcc or qemu-aarch64 is missing"
        );
        eprintln!("skipping: aarch64-linux-gnu-gcc or qemu-aarch64 is missing");
    }
    ok
}

/// A C driver that calls `nart_entry` of the convention with `inputs` and a runtime interface
/// whose `parallel_for` runs the chunks in reverse order on the calling thread, then prints
/// every output element with `%a` (exact hexadecimal floats), one per line.
fn c_driver(header: &nart_cpu_rt::Header, inputs: &[nart_tensor::Tensor]) -> String {
    let mut c = String::from(
        "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n\
         void nart_entry(void **args);\n\
         typedef void (*body_fn)(void *, int64_t, int64_t);\n\
         static void seq_for(void *ctx, body_fn body, void *cap, int64_t n, int64_t grain) {\n\
           (void)ctx; int64_t c = grain > 0 ? grain : 1;\n\
           for (int64_t e = n; e > 0; e -= c) body(cap, e > c ? e - c : 0, e);\n\
         }\n\
         static struct { uint64_t version; void *ctx; void (*parallel_for)(void *, body_fn, void *, int64_t, int64_t); }\n\
           iface = {1, 0, seq_for};\n\
         static int64_t *desc(float *p, int rank, const int64_t *shape) {\n\
           int64_t *d = malloc(sizeof(int64_t) * (3 + 2 * rank));\n\
           d[0] = (int64_t)(intptr_t)p; d[1] = d[0]; d[2] = 0;\n\
           int64_t s = 1;\n\
           for (int k = rank - 1; k >= 0; k--) { d[3 + k] = shape[k]; d[3 + rank + k] = s; s *= shape[k]; }\n\
           return d;\n\
         }\nint main(void) {\n",
    );
    let mut args = Vec::new();
    for (i, t) in inputs.iter().enumerate() {
        let v = t.to_f32_vec().unwrap();
        let data: Vec<String> = v.iter().map(|x| format!("{:e}f", x)).collect();
        let shape: Vec<String> = t.shape().iter().map(|d| d.to_string()).collect();
        c += &format!(
            "  static float in{i}[] = {{{}}};\n  static const int64_t is{i}[] = {{{}}};\n",
            data.join(", "),
            shape.join(", ")
        );
        args.push(format!("desc(in{i}, {}, is{i})", t.rank()));
    }
    for (i, o) in header.outputs.iter().enumerate() {
        let n: u64 = o.shape.iter().product();
        let shape: Vec<String> = o.shape.iter().map(|d| d.to_string()).collect();
        c += &format!(
            "  static float out{i}[{n}];\n  static const int64_t os{i}[] = {{{}}};\n",
            shape.join(", ")
        );
        args.push(format!("desc(out{i}, {}, os{i})", o.shape.len()));
    }
    c += &format!(
        "  void *scratch = NULL;\n  if ({s} > 0 && posix_memalign(&scratch, 64, {s})) return 2;\n",
        s = header.scratch_bytes
    );
    args.push("scratch".into());
    args.push("&iface".into());
    c += &format!(
        "  void *args[] = {{{}}};\n  nart_entry(args);\n",
        args.join(", ")
    );
    for (i, o) in header.outputs.iter().enumerate() {
        let n: u64 = o.shape.iter().product();
        c += &format!("  for (int k = 0; k < {n}; k++) printf(\"%a\\n\", out{i}[k]);\n");
    }
    c += "  return 0;\n}\n";
    c
}

#[test]
fn aarch64_code_under_qemu_computes_what_the_host_code_computes() {
    if !have_cc() || !have_aarch64_tools() {
        return;
    }
    let host = CpuTarget::host();
    let (artifact, _) = host.compile_function_text(MODEL, "model").unwrap();
    let want: Vec<f32> = CpuRuntime::new()
        .load(&artifact)
        .unwrap()
        .run(&inputs())
        .unwrap()
        .iter()
        .flat_map(|t| t.to_f32_vec().unwrap())
        .collect();

    let arm = CpuTarget::cross_aarch64(false);
    let (artifact, _) = arm.compile_function_text(MODEL, "model").unwrap();
    let (header, so) = nart_cpu_rt::decode(&artifact.bytes).unwrap();
    assert_eq!(header.triple, "aarch64-unknown-linux-gnu");
    assert_eq!(header.required_features, ["neon"]);
    // The host runtime refuses it, naming both machines.
    let err = CpuRuntime::new().load(&artifact).err().unwrap().to_string();
    assert!(err.contains("aarch64-unknown-linux-gnu"), "{err}");

    let dir = std::env::temp_dir().join(format!("nart-cpu-qemu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("libmodel.so"), so).unwrap();
    std::fs::write(dir.join("driver.c"), c_driver(&header, &inputs())).unwrap();
    let build = std::process::Command::new("aarch64-linux-gnu-gcc")
        .current_dir(&dir)
        .args([
            "-O1",
            "-o",
            "driver",
            "driver.c",
            "-L.",
            "-lmodel",
            "-Wl,-rpath,$ORIGIN",
        ])
        .output()
        .unwrap();
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let run = std::process::Command::new("qemu-aarch64")
        .current_dir(&dir)
        .args(["-L", "/usr/aarch64-linux-gnu", "./driver"])
        .output()
        .unwrap();
    if std::env::var_os("NART_KEEP_QEMU_DIR").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let got: Vec<String> = String::from_utf8(run.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let want: Vec<String> = want.iter().map(|x| hex_float(*x)).collect();
    assert_eq!(got, want, "aarch64 (left) and host (right) differ");
}

/// `x` as C's `printf("%a", (double)x)` prints it (glibc's form: `0x1.8p+1`, `0x0p+0`).
fn hex_float(x: f32) -> String {
    let d = f64::from(x);
    if d == 0.0 {
        return if d.is_sign_negative() {
            "-0x0p+0".into()
        } else {
            "0x0p+0".into()
        };
    }
    let bits = d.to_bits();
    let sign = if bits >> 63 == 1 { "-" } else { "" };
    let exp = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut mant = format!("{:013x}", bits & ((1u64 << 52) - 1));
    while mant.ends_with('0') {
        mant.pop();
    }
    let dot = if mant.is_empty() {
        String::new()
    } else {
        format!(".{mant}")
    };
    format!("{sign}0x1{dot}p{}{exp}", if exp >= 0 { "+" } else { "" })
}

/// Elementwise ops, a matmul and a convolution large enough for their parallel loops to be
/// shared between threads.
const PARALLEL_MODEL: &str = r#"
func.func @main(%x: tensor<1x8x64x64xf32>, %a: tensor<48x96xf32>, %b: tensor<96x80xf32>, %img: tensor<1x4x20x20xf32>, %w: tensor<8x4x3x3xf32>) -> (tensor<1x8x64x64xf32>, tensor<48x80xf32>, tensor<1x8x18x18xf32>) {
  %r = "graph.Relu"(%x) : (tensor<1x8x64x64xf32>) -> tensor<1x8x64x64xf32>
  %e = "graph.Mul"(%r, %x) : (tensor<1x8x64x64xf32>, tensor<1x8x64x64xf32>) -> tensor<1x8x64x64xf32>
  %m = "graph.MatMul"(%a, %b) : (tensor<48x96xf32>, tensor<96x80xf32>) -> tensor<48x80xf32>
  %none = "graph.none"() : () -> none
  %c = "graph.Conv"(%img, %w, %none) : (tensor<1x4x20x20xf32>, tensor<8x4x3x3xf32>, none) -> tensor<1x8x18x18xf32>
  return %e, %m, %c : tensor<1x8x64x64xf32>, tensor<48x80xf32>, tensor<1x8x18x18xf32>
}
"#;

/// Values in [-1, 1) from a fixed linear congruential sequence.
fn seeded(shape: &[usize], seed: u64) -> nart_tensor::Tensor {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let n: usize = shape.iter().product();
    let v: Vec<f32> = (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32) / (1u64 << 23) as f32 - 1.0
        })
        .collect();
    nart_tensor::Tensor::from_vec(shape.to_vec(), v).unwrap()
}

#[test]
fn parallel_loops_give_the_same_bits_on_1_2_and_3_threads() {
    if !have_cc() {
        return;
    }
    let target = CpuTarget::host();
    let (artifact, lowered) = target.compile_function_text(PARALLEL_MODEL, "par").unwrap();
    assert!(lowered.loops.contains("scf.parallel"), "{}", lowered.loops);
    let inputs = vec![
        seeded(&[1, 8, 64, 64], 1),
        seeded(&[48, 96], 2),
        seeded(&[96, 80], 3),
        seeded(&[1, 4, 20, 20], 4),
        seeded(&[8, 4, 3, 3], 5),
    ];
    let (header, so) = nart_cpu_rt::decode(&artifact.bytes).unwrap();
    let mut runs: Vec<Vec<Vec<u32>>> = Vec::new();
    for threads in [1, 2, 3] {
        let exe =
            nart_cpu_rt::CpuExecutable::load_with_threads(header.clone(), so, threads).unwrap();
        assert_eq!(exe.threads(), threads);
        let got = nart_target_rt::Executable::run(&exe, &inputs).unwrap();
        if threads == 1 {
            assert_eq!(exe.loops_on_pool(), 0);
        } else {
            // The loops linalg-vectorize leaves (the convolution's at least) were shared.
            assert!(exe.loops_on_pool() >= 1, "{}", exe.loops_on_pool());
        }
        runs.push(
            got.iter()
                .map(|t| {
                    t.to_f32_vec()
                        .unwrap()
                        .iter()
                        .map(|x| x.to_bits())
                        .collect()
                })
                .collect(),
        );
    }
    assert!(runs[1] == runs[0], "2 threads differ from 1");
    assert!(runs[2] == runs[0], "3 threads differ from 1");

    // And they compute the model: the interpreter agrees within rounding.
    let mut ctx = lowering_context();
    nart_interp::register(&mut ctx);
    let m = nart_ir::parser::parse_source(&mut ctx, "m.mlir", PARALLEL_MODEL).unwrap();
    let func = ctx
        .collect_ops(m, nart_ir::WalkOrder::PreOrder)
        .into_iter()
        .find(|&op| ctx.op_name_str(op) == "func.func")
        .unwrap();
    let want = nart_interp::Interpreter::new(&ctx, func)
        .unwrap()
        .run(inputs)
        .unwrap();
    for (g, w) in runs[0].iter().zip(&want) {
        let w = w.to_f32_vec().unwrap();
        assert_eq!(g.len(), w.len());
        for (a, b) in g.iter().zip(&w) {
            let a = f32::from_bits(*a);
            assert!((a - b).abs() <= 1e-4 * b.abs().max(1.0), "{a} vs {b}");
        }
    }
}

#[test]
fn vector_width_follows_the_machine_and_the_pipeline_can_do_without() {
    assert_eq!(vector_width("+avx2,+fma,-avx512f,+sse4.2"), 8);
    assert_eq!(vector_width("+avx512f,+avx2,+avx"), 16);
    assert_eq!(vector_width("+sse4.2,-avx"), 4);
    assert_eq!(vector_width("+neon,+dotprod"), 4);
    let vectorized = lower_to_loops_with(MODEL, "model", &pipeline(Some(4))).unwrap();
    assert!(
        vectorized.loops.contains("vector.transfer_read"),
        "{}",
        vectorized.loops
    );
    let scalar = lower_to_loops_with(MODEL, "model", &pipeline(None)).unwrap();
    assert!(!scalar.loops.contains("vector."), "{}", scalar.loops);
    assert_eq!(pipeline(Some(8)), PIPELINE);
}
