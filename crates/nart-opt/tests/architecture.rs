//! Keeps the crate layering of `docs/ARCHITECTURE.md` true: every `nart-*` dependency of a
//! workspace crate must point to a crate of a lower tier, `filecheck` and `proto` stay leaves,
//! the dev-only crates stay dev-only, and nothing depends on `nart-opt`.

use std::collections::BTreeMap;
use std::path::Path;

/// The tier of each workspace crate, as the architecture document states it.
fn tiers() -> BTreeMap<&'static str, u32> {
    BTreeMap::from([
        ("nart-asm-format", 0),
        ("nart-ir", 1),
        ("nart-macros", 1),
        ("nart-tensor", 1),
        ("nart-onnx-proto", 0),
        ("nart-filecheck", 0),
        ("nart-rewrite", 2),
        ("nart-pass", 2),
        ("nart-dialect-func", 3),
        ("nart-dialect-cf", 3),
        ("nart-dialect-arith", 3),
        ("nart-dialect-scf", 3),
        ("nart-dialect-memref", 3),
        ("nart-dialect-math", 3),
        ("nart-dialect-vector", 3),
        ("nart-dialect-graph", 3),
        ("nart-dialect-quant", 3),
        ("nart-dialect-qnn", 3),
        ("nart-dialect-target", 3),
        ("nart-dialect-bufferization", 3),
        ("nart-dialect-tensor", 3),
        ("nart-dialect-linalg", 3),
        ("nart-target-rt", 2),
        ("nart-rt", 3),
        // The onednn target: its runtime half knows tensors only, its compiler half sits
        // beside nart-rt-std.
        ("nart-onednn-rt", 3),
        ("nart-target-onednn", 6),
        // The openvino target, split the same way.
        ("nart-openvino-rt", 3),
        ("nart-target-openvino", 6),
        // The runtime half of the code-level cpu target.
        ("nart-cpu-rt", 3),
        ("nart-target-cpu", 6),
        ("nart-llvm", 4),
        ("nart-transforms", 4),
        ("nart-bufferize", 4),
        ("nart-conversion", 4),
        ("nart-tutorial-fixed-point", 4),
        ("nart-onnx", 4),
        ("nart-interp", 4),
        ("nart-graph-opt", 5),
        ("nart-quant", 6),
        ("nart-graph-fusion", 5),
        ("nart-linalg-lowering", 4),
        ("nart-target", 5),
        ("nart-rt-std", 6),
        ("nart-cli", 7),
        ("nart-rt-c", 7),
        ("nart-egraph", 6),
        ("nart-opt", 7),
        // The example chip (`examples/toy-npu`), built on the public API.
        ("toy-npu", 6),
        // Dev-only (see `DEV_ONLY`): its tier only says what it may depend on.
        ("nart-test-dialect", 2),
    ])
}

/// Crates only tests use: no crate lists them under `[dependencies]` (only under
/// `[dev-dependencies]`), they are never published, and they depend on nothing but `nart-ir`.
const DEV_ONLY: [&str; 1] = ["nart-test-dialect"];

/// What the architecture test reads from a manifest.
struct Manifest {
    /// The package name.
    name: String,
    /// The `nart-*` crates under `[dependencies]`.
    deps: Vec<String>,
    /// Whether `[package]` says `publish = false`.
    unpublished: bool,
}

/// The package name, `nart-*` dependencies and publishing of a manifest.
fn read_manifest(path: &Path) -> Manifest {
    let text = std::fs::read_to_string(path).expect("manifests are readable");
    let mut name = String::new();
    let mut deps = Vec::new();
    let mut unpublished = false;
    let mut section = String::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line.to_string();
            continue;
        }
        if section == "[package]" && line.starts_with("name") {
            name = line
                .split('"')
                .nth(1)
                .expect("package name is quoted")
                .to_string();
        }
        if section == "[package]" && line.replace(' ', "") == "publish=false" {
            unpublished = true;
        }
        if section == "[dependencies]" {
            let dep = line.split(['=', '.', ' ']).next().unwrap_or("");
            if dep.starts_with("nart") {
                deps.push(dep.to_string());
            }
        }
    }
    Manifest {
        name,
        deps,
        unpublished,
    }
}

