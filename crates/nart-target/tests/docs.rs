//! `docs/targets.md` stays true: its copy of the example target is the example's source, and
//! its pass reference is generated from the pass declarations (`NART_BLESS=1` rewrites it).

use std::path::Path;

fn doc_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/targets.md")
}

#[test]
fn the_example_in_the_docs_is_the_example() {
    let text = std::fs::read_to_string(doc_path()).unwrap();
    let example = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/relu_chip.rs"),
    )
    .unwrap();
    let begin = "<!-- BEGIN relu_chip.rs -->\n```rust\n";
    let end = "```\n<!-- END relu_chip.rs -->";
    let (Some(b), Some(e)) = (text.find(begin), text.find(end)) else {
        panic!("docs/targets.md lacks the example's markers");
    };
    assert!(
        text[b + begin.len()..e] == example,
        "docs/targets.md's copy of examples/relu_chip.rs is out of date"
    );
}

#[test]
fn the_pass_reference_is_generated() {
    const BEGIN: &str = "<!-- BEGIN GENERATED PASS REFERENCE -->\n";
    const END: &str = "<!-- END GENERATED PASS REFERENCE -->";
    let path = doc_path();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut registry = nart_pass::PassRegistry::new();
    nart_target::register_passes(&mut registry);
    let generated = registry.markdown_reference();
    let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) else {
        panic!("docs/targets.md lacks the generated-reference markers");
    };
    if text[b + BEGIN.len()..e] != generated {
        if std::env::var_os("NART_BLESS").is_some() {
            let new = format!("{}{BEGIN}{generated}{}", &text[..b], &text[e..]);
            std::fs::write(&path, new).unwrap();
        } else {
            panic!("docs/targets.md is out of date; run with NART_BLESS=1 to regenerate it");
        }
    }
}
