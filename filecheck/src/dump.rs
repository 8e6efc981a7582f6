//! The annotated input dump (`--dump-input`), in the layout LLVM 22's FileCheck prints.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::check::{Diag, MatchTy};
use crate::source::{BufId, Loc, SourceSet};

/// Which input lines the dump shows (`--dump-input-filter`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Filter {
    /// Lines with the start of an error annotation.
    Error,
    /// Lines with the start of any annotation.
    Annotation,
    /// Lines with any annotation.
    AnnotationFull,
    /// All lines.
    All,
}

struct Marker {
    lead: char,
    note: String,
    filters_as_error: bool,
}

fn marker(m: MatchTy) -> Marker {
    let (lead, note, err) = match m {
        MatchTy::FoundAndExpected => ('^', "", false),
        MatchTy::FoundButExcluded => ('!', "error: no match expected", true),
        MatchTy::FoundButWrongLine => ('!', "error: match on wrong line", true),
        MatchTy::FoundButDiscarded => ('!', "discard: overlaps earlier match", false),
        MatchTy::NoneAndExcluded => ('X', "", false),
        MatchTy::NoneButExpected => ('X', "error: no match found", true),
        MatchTy::NoneForInvalidPattern => ('X', "error: match failed for invalid pattern", true),
        MatchTy::Fuzzy => ('?', "possible intended match", true),
    };
    Marker {
        lead,
        note: note.into(),
        filters_as_error: err,
    }
}

struct Annotation {
    index: usize,
    label: String,
    first_line: bool,
    line: usize,
    start_col: usize,
    end_col: usize,
    lead: char,
    note: String,
    filters_as_error: bool,
}

/// Renders the dump of `sm.input` with `diags`.
pub fn render(sm: &SourceSet, diags: &[Diag], filter: Filter, context: usize) -> String {
    let input = &sm.input;
    let mut count: HashMap<Loc, usize> = HashMap::new();
    for d in diags {
        *count.entry(d.check_loc).or_default() += 1;
    }
    let mut seen: HashMap<Loc, usize> = HashMap::new();
    let mut anns: Vec<Annotation> = Vec::new();
    let mut label_width = 0;
    for (index, d) in diags.iter().enumerate() {
        let mut label = format!("{}:", d.ty.abbrev());
        match d.check_loc.buf {
            BufId::CmdLine(i) => label.push_str(&format!("imp{}", i + 1)),
            b => label.push_str(&sm.buf(b).line_col(d.check_loc.off).0.to_string()),
        }
        if count[&d.check_loc] > 1 {
            let n = seen.entry(d.check_loc).or_default();
            label.push_str(&format!("'{n}"));
            *n += 1;
        }
        label_width = label_width.max(label.len());
        let mut m = marker(d.match_ty);
        if !d.note.is_empty() {
            m.note = d.note.clone();
            if d.range.0 == d.range.1 {
                m.lead = ' ';
            }
        }
        let (sl, sc) = input.line_col(d.range.0);
        let (el, ec) = input.line_col(d.range.1);
        if sl == el {
            anns.push(Annotation {
                index,
                label,
                first_line: true,
                line: sl,
                start_col: sc,
                end_col: (sc + 1).max(ec),
                lead: m.lead,
                note: m.note,
                filters_as_error: m.filters_as_error,
            });
        } else {
            anns.push(Annotation {
                index,
                label: label.clone(),
                first_line: true,
                line: sl,
                start_col: sc,
                end_col: usize::MAX,
                lead: m.lead,
                note: m.note,
                filters_as_error: m.filters_as_error,
            });
            for l in sl + 1..=el {
                if ec == 1 && l == el {
                    break;
                }
                anns.push(Annotation {
                    index,
                    label: label.clone(),
                    first_line: false,
                    line: l,
                    start_col: 1,
                    end_col: if l != el { usize::MAX } else { ec },
                    lead: '~',
                    note: String::new(),
                    filters_as_error: m.filters_as_error,
                });
            }
        }
    }
    anns.sort_by_key(|a| (a.line, a.index));

    let text = &input.text;
    let mut line_count = memchr::memchr_iter(b'\n', text).count();
    if text.last() != Some(&b'\n') {
        line_count += 1;
    }
    let width = label_width.max(line_count.to_string().len()) + 3;

    let mut out = String::from("Input was:\n<<<<<<\n");
    let mut elided = String::new();
    let mut prev_in_filter = 0usize;
    let mut next_in_filter = 0usize;
    let mut ai = 0usize;
    let mut p = 0usize;
    let mut line = 1usize;
    while p < text.len() || ai < anns.len() {
        if next_in_filter < line {
            next_in_filter = find_in_filter(filter, line, &anns[ai..]);
        }
        if next_in_filter == line {
            prev_in_filter = line;
        }
        let elide = (prev_in_filter == 0 || prev_in_filter + context < line)
            && (next_in_filter == usize::MAX || line + context < next_in_filter);
        let mut chunk = String::new();
        let _ = write!(chunk, "{:>width$}: ", line, width = width);
        let start = p;
        let end = memchr::memchr(b'\n', &text[p..]).map_or(text.len(), |e| p + e);
        // The line's bytes as they are (LLVM writes them raw; invalid UTF-8 becomes U+FFFD).
        chunk.push_str(&String::from_utf8_lossy(&text[p..end]));
        p = end;
        if p < text.len() {
            p += 1;
            chunk.push(' ');
        }
        chunk.push('\n');
        let line_width = p - start;
        while ai < anns.len() && anns[ai].line == line {
            let a = &anns[ai];
            let _ = write!(chunk, "{:<width$}  ", a.label, width = width);
            let mut col = 1;
            while col < a.start_col {
                chunk.push(' ');
                col += 1;
            }
            chunk.push(a.lead);
            col += 1;
            while col < a.end_col && col <= line_width {
                chunk.push('~');
                col += 1;
            }
            if !a.note.is_empty() {
                while col <= line_width {
                    chunk.push(' ');
                    col += 1;
                }
                chunk.push(' ');
                chunk.push_str(&a.note);
            }
            chunk.push('\n');
            ai += 1;
        }
        if elide {
            elided.push_str(&chunk);
        } else {
            flush_elided(&mut out, &mut elided, width);
            out.push_str(&chunk);
        }
        line += 1;
    }
    flush_elided(&mut out, &mut elided, width);
    out.push_str(">>>>>>\n");
    out
}

fn flush_elided(out: &mut String, elided: &mut String, width: usize) {
    if elided.is_empty() {
        return;
    }
    if elided.matches('\n').count() > 3 {
        for _ in 0..3 {
            let _ = writeln!(out, "{:>width$}", ".", width = width);
        }
    } else {
        out.push_str(elided);
    }
    elided.clear();
}

fn find_in_filter(filter: Filter, line: usize, anns: &[Annotation]) -> usize {
    if filter == Filter::All {
        return line;
    }
    for a in anns {
        match filter {
            Filter::AnnotationFull => return a.line,
            Filter::Annotation if a.first_line => return a.line,
            Filter::Error if a.first_line && a.filters_as_error => return a.line,
            _ => {}
        }
    }
    usize::MAX
}