#[test]
fn crates_depend_only_on_lower_tiers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut manifests = vec![
        root.join("filecheck/Cargo.toml"),
        root.join("proto/Cargo.toml"),
        root.join("docs/tutorials/fixed-point/Cargo.toml"),
        root.join("examples/toy-npu/Cargo.toml"),
    ];
    for dir in ["crates", "dialects", "passes"] {
        let mut entries: Vec<_> = std::fs::read_dir(root.join(dir))
            .expect("workspace folders exist")
            .filter_map(|e| e.ok())
            .map(|e| e.path().join("Cargo.toml"))
            .filter(|p| p.exists())
            .collect();
        entries.sort();
        manifests.extend(entries);
    }
    let tiers = tiers();
    let mut problems = Vec::new();
    for m in &manifests {
        let Manifest {
            name,
            deps,
            unpublished,
        } = read_manifest(m);
        let dev_only = DEV_ONLY.contains(&name.as_str());
        if dev_only && !unpublished {
            problems.push(format!(
                "dev-only crate '{name}' must say `publish = false`"
            ));
        }
        let Some(&tier) = tiers.get(name.as_str()) else {
            problems.push(format!(
                "crate '{name}' is not in the tier table (docs/ARCHITECTURE.md and this test)"
            ));
            continue;
        };
        for d in deps {
            if DEV_ONLY.contains(&d.as_str()) {
                problems.push(format!(
                    "'{name}' depends on the dev-only crate '{d}': list it under [dev-dependencies]"
                ));
                continue;
            }
            if dev_only && d != "nart-ir" {
                problems.push(format!(
                    "dev-only crate '{name}' may depend only on nart-ir, not on '{d}'"
                ));
                continue;
            }
            match tiers.get(d.as_str()) {
                None => problems.push(format!("'{name}' depends on unknown crate '{d}'")),
                Some(_) if d == "nart-opt" => {
                    problems.push(format!("'{name}' depends on nart-opt, which nothing may"))
                }
                Some(&dt) if tier == 0 => problems.push(format!(
                    "'{name}' is a leaf crate but depends on '{d}' (tier {dt})"
                )),
                // A dialect may build on another dialect (quant on graph, for example).
                Some(&dt) if dt == 3 && tier == 3 && d.starts_with("nart-dialect-") => {}
                Some(&dt) if dt >= tier && dt != 0 => problems.push(format!(
                    "'{name}' (tier {tier}) depends on '{d}' (tier {dt}): only lower tiers are allowed"
                )),
                _ => {}
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        manifests.len() >= tiers.len(),
        "some crates of the table were not found"
    );
}

/// The runtime holds no compiler: `nart-rt` depends on `nart-tensor` and `nart-target-rt`
/// only (its tier alone would allow `nart-ir` and `nart-pass`).
#[test]
fn the_runtime_depends_on_no_compiler_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let m = read_manifest(&root.join("crates/nart-rt/Cargo.toml"));
    assert_eq!(m.name, "nart-rt");
    assert_eq!(m.deps, ["nart-tensor", "nart-target-rt"]);
    // So does the runtime half of the onednn target.
    let m = read_manifest(&root.join("crates/nart-onednn-rt/Cargo.toml"));
    assert_eq!(m.name, "nart-onednn-rt");
    assert_eq!(m.deps, ["nart-tensor", "nart-target-rt"]);
    // And that of the openvino target.
    let m = read_manifest(&root.join("crates/nart-openvino-rt/Cargo.toml"));
    assert_eq!(m.name, "nart-openvino-rt");
    assert_eq!(m.deps, ["nart-tensor", "nart-target-rt"]);
    // And that of the cpu target: generated code runs without LLVM.
    let m = read_manifest(&root.join("crates/nart-cpu-rt/Cargo.toml"));
    assert_eq!(m.name, "nart-cpu-rt");
    assert_eq!(m.deps, ["nart-tensor", "nart-target-rt"]);
}
