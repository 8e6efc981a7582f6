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
        self.notes
            .push(Diagnostic::new(Severity::Note, loc, message));
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
    /// Name, text, and the 0-based line of the file where the text starts (a chunk of a
    /// `--split-input-file` buffer starts past line 0).
    files: Vec<(String, String, u32)>,
}

impl SourceMgr {
    /// An empty source manager.
    pub fn new() -> SourceMgr {
        SourceMgr::default()
    }

    /// Adds (or replaces) a buffer.
    pub fn add(&mut self, name: &str, text: &str) {
        self.add_at(name, text, 0);
    }

    /// Adds (or replaces) a buffer that holds `file` from 0-based line `first_line` on, as a
    /// chunk of a `--split-input-file` buffer does: line numbers stay those of the file.
    pub fn add_at(&mut self, name: &str, text: &str, first_line: u32) {
        if let Some(f) = self.files.iter_mut().find(|(n, _, _)| n == name) {
            f.1 = text.to_string();
            f.2 = first_line;
        } else {
            self.files
                .push((name.to_string(), text.to_string(), first_line));
        }
    }

    /// The text of line `line` (1-based, of the file) of `file`.
    pub fn line(&self, file: &str, line: u32) -> Option<&str> {
        let (_, text, first) = self.files.iter().find(|(n, _, _)| n == file)?;
        text.split('\n')
            .nth(line.checked_sub(1)?.checked_sub(*first)? as usize)
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
            Some((file, 0, _)) if file.ends_with(".onnx") => {
                // A whole-file location in a binary model: no line to show.
                let _ = writeln!(out, "{file}: {}: {}", diag.severity.as_str(), diag.message);
            }
            Some((file, 0, col)) => {
                // A whole-file location in text (the implicit top-level module): printed as
                // MLIR prints it, `file:0:0`, with no line to show.
                let _ = writeln!(
                    out,
                    "{file}:0:{col}: {}: {}",
                    diag.severity.as_str(),
                    diag.message
                );
            }
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

/// One `// expected-error @+1 {{message}}` annotation (`--verify-diagnostics`).
#[derive(Clone, Debug, PartialEq)]
pub struct Expected {
    /// Expected severity.
    pub severity: Severity,
    /// Line (1-based) the diagnostic must point at; `None` for `@unknown`.
    pub line: Option<u32>,
    /// Message text that must occur in the diagnostic (or a regex with `-re`).
    pub message: String,
    /// Whether `message` is a regex (`expected-error-re`), with `{{...}}` blocks as regexes.
    pub is_regex: bool,
    /// Line of the annotation itself, for reporting.
    pub annotation_line: u32,
    /// Column of the annotation, for reporting.
    pub annotation_col: u32,
    /// How many times the diagnostic must be produced.
    pub count: u32,
}

/// Parses every `expected-<severity>` annotation in `text` (MLIR's `--verify-diagnostics`
/// syntax): `// expected-error {{msg}}`, `@+N`, `@-N`, `@above`, `@below`, `@unknown`, and an
/// optional repeat count `* N` before the message.
pub fn parse_expected(text: &str) -> Result<Vec<Expected>, (u32, u32, String)> {
    parse_expected_at(text, 0)
}

/// [`parse_expected`] for a text that starts at 0-based line `first_line` of its file (a chunk
/// of a `--split-input-file` buffer): lines are the file's.
pub fn parse_expected_at(text: &str, first_line: u32) -> Result<Vec<Expected>, (u32, u32, String)> {
    let mut expected =
        parse_expected_lines(text).map_err(|(line, col, msg)| (line + first_line, col, msg))?;
    for e in &mut expected {
        e.line = e.line.map(|l| l + first_line);
        e.annotation_line += first_line;
    }
    Ok(expected)
}

fn parse_expected_lines(text: &str) -> Result<Vec<Expected>, (u32, u32, String)> {
    let mut out: Vec<Expected> = Vec::new();
    let lines: Vec<&str> = text.split('\n').collect();
    let mut pending_below: Vec<usize> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let lineno = i as u32 + 1;
        // A line that is not only an annotation is the target of pending `@below` ones.
        let mut rest = *line;
        let mut offset = 0usize;
        let mut found_any = false;
        while let Some(pos) = rest.find("expected-") {
            let start = offset + pos;
            let after = &line[start + "expected-".len()..];
            let sev_words = [
                ("error", Severity::Error),
                ("warning", Severity::Warning),
                ("remark", Severity::Remark),
                ("note", Severity::Note),
            ];
            let Some((word, severity)) = sev_words.iter().find(|(w, _)| after.starts_with(w))
            else {
                offset = start + 1;
                rest = &line[offset..];
                continue;
            };
            let mut s = &after[word.len()..];
            let is_regex = if let Some(t) = s.strip_prefix("-re") {
                s = t;
                true
            } else {
                false
            };
            if !(s.starts_with(' ')
                || s.starts_with('@')
                || s.starts_with('{')
                || s.starts_with('*'))
            {
                offset = start + 1;
                rest = &line[offset..];
                continue;
            }
            found_any = true;
            let col = start as u32 + 1;
            s = s.trim_start();
            let mut target: Option<u32> = Some(lineno);
            let mut below = false;
            if let Some(t) = s.strip_prefix('@') {
                let (spec, tail) = t.split_at(
                    t.find(|c: char| c.is_whitespace() || c == '{' || c == '*')
                        .unwrap_or(t.len()),
                );
                s = tail.trim_start();
                match spec {
                    "above" => target = lineno.checked_sub(1),
                    "below" => below = true,
                    "unknown" => target = None,
                    _ => {
                        let n: i64 = spec.parse().map_err(|_| {
                            (lineno, col, format!("expected '@+N', '@-N', '@above', '@below' or '@unknown', found '@{spec}'"))
                        })?;
                        let t = lineno as i64 + n;
                        if t < 1 || t > lines.len() as i64 {
                            return Err((
                                lineno,
                                col,
                                format!("'@{spec}' points outside the file"),
                            ));
                        }
                        target = Some(t as u32);
                    }
                }
            }
            let mut count = 1u32;
            if let Some(t) = s.strip_prefix('*') {
                let t = t.trim_start();
                let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
                count = t[..end]
                    .parse()
                    .map_err(|_| (lineno, col, "expected a count after '*'".to_string()))?;
                s = t[end..].trim_start();
            }
            let Some(body) = s.strip_prefix("{{") else {
                return Err((
                    lineno,
                    col,
                    "expected '{{' after expected-diagnostic specifier".into(),
                ));
            };
            // The message ends at the last '}}' on the line.
            let Some(end) = body.rfind("}}") else {
                return Err((
                    lineno,
                    col,
                    "expected '}}' at the end of the expected message".into(),
                ));
            };
            let message = body[..end].to_string();
            out.push(Expected {
                severity: *severity,
                line: target,
                message,
                is_regex,
                annotation_line: lineno,
                annotation_col: col,
                count,
            });
            if below {
                pending_below.push(out.len() - 1);
            }
            let consumed = start + "expected-".len() + (after.len() - body.len()) + end + 2;
            offset = consumed.min(line.len());
            rest = &line[offset..];
        }
        // Resolve pending `@below` annotations at the next line that holds no annotation.
        if !found_any && !pending_below.is_empty() && !line.trim().is_empty() {
            for idx in pending_below.drain(..) {
                out[idx].line = Some(lineno);
            }
        }
    }
    if let Some(&idx) = pending_below.first() {
        let e = &out[idx];
        return Err((
            e.annotation_line,
            e.annotation_col,
            "expected-diagnostic '@below' has no line below it".into(),
        ));
    }
    Ok(out)
}

fn message_matches(expected: &Expected, actual: &str) -> bool {
    if !expected.is_regex {
        return actual.contains(&expected.message);
    }
    // `{{re}}` blocks are regexes, the rest literal text; the whole is searched.
    let mut pattern = String::new();
    let mut s = expected.message.as_str();
    while let Some(pos) = s.find("{{") {
        pattern.push_str(&regex_escape(&s[..pos]));
        let Some(end) = s[pos + 2..].find("}}") else {
            pattern.push_str(&regex_escape(&s[pos..]));
            s = "";
            break;
        };
        pattern.push('(');
        pattern.push_str(&s[pos + 2..pos + 2 + end]);
        pattern.push(')');
        s = &s[pos + 2 + end + 2..];
    }
    pattern.push_str(&regex_escape(s));
    simple_regex_search(&pattern, actual)
}

fn regex_escape(s: &str) -> String {
    let mut o = String::new();
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            o.push('\\');
        }
        o.push(c);
    }
    o
}

