//! Hooks for custom op syntax. The parser and printer modules fill in these types.

pub use crate::parser::OpAsmParser;
pub use crate::printer::OpAsmPrinter;

/// A hand-written custom parser: reads the op's text after its name into `state`.
pub type CustomParseFn =
    fn(&mut OpAsmParser<'_, '_>, &mut crate::OperationState) -> Result<(), crate::Diagnostic>;

/// A hand-written custom printer: prints the op after its name (and after `%results = `).
pub type CustomPrintFn = fn(&mut OpAsmPrinter<'_>, crate::Op) -> std::fmt::Result;
