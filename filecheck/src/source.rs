//! Source buffers and LLVM `SourceMgr`-style diagnostics.
//!
//! Every diagnostic is printed as `file:line:col: kind: message`, followed by the source line and a
//! caret line, exactly like LLVM prints them.

use std::cell::OnceCell;
use std::fmt::Write as _;

/// Identifies one buffer known to a [`SourceSet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BufId {
    /// The check file.
    Check,
    /// The input being checked.
    Input,
    /// The synthetic buffer for the `n`-th `--implicit-check-not` (0-based).
    CmdLine(usize),
    /// The synthetic buffer describing `-D` definitions.
    Defines,
}

/// A location: a buffer and a byte offset into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    /// The buffer.
    pub buf: BufId,
    /// The byte offset.
    pub off: usize,
}

impl Loc {
    /// Makes a location.
    pub fn new(buf: BufId, off: usize) -> Loc {
        Loc { buf, off }
    }
}

/// One named text buffer with lazily computed line starts.
#[derive(Debug)]
pub struct Buffer {
    /// The name shown in diagnostics.
    pub name: String,
    /// The (canonicalized) text.
    pub text: Vec<u8>,
    line_starts: OnceCell<Vec<usize>>,
}

impl Buffer {
    /// Makes a buffer.
    pub fn new(name: impl Into<String>, text: Vec<u8>) -> Buffer {
        Buffer {
            name: name.into(),
            text,
            line_starts: OnceCell::new(),
        }
    }

    fn starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| {
            let mut v = vec![0];
            for p in memchr::memchr_iter(b'\n', &self.text) {
                v.push(p + 1);
            }
            v
        })
    }

    /// Returns the 1-based line and column of `off`.
    pub fn line_col(&self, off: usize) -> (usize, usize) {
        let starts = self.starts();
        let idx = match starts.binary_search(&off) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        (idx + 1, off - starts[idx] + 1)
    }

    /// Returns the byte offset where the given 1-based line starts, if it exists.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.starts().get(line.wrapping_sub(1)).copied()
    }

    /// Returns the text of the line containing `off`, without its newline.
    pub fn line_text(&self, off: usize) -> &[u8] {
        let (line, _) = self.line_col(off);
        let start = self.starts()[line - 1];
        let end = memchr::memchr(b'\n', &self.text[start..]).map_or(self.text.len(), |e| start + e);
        let mut t = &self.text[start..end];
        if t.last() == Some(&b'\r') {
            t = &t[..t.len() - 1];
        }
        t
    }
}

/// The severity of a diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `error:`.
    Error,
    /// `note:`.
    Note,
    /// `remark:`.
    Remark,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Error => "error",
            Kind::Note => "note",
            Kind::Remark => "remark",
        }
    }
}

/// All buffers of one FileCheck run plus the diagnostic sink.
#[derive(Debug)]
pub struct SourceSet {
    /// The check file.
    pub check: Buffer,
    /// The input (empty until it is read).
    pub input: Buffer,
    /// One buffer per `--implicit-check-not`.
    pub cmdline: Vec<Buffer>,
    /// The `-D` description buffer.
    pub defines: Buffer,
    /// Everything printed so far, as it would go to stderr.
    pub out: String,
}

impl SourceSet {
    /// Makes a set with the check file only.
    pub fn new(check: Buffer) -> SourceSet {
        SourceSet {
            check,
            input: Buffer::new("<stdin>", Vec::new()),
            cmdline: Vec::new(),
            defines: Buffer::new("Global defines", Vec::new()),
            out: String::new(),
        }
    }

    /// Returns the buffer with the given id.
    pub fn buf(&self, id: BufId) -> &Buffer {
        match id {
            BufId::Check => &self.check,
            BufId::Input => &self.input,
            BufId::CmdLine(i) => &self.cmdline[i],
            BufId::Defines => &self.defines,
        }
    }

    /// Prints a diagnostic at `loc`, marking `range` (byte offsets in the same buffer) with `~`.
    pub fn print(&mut self, loc: Loc, kind: Kind, msg: &str, range: Option<(usize, usize)>) {
        let text = render(self.buf(loc.buf), loc.off, kind, msg, range);
        self.out.push_str(&text);
    }

    /// Appends raw text to the diagnostic output.
    pub fn raw(&mut self, s: &str) {
        self.out.push_str(s);
    }
}

/// Renders one diagnostic the way LLVM's `SMDiagnostic::print` does (without colors).
pub fn render(
    buf: &Buffer,
    off: usize,
    kind: Kind,
    msg: &str,
    range: Option<(usize, usize)>,
) -> String {
    let off = off.min(buf.text.len());
    let (line, col) = buf.line_col(off);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}:{}:{}: {}: {}",
        buf.name,
        line,
        col,
        kind.as_str(),
        msg
    );
    let src = buf.line_text(off);
    if !src.is_ascii() {
        // LLVM cannot place carets under multibyte text, so it prints the line alone.
        let _ = writeln!(s, "{}", String::from_utf8_lossy(&expand_tabs(src)));
        return s;
    }
    let line_start = off + 1 - col;
    let mut caret: Vec<u8> = vec![b' '; src.len() + 1];
    if let Some((a, b)) = range {
        let a = a.max(line_start);
        let b = b.min(line_start + src.len() + 1);
        for p in a..b {
            caret[p - line_start] = b'~';
        }
    }
    if col - 1 < caret.len() {
        caret[col - 1] = b'^';
    }
    while caret.last() == Some(&b' ') {
        caret.pop();
    }
    // Expand tabs to 8-column stops in both lines, as LLVM does.
    let mut src_out = String::new();
    let mut caret_out = String::new();
    let mut out_col = 0usize;
    for (i, &c) in src.iter().enumerate() {
        let cc = caret.get(i).copied().unwrap_or(b' ');
        if c == b'\t' {
            loop {
                src_out.push(' ');
                caret_out.push(cc as char);
                out_col += 1;
                if out_col.is_multiple_of(8) {
                    break;
                }
            }
        } else {
            src_out.push_str(&String::from_utf8_lossy(&[c]));
            caret_out.push(cc as char);
            out_col += 1;
        }
    }
    if let Some(&cc) = caret.get(src.len()) {
        caret_out.push(cc as char);
    }
    let caret_out = caret_out.trim_end().to_string();
    let _ = writeln!(s, "{}", String::from_utf8_lossy(src_out.as_bytes()));
    let _ = writeln!(s, "{}", caret_out);
    s
}

/// The line with each tab expanded to the next multiple of 8 columns, counting bytes.
fn expand_tabs(src: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(src.len());
    for &c in src {
        if c == b'\t' {
            out.push(b' ');
            while out.len() % 8 != 0 {
                out.push(b' ');
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_caret_and_range() {
        let b = Buffer::new("f", b"CHECK: foo\nbar\n".to_vec());
        let s = render(&b, 7, Kind::Error, "msg", Some((7, 10)));
        assert_eq!(s, "f:1:8: error: msg\nCHECK: foo\n       ^~~\n");
        let s = render(&b, 15, Kind::Note, "end", None);
        assert_eq!(s, "f:3:1: note: end\n\n^\n");
    }

    #[test]
    fn prints_non_ascii_lines_without_carets() {
        let b = Buffer::new("f", "a\té x\n".as_bytes().to_vec());
        let s = render(&b, 5, Kind::Error, "msg", Some((5, 6)));
        assert_eq!(s, "f:1:6: error: msg\na       é x\n");
    }
}
