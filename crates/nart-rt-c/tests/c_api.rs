//! The C API from C: compiles `tests/c/run_package.c` against `include/nart_rt.h` and the
//! built `libnart_rt_c.so`, and runs it on a digits_cnn package compiled here; the program
//! compares the outputs with the interpreter's and exercises the error paths. Also checks that
//! the header declares exactly the functions the library exports.
//!
//! Without a C compiler (`cc`) the C test is skipped with a message, unless
//! `NART_REQUIRE_CC=1` (set by `.ci/run`), which makes a missing compiler a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The names of the `extern "C"` functions in `text` (Rust) or declared in it (C).
fn functions(text: &str, rust: bool) -> Vec<String> {
    let mut names: Vec<String> = text
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            if rust {
                let rest = l.split("extern \"C\" fn ").nth(1)?;
                Some(rest.split('(').next()?.to_string())
            } else {
                if l.starts_with("/*") || l.starts_with('*') || l.starts_with('#') {
                    return None;
                }
                let at = l.find("nart_")?;
                let name: String = l[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                l[at + name.len()..].starts_with('(').then_some(name)
            }
        })
        .collect();
    names.sort();
    names
}

#[test]
fn the_header_declares_every_exported_function() {
    let rust = std::fs::read_to_string(root().join("crates/nart-rt-c/src/lib.rs")).unwrap();
    let header = std::fs::read_to_string(root().join("include/nart_rt.h")).unwrap();
    let exported = functions(&rust, true);
    assert!(exported.len() >= 12, "{exported:?}");
    assert_eq!(functions(&header, false), exported);
}

/// The folder of the built shared library: the test binary is `target/debug/deps/c_api-*`.
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    for d in [deps, deps.parent().unwrap()] {
        if d.join("libnart_rt_c.so").exists() {
            return d.to_path_buf();
        }
    }
    panic!(
        "libnart_rt_c.so is neither in {} nor its parent",
        deps.display()
    );
}

fn f32_bytes(t: &nart_tensor::Tensor) -> Vec<u8> {
    t.to_f32_vec()
        .unwrap()
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect()
}

#[test]
fn a_c_program_runs_a_package() {
    if Command::new("cc").arg("--version").output().is_err() {
        let msg = "no C compiler ('cc') found: the C API test is skipped";
        if std::env::var("NART_REQUIRE_CC").as_deref() == Ok("1") {
            panic!("{msg}, but NART_REQUIRE_CC=1");
        }
        eprintln!("{msg} (set NART_REQUIRE_CC=1 to make this a failure)");
        return;
    }
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c-api");
    std::fs::create_dir_all(&tmp).unwrap();
    let model_dir = root().join("tests/models/digits_cnn");
    let pkg = tmp.join("digits_cnn.nartpkg");
    let req = nart_cli::package::CompileRequest {
        model: model_dir.join("model.onnx"),
        targets: vec!["interp".into()],
        output: pkg.clone(),
        ..Default::default()
    };
    nart_cli::package::compile(
        &req,
        &nart_target::TargetRegistry::builtin(),
        &mut Vec::new(),
    )
    .unwrap();
    // The input and the interpreter's output on the ONNX file, as raw f32.
    let m = nart_cli::commands::load(&model_dir.join("model.onnx"), None).unwrap();
    let vals =
        nart_cli::commands::read_inputs_within(&m, &model_dir.join("test_data_set_0")).unwrap();
    let nart_interp::Val::Tensor(x) = &vals[0] else {
        panic!("a tensor input")
    };
    let n = x.shape()[0];
    let outs = m.interp.run_values(vals.clone()).unwrap();
    let nart_interp::Val::Tensor(y) = &outs[0] else {
        panic!("a tensor output")
    };
    std::fs::write(tmp.join("input.f32"), f32_bytes(x)).unwrap();
    std::fs::write(tmp.join("expected.f32"), f32_bytes(y)).unwrap();

    let lib = lib_dir();
    let exe = tmp.join("run_package");
    let cc = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(root().join("include"))
        .arg(root().join("tests/c/run_package.c"))
        .arg("-L")
        .arg(&lib)
        .arg("-lnart_rt_c")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        cc.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let run = Command::new(&exe)
        .arg(&pkg)
        .arg(tmp.join("input.f32"))
        .arg(tmp.join("expected.f32"))
        .arg(n.to_string())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "the C program failed:\n{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&run.stdout), "ok\n");
}
