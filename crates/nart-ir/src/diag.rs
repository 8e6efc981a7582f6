//! Diagnostics: a severity, a location, a message and notes, rendered as
//! `file:line:col: error: message` followed by the source line and a caret, as MLIR does.

use crate::{Context, Location, Op};

/// How bad a diagnostic is.
#[derive(Clone, Copy, PartialEq, Eq, Debug, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// A note attached to another diagnostic.
    Note,
    /// A remark.
    Remark,
    /// A warning.
    Warning,
    /// An error.
    Error,
}

impl Severity {
    /// The word printed for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Remark => "remark",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A message about the IR or its text, with a location.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Severity.
    pub severity: Severity,
    /// Where.
    pub loc: Location,
    /// What.
    pub message: String,
    /// Attached notes.
    pub notes: Vec<Diagnostic>,
}

impl Diagnostic {
    /// An error at `loc`.
    pub fn error(loc: Location, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            loc,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// A diagnostic of any severity.
    pub fn new(severity: Severity, loc: Location, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity,
            loc,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// Attaches a note at `loc`.
    pub fn with_note(mut self, loc: Location, message: impl Into<String>) -> Diagnostic {
        self.notes.push(Diagnostic::new(Severity::Note, loc, message));
        self
    }
}

impl Context {
    /// An error about `op`, prefixed MLIR-style: `'arith.addi' op <message>`.
    pub fn op_error(&self, op: Op, message: impl std::fmt::Display) -> Diagnostic {
        Diagnostic::error(
            self.op_loc(op),
            format!("'{}' op {}", self.op_name_str(op), message),
        )
    }
}

/// Source buffers by file name, to show the line a diagnostic points at.
#[derive(Default, Debug, Clone)]
pub struct SourceMgr {
    files: Vec<(String, String)>,
}

impl SourceMgr {
    /// An empty source manager.
    pub fn new() -> SourceMgr {
        SourceMgr::default()
    }

    /// Adds (or replaces) a buffer.
    pub fn add(&mut self, name: &str, text: &str) {
        if let Some(f) = self.files.iter_mut().find(|(n, _)| n == name) {
            f.1 = text.to_string();
        } else {
            self.files.push((name.to_string(), text.to_string()));
        }
    }

    /// The text of line `line` (1-based) of `file`.
    pub fn line(&self, file: &str, line: u32) -> Option<&str> {
        let (_, text) = self.files.iter().find(|(n, _)| n == file)?;
        text.split('\n')
            .nth(line.checked_sub(1)? as usize)
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
    }

    /// Renders a diagnostic and its notes:
    /// `file:line:col: error: message`, then the source line and a caret under the column.
    pub fn render(&self, ctx: &Context, diag: &Diagnostic) -> String {
        let mut out = String::new();
        self.render_one(ctx, diag, &mut out);
        for n in &diag.notes {
            self.render_one(ctx, n, &mut out);
        }
        out
    }

    fn render_one(&self, ctx: &Context, diag: &Diagnostic, out: &mut String) {
        use std::fmt::Write;
        match ctx.loc_file_line_col(diag.loc) {
            Some((file, line, col)) => {
                let _ = writeln!(
                    out,
                    "{file}:{line}:{col}: {}: {}",
                    diag.severity.as_str(),
                    diag.message
                );
                if let Some(src) = self.line(file, line) {
                    let _ = writeln!(out, "{src}");
                    let pad: String = src
                        .chars()
                        .take(col.saturating_sub(1) as usize)
                        .map(|c| if c == '\t' { '\t' } else { ' ' })
                        .collect();
                    let _ = writeln!(out, "{pad}^");
                }
            }
            None => {
                let _ = writeln!(
                    out,
                    "loc(unknown): {}: {}",
                    diag.severity.as_str(),
                    diag.message
                );
            }
        }
    }
}
