//! Typed errors of the pass infrastructure.

use nart_ir::Diagnostic;

/// An error in a pass's option string (`{key=value ...}`), at a byte offset into that string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct OptionError {
    /// Byte offset into the option text where the problem is.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

/// An error in a textual pass pipeline, pointing at a byte offset of it.
///
/// Its `Display` renders it as MLIR does: a `file:line:col: error: message` line, then the
/// pipeline, then a caret under the offending character.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.render())]
pub struct PipelineError {
    /// What is wrong.
    pub message: String,
    /// The pipeline text.
    pub pipeline: String,
    /// Byte offset of the problem in `pipeline`.
    pub offset: usize,
}

impl PipelineError {
    /// The error with the pipeline and a caret line, ending with a newline.
    pub fn render(&self) -> String {
        let offset = self.offset.min(self.pipeline.len());
        let col = self.pipeline[..offset].chars().count();
        format!(
            "pass pipeline:1:{}: error: {}\n{}\n{}^\n",
            col + 1,
            self.message,
            self.pipeline,
            " ".repeat(col)
        )
    }
}

/// Why a [`PassManager`](crate::PassManager) run failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PassManagerError {
    /// A pass signalled failure; the diagnostics say why (at least one, at the op's location).
    #[error("pass '{pass}' failed on '{op_name}'")]
    PassFailed {
        /// The pass argument.
        pass: String,
        /// The name of the op it ran on.
        op_name: String,
        /// What went wrong.
        diagnostics: Vec<Diagnostic>,
    },
    /// The IR did not verify after a pass.
    #[error("the IR does not verify after pass '{pass}'")]
    VerifyFailed {
        /// The pass argument.
        pass: String,
        /// The verifier's errors.
        diagnostics: Vec<Diagnostic>,
    },
    /// The pipeline is anchored on another op than the one it was run on.
    #[error("can't run '{expected}' pass manager on '{found}' op")]
    AnchorMismatch {
        /// The pipeline's anchor.
        expected: String,
        /// The op it was given.
        found: String,
    },
    /// A pass restricted to one op name was added to a pipeline anchored on another.
    #[error("can't add pass '{pass}' restricted to '{pass_anchor}' on a pass manager intended to run on '{manager_anchor}', did you intend to nest?")]
    PassAnchor {
        /// The pass argument.
        pass: String,
        /// The op name the pass runs on.
        pass_anchor: String,
        /// The pipeline's anchor.
        manager_anchor: String,
    },
    /// Writing instrumentation output failed.
    #[error("writing pass instrumentation output failed: {0}")]
    Io(String),
}

impl PassManagerError {
    /// The diagnostics carried by the error (empty for anchor and I/O errors).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            PassManagerError::PassFailed { diagnostics, .. }
            | PassManagerError::VerifyFailed { diagnostics, .. } => diagnostics,
            _ => &[],
        }
    }
}

impl From<std::io::Error> for PassManagerError {
    fn from(e: std::io::Error) -> Self {
        PassManagerError::Io(e.to_string())
    }
}
