//! `nart targets` and `nart partition`: the placement tables of the committed models
//! (snapshots, with the test chips of `nart_target::testing`), and the binary on good and bad
//! command lines (exit 1 with a message naming what is wrong, never a panic).

use std::path::{Path, PathBuf};
use std::process::Command;

use nart_cli::partition::{partition, targets_table, PartitionRequest};
use nart_target::testing::registry_with_test_targets;

fn model(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/models")
        .join(name)
        .join("model.onnx")
}

fn report(name: &str, targets: &[&str], place: &[&str]) -> String {
    let request = PartitionRequest {
        targets: targets.iter().map(|s| s.to_string()).collect(),
        place: place.iter().map(|s| s.to_string()).collect(),
        emit_ir: false,
    };
    let mut out = Vec::new();
    partition(
        &model(name),
        &request,
        &registry_with_test_targets(),
        &mut out,
    )
    .unwrap_or_else(|e| panic!("{name}: {e:#}"));
    String::from_utf8(out).unwrap()
}

#[test]
fn targets_table_lists_every_target() {
    insta::assert_snapshot!(targets_table(&registry_with_test_targets()), @r"
    name       level  description                                                                    scheme
    interp     op     nart's reference interpreter: every op with a reference kernel (the fallback)  -
    test-int8  net    test only: graph.Conv, graph.Relu, graph.Add on f32, int8 at its boundaries    pow2
    test-f32   net    test only: Conv, Relu, Add, MaxPool, Gemm on f32                               -
    ");
}

#[test]
fn digits_cnn_on_the_int8_chip() {
    insta::assert_snapshot!(report("digits_cnn", &["test-int8"], &[]));
}

#[test]
fn digits_cnn_on_two_chips_with_overrides() {
    insta::assert_snapshot!(report(
        "digits_cnn",
        &["test-f32", "test-int8"],
        &["relu2=test-int8", "graph.Gemm=interp"]
    ));
}

#[test]
fn tiny_transformer_on_the_f32_chip() {
    insta::assert_snapshot!(report("tiny_transformer", &["test-f32"], &[]));
}

#[test]
fn errors_name_what_is_wrong() {
    let r = registry_with_test_targets();
    let run = |targets: &[&str], place: &[&str]| {
        let request = PartitionRequest {
            targets: targets.iter().map(|s| s.to_string()).collect(),
            place: place.iter().map(|s| s.to_string()).collect(),
            emit_ir: false,
        };
        let mut out = Vec::new();
        let e = partition(&model("digits_cnn"), &request, &r, &mut out).unwrap_err();
        assert!(out.is_empty(), "nothing is printed on error");
        format!("{e:#}")
    };
    assert_eq!(
        run(&["test-int8", "npu"], &[]),
        "unknown target 'npu' (known targets: interp, test-int8, test-f32)"
    );
    assert_eq!(
        run(&[], &["flatten=test-int8", "pool*=test-int8"]),
        format!(
            "cannot partition '{0}':\n\
             \"pool1\" ({0}:0:0): error: 'graph.MaxPool' op cannot be placed on 'test-int8' as --place pool*=test-int8 asks: op not supported\n\
             \"pool2\" ({0}:0:0): error: 'graph.MaxPool' op cannot be placed on 'test-int8' as --place pool*=test-int8 asks: op not supported\n\
             \"flatten\" ({0}:0:0): error: 'graph.Flatten' op cannot be placed on 'test-int8' as --place flatten=test-int8 asks: op not supported",
            model("digits_cnn").display()
        )
    );
    assert_eq!(
        run(&[], &["conv9=interp", "conv1=interp"]),
        format!(
            "--place 'conv9=interp' matches no op of '{}'",
            model("digits_cnn").display()
        )
    );
}

fn nart(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nart"))
        .args(args)
        .output()
        .expect("nart runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_binary_lists_targets_and_partitions_the_zoo() {
    let (code, out, _) = nart(&["targets"]);
    assert_eq!(code, 0);
    // The columns are as wide as the longest target name.
    let header: Vec<&str> = out
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    assert_eq!(header, ["name", "level", "description", "scheme"], "{out}");
    assert!(
        out.lines()
            .any(|l| l.split_whitespace().take(2).eq(["interp", "op"])),
        "{out}"
    );
    for name in ["digits_mlp", "digits_cnn", "tiny_transformer"] {
        let path = model(name).display().to_string();
        let (code, out, err) = nart(&["partition", &path, "--targets", "interp"]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(out.starts_with("op "), "{out}");
        assert!(
            out.contains(" in 1 segment (0 casts at boundaries):"),
            "{out}"
        );
        assert!(
            out.contains("unsupported ops by target:\n  interp: none\n"),
            "{out}"
        );
        let (code, out, err) = nart(&["partition", &path, "--emit-ir"]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(out.contains("target.segment \"interp\""), "{out}");
    }
}

#[test]
fn the_binary_rejects_bad_command_lines() {
    let cnn = model("digits_cnn").display().to_string();
    let dir = model("digits_cnn").parent().unwrap().display().to_string();
    for (args, want) in [
        (
            vec!["partition", &cnn, "--targets", "gpu"],
            "error: unknown target 'gpu' (known targets: interp, onednn, openvino, cpu)",
        ),
        (
            vec!["partition", &cnn, "--targets", "interp,interp"],
            "error: target 'interp' is listed twice",
        ),
        (
            vec!["partition", &cnn, "--place", "conv1"],
            "error: --place: bad placement 'conv1': expected PATTERN=TARGET",
        ),
        (
            vec!["partition", &cnn, "--place", "conv1=npu"],
            "error: unknown target 'npu' (known targets: interp, onednn, openvino, cpu)",
        ),
        (
            vec!["partition", &cnn, "--place", "nothing*=interp"],
            "error: --place 'nothing*=interp' matches no op of",
        ),
        (
            vec!["partition", "missing.onnx"],
            "error: cannot import 'missing.onnx':\nmissing.onnx:0:0: error: cannot read 'missing.onnx'",
        ),
        (vec!["partition", &dir], "error: cannot import"),
        (vec!["partition"], "the following required arguments were not provided"),
    ] {
        let (code, out, err) = nart(&args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.contains(want), "{args:?}: want '{want}' in:\n{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// Seeded byte mutations of the committed models: `nart partition` ends with exit 0, or 1 and
/// a message, never a panic or a signal.
#[test]
fn mutated_models_never_crash_the_partitioner() {
    let dir = std::env::temp_dir().join(format!("nart-partition-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let (mut ok, mut rejected) = (0, 0);
    for name in ["digits_mlp", "digits_cnn", "tiny_transformer"] {
        let bytes = std::fs::read(model(name)).unwrap();
        for case in 0..25 {
            let mut m = bytes.clone();
            for _ in 0..1 + next() % 8 {
                let i = (next() % m.len() as u64) as usize;
                m[i] = next() as u8;
            }
            if case % 5 == 4 {
                let keep = (next() % m.len() as u64) as usize;
                m.truncate(keep);
            }
            let path = dir.join(format!("{name}-{case}.onnx"));
            std::fs::write(&path, &m).unwrap();
            let p = path.display().to_string();
            let (code, _, err) = nart(&["partition", &p, "--targets", "interp"]);
            assert!(
                code == 0 || (code == 1 && err.starts_with("error: ")),
                "{name} case {case}: exit {code}\n{err}"
            );
            assert!(!err.contains("panicked"), "{name} case {case}: {err}");
            if code == 0 {
                ok += 1;
            } else {
                rejected += 1;
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    eprintln!("{ok} mutated models partitioned, {rejected} rejected with a message");
    assert!(rejected > 0);
}