/// A tiny backtracking regex matcher (literals, `.`, classes `[...]`, `*`, `+`, `?`, groups
/// without alternation) sufficient for expected-diagnostic patterns; nart-ir takes no regex
/// dependency.
fn simple_regex_search(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    (0..=t.len()).any(|i| re_match(&p, 0, &t, i).is_some())
}

fn re_atom_end(p: &[char], i: usize) -> usize {
    match p[i] {
        '\\' => (i + 2).min(p.len()),
        '[' => {
            let mut j = i + 1;
            if j < p.len() && p[j] == '^' {
                j += 1;
            }
            if j < p.len() && p[j] == ']' {
                j += 1;
            }
            while j < p.len() && p[j] != ']' {
                j += 1;
            }
            (j + 1).min(p.len())
        }
        '(' => {
            let mut depth = 0;
            let mut j = i;
            while j < p.len() {
                match p[j] {
                    '\\' => j += 1,
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            p.len()
        }
        _ => i + 1,
    }
}

fn re_atom_matches(atom: &[char], c: char) -> bool {
    match atom[0] {
        '.' => true,
        '\\' => match atom.get(1) {
            Some('d') => c.is_ascii_digit(),
            Some('w') => c.is_alphanumeric() || c == '_',
            Some('s') => c.is_whitespace(),
            Some(&x) => x == c,
            None => false,
        },
        '[' => {
            let mut inner = &atom[1..atom.len().saturating_sub(1)];
            let neg = inner.first() == Some(&'^');
            if neg {
                inner = &inner[1..];
            }
            let mut k = 0;
            let mut hit = false;
            while k < inner.len() {
                if k + 2 < inner.len() && inner[k + 1] == '-' {
                    if inner[k] <= c && c <= inner[k + 2] {
                        hit = true;
                    }
                    k += 3;
                } else {
                    if inner[k] == c {
                        hit = true;
                    }
                    k += 1;
                }
            }
            hit != neg
        }
        x => x == c,
    }
}

/// Matches `p[pi..]` against `t[ti..]` as a prefix; returns the end position.
fn re_match(p: &[char], pi: usize, t: &[char], ti: usize) -> Option<usize> {
    if pi >= p.len() {
        return Some(ti);
    }
    if p[pi] == ')' {
        return re_match(p, pi + 1, t, ti);
    }
    let end = re_atom_end(p, pi);
    let atom = &p[pi..end];
    let quant = p.get(end).copied();
    let next = if matches!(quant, Some('*' | '+' | '?')) {
        end + 1
    } else {
        end
    };
    let step = |ti: usize| -> Vec<usize> {
        if atom[0] == '(' {
            let inner = &atom[1..atom.len() - 1];
            // All ends reachable by matching the group once.
            (ti..=t.len())
                .filter(|&e| re_match(inner, 0, &t[..e], ti) == Some(e))
                .collect()
        } else if ti < t.len() && re_atom_matches(atom, t[ti]) {
            vec![ti + 1]
        } else {
            Vec::new()
        }
    };
    match quant {
        Some('*') | Some('+') => {
            let mut frontier = vec![ti];
            let mut all = if quant == Some('*') {
                vec![ti]
            } else {
                Vec::new()
            };
            let mut seen = std::collections::HashSet::new();
            while let Some(x) = frontier.pop() {
                for y in step(x) {
                    if seen.insert(y) {
                        all.push(y);
                        frontier.push(y);
                    }
                }
            }
            all.sort_unstable_by(|a, b| b.cmp(a));
            all.into_iter().find_map(|e| re_match(p, next, t, e))
        }
        Some('?') => {
            let mut opts = step(ti);
            opts.push(ti);
            opts.into_iter().find_map(|e| re_match(p, next, t, e))
        }
        _ => step(ti).into_iter().find_map(|e| re_match(p, next, t, e)),
    }
}

/// Checks produced diagnostics against expectations; returns the problems, each as
/// (line, col, message) in the checked file: unmatched expectations and unexpected diagnostics.
pub fn check_expected(
    ctx: &Context,
    file: &str,
    expected: &[Expected],
    produced: &[Diagnostic],
) -> Vec<(Option<(u32, u32)>, String)> {
    let mut remaining: Vec<(usize, u32)> = expected
        .iter()
        .enumerate()
        .map(|(i, e)| (i, e.count))
        .collect();
    let mut problems = Vec::new();
    let mut flat: Vec<&Diagnostic> = Vec::new();
    for d in produced {
        flat.push(d);
        flat.extend(d.notes.iter());
    }
    for d in flat {
        let pos = ctx.loc_file_line_col(d.loc).filter(|(f, _, _)| *f == file);
        let line = pos.map(|(_, l, _)| l);
        let hit = remaining.iter_mut().find(|(i, left)| {
            let e = &expected[*i];
            *left > 0
                && e.severity == d.severity
                && e.line == line
                && message_matches(e, &d.message)
        });
        match hit {
            Some((_, left)) => *left -= 1,
            None => {
                let at = pos.map(|(_, l, c)| (l, c));
                problems.push((
                    at,
                    format!("unexpected {}: {}", d.severity.as_str(), d.message),
                ));
            }
        }
    }
    for (i, left) in remaining {
        if left > 0 {
            let e = &expected[i];
            problems.push((
                Some((e.annotation_line, e.annotation_col)),
                format!(
                    "expected {} \"{}\" was not produced",
                    e.severity.as_str(),
                    e.message
                ),
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_annotations() {
        let text = "a\n// expected-error @+1 {{bad thing}}\nb // expected-warning {{w}}\n// expected-note @below {{n}}\n\nc\n";
        let e = parse_expected(text).unwrap();
        assert_eq!(e.len(), 3);
        assert_eq!(e[0].line, Some(3));
        assert_eq!(e[0].message, "bad thing");
        assert_eq!(e[1].severity, Severity::Warning);
        assert_eq!(e[1].line, Some(3));
        assert_eq!(e[2].line, Some(6));
    }

    #[test]
    fn bad_annotations_are_errors() {
        assert!(parse_expected("// expected-error @+x {{m}}").is_err());
        assert!(parse_expected("// expected-error message").is_err());
        assert!(parse_expected("// expected-error {{never closed").is_err());
    }

    #[test]
    fn matching() {
        let mut ctx = Context::new();
        let loc = ctx.file_loc("t.mlir", 3, 1);
        let e = parse_expected(
            "\n// expected-error @+1 {{op foo}}\nx\n// expected-error @unknown {{gone}}",
        )
        .unwrap();
        let d = vec![Diagnostic::error(loc, "'a.b' op foo failed")];
        let p = check_expected(&ctx, "t.mlir", &e, &d);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].1.contains("gone"));
    }

    #[test]
    fn regex_messages() {
        let e = Expected {
            severity: Severity::Error,
            line: None,
            message: "operand #{{[0-9]+}} must be".into(),
            is_regex: true,
            annotation_line: 1,
            annotation_col: 1,
            count: 1,
        };
        assert!(message_matches(&e, "'x' op operand #12 must be i32"));
        assert!(!message_matches(&e, "'x' op operand #a must be"));
    }
}
