//! nart's general transformation passes, one per file, each declared once with its name,
//! summary, description, options and statistics (MLIR's `Transforms/Passes.td`):
//!
//! | pass | what it does |
//! |---|---|
//! | `canonicalize` | folds and applies every registered op's canonicalization patterns greedily |
//! | `cse` | eliminates common subexpressions of pure ops, walking the dominator tree |
//! | `symbol-dce` | erases private symbols nothing live refers to |
//! | `inline` | inlines calls to single-block functions, then canonicalizes the callers |
//! | `print-ir` | prints the op it runs on |
//! | `strip-debuginfo` | sets every op location to `loc(unknown)` |
//!
//! None of them knows a dialect: they read traits (`Pure`, `CallLike`, `FunctionLike`,
//! `ReturnLike`, `SymbolTable`, ...) and attribute names (`callee`, `sym_name`,
//! `sym_visibility`) from the op registry.
//!
//! Each is declared with `nart_pass::declare_pass!` and implements only `Pass::run`; nothing
//! here is needed to write a pass elsewhere.

#![deny(missing_docs)]

pub mod canonicalize;
pub mod cse;
pub mod inline;
pub mod print_ir;
pub mod strip_debuginfo;
pub mod symbol_dce;

#[cfg(test)]
mod testing;

pub use canonicalize::CanonicalizePass;
pub use cse::CsePass;
pub use inline::InlinePass;
pub use print_ir::PrintIrPass;
pub use strip_debuginfo::StripDebugInfoPass;
pub use symbol_dce::SymbolDcePass;

/// Registers every pass of this crate.
pub fn register(registry: &mut nart_pass::PassRegistry) {
    registry.register(|| Box::new(CanonicalizePass::new()));
    registry.register(|| Box::new(CsePass::new()));
    registry.register(|| Box::new(SymbolDcePass::new()));
    registry.register(|| Box::new(InlinePass::new()));
    registry.register(|| Box::new(PrintIrPass::new()));
    registry.register(|| Box::new(StripDebugInfoPass::new()));
}

#[cfg(test)]
mod tests {
    /// `docs/passes.md` holds the reference generated from the pass declarations between two
    /// markers; `NART_BLESS=1` rewrites it.
    #[test]
    fn docs_reference_in_sync() {
        const BEGIN: &str = "<!-- BEGIN GENERATED PASS REFERENCE -->\n";
        const END: &str = "<!-- END GENERATED PASS REFERENCE -->";
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/passes.md");
        let text = std::fs::read_to_string(&path).expect("docs/passes.md exists");
        let mut registry = nart_pass::PassRegistry::new();
        super::register(&mut registry);
        let generated = registry.markdown_reference();
        let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) else {
            panic!("docs/passes.md lacks the generated-reference markers");
        };
        let current = &text[b + BEGIN.len()..e];
        if current != generated {
            if std::env::var_os("NART_BLESS").is_some() {
                let new = format!("{}{BEGIN}{generated}{}", &text[..b], &text[e..]);
                std::fs::write(&path, new).expect("docs/passes.md is writable");
            } else {
                panic!("docs/passes.md is out of date; run with NART_BLESS=1 to regenerate");
            }
        }
    }

    #[test]
    fn list_passes_names_every_pass() {
        let mut registry = nart_pass::PassRegistry::new();
        super::register(&mut registry);
        let text = registry.list_passes();
        for p in [
            "canonicalize",
            "cse",
            "inline",
            "print-ir",
            "strip-debuginfo",
            "symbol-dce",
        ] {
            assert!(text.contains(&format!("  --{p} ")), "{text}");
        }
        assert!(text.contains(
            "    --region-simplify=<value>                             - Perform control flow optimizations to the region tree\n    =disabled                                           -   Don't run any control-flow simplification.\n"
        ), "{text}");
    }
}
