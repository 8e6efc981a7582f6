//! Dialect conversions, one module per source and target dialect as upstream MLIR's
//! `Conversion/XToY`: each is a set of [`ConversionPattern`](nart_rewrite::conversion::ConversionPattern)s
//! that other conversions can reuse, and a pass that applies them with the core's dialect
//! conversion, so a lowering that cannot legalize an op reports it at its location.
//!
//! The patterns build the ops of the target dialects by name; the dialects (`arith`, `cf`, the
//! source dialect) must be registered where the pass runs, as `nart-opt` does.

#![deny(missing_docs)]

pub mod scf_to_cf;

/// Registers the conversion passes.
pub fn register(registry: &mut nart_pass::PassRegistry) {
    registry.register(|| Box::new(scf_to_cf::ConvertScfToCfPass::new()));
}

#[cfg(test)]
mod tests {
    /// `docs/conversion.md` holds the reference generated from the pass declarations between
    /// two markers; `NART_BLESS=1` rewrites it.
    #[test]
    fn docs_reference_in_sync() {
        const BEGIN: &str = "<!-- BEGIN GENERATED PASS REFERENCE -->\n";
        const END: &str = "<!-- END GENERATED PASS REFERENCE -->";
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/conversion.md");
        let text = std::fs::read_to_string(&path).expect("docs/conversion.md exists");
        let mut registry = nart_pass::PassRegistry::new();
        super::register(&mut registry);
        let generated = registry.markdown_reference();
        let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) else {
            panic!("docs/conversion.md lacks the generated-reference markers");
        };
        let current = &text[b + BEGIN.len()..e];
        if current != generated {
            if std::env::var_os("NART_BLESS").is_some() {
                let new = format!("{}{BEGIN}{generated}{}", &text[..b], &text[e..]);
                std::fs::write(&path, new).expect("docs/conversion.md is writable");
            } else {
                panic!("docs/conversion.md is out of date; run with NART_BLESS=1 to regenerate");
            }
        }
    }
}
