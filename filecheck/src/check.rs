//! Reading the check file into directives, and matching them against the input.
//!
//! The structure follows LLVM's `FileCheck.cpp` closely so that the same inputs produce the same
//! verdicts: `CHECK-LABEL` splits the input into blocks first, `CHECK-DAG` groups match
//! out of order without overlapping, `CHECK-NOT` applies to the region skipped before the next
//! positive match, and `-NEXT`/`-SAME`/`-EMPTY` constrain the newlines between two matches.

use std::rc::Rc;

use crate::pattern::{
    CheckKind, CheckTy, Context, Match, MatchResult, ParseError, ParseOpts, PatDiag, Pattern,
};
use crate::source::{render, BufId, Buffer, Kind, Loc, SourceSet};
use crate::Request;

/// How a diagnostic relates to a match, for the input dump.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchTy {
    /// A positive directive matched.
    FoundAndExpected,
    /// A negative directive matched.
    FoundButExcluded,
    /// A `-NEXT`/`-SAME`/`-EMPTY` matched on the wrong line.
    FoundButWrongLine,
    /// A `CHECK-DAG` match was discarded because it overlapped.
    FoundButDiscarded,
    /// A negative directive did not match.
    NoneAndExcluded,
    /// A positive directive did not match.
    NoneButExpected,
    /// A pattern could not be matched at all.
    NoneForInvalidPattern,
    /// The fuzzy "possible intended match".
    Fuzzy,
}

/// One diagnostic recorded for the input dump.
#[derive(Clone, Debug)]
pub struct Diag {
    /// The directive type.
    pub ty: CheckTy,
    /// Where the directive's pattern is.
    pub check_loc: Loc,
    /// What happened.
    pub match_ty: MatchTy,
    /// The input range (byte offsets).
    pub range: (usize, usize),
    /// An optional note.
    pub note: String,
}

/// A `CHECK-DAG` or `CHECK-NOT` waiting for the next positive directive.
#[derive(Debug, Clone)]
pub struct DagNot {
    pat: Rc<Pattern>,
    prefix: String,
}

/// A positive directive with the `DAG`/`NOT` directives that precede it.
#[derive(Debug)]
pub struct CheckString {
    pat: Pattern,
    prefix: String,
    loc: Loc,
    dag_not: Vec<DagNot>,
}

/// The outcome of reading a check file.
#[derive(Debug, PartialEq, Eq)]
pub enum ReadError {
    /// A diagnosed error; FileCheck exits with status 2.
    Invalid,
    /// LLVM exits with status 1 right away (unbalanced `]` in a variable).
    Exit1,
}

/// State shared while matching.
struct Run<'a> {
    sm: &'a SourceSet,
    ctx: &'a mut Context,
    out: &'a mut String,
    diags: Option<&'a mut Vec<Diag>>,
    req: &'a Request,
}

impl Run<'_> {
    fn print(&mut self, loc: Loc, kind: Kind, msg: &str, len: usize) {
        let range = if len > 0 {
            Some((loc.off, loc.off + len))
        } else {
            None
        };
        self.out
            .push_str(&render(self.sm.buf(loc.buf), loc.off, kind, msg, range));
    }
    fn print_input(&mut self, off: usize, kind: Kind, msg: &str, range: Option<(usize, usize)>) {
        self.out
            .push_str(&render(&self.sm.input, off, kind, msg, range));
    }
    fn diag(&mut self, ty: CheckTy, loc: Loc, m: MatchTy, range: (usize, usize), note: String) {
        if let Some(d) = self.diags.as_deref_mut() {
            d.push(Diag {
                ty,
                check_loc: loc,
                match_ty: m,
                range,
                note,
            });
        }
    }
    fn check_text(&self) -> impl Fn(Loc, usize) -> String + '_ {
        |l: Loc, n: usize| {
            let t = &self.sm.buf(l.buf).text;
            String::from_utf8_lossy(&t[l.off.min(t.len())..(l.off + n).min(t.len())]).into_owned()
        }
    }
}

fn is_part_of_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

/// The result of looking at the text after a prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    None,
    Comment,
    Check(CheckTy),
    Misspelled,
    BadNot,
    BadCount,
}

/// LLVM's `FindCheckType`: classifies the text at `buf[at..]` that starts with `prefix`; returns the
/// kind and the offset after the directive's suffix.
fn find_check_type(req: &Request, buf: &[u8], at: usize, prefix: &str) -> (Found, usize) {
    if buf.len() - at <= prefix.len() {
        return (Found::None, at);
    }
    let mut r = at + prefix.len();
    let rest = |r: usize| &buf[r..];
    if req.comment_prefixes.iter().any(|p| p == prefix) {
        if rest(r).starts_with(b":") {
            return (Found::Comment, r + 1);
        }
        return (Found::None, at);
    }
    let consume_mods = |mut r: usize, mut ty: CheckTy| -> (Found, usize) {
        if rest(r).starts_with(b":") {
            return (Found::Check(ty), r + 1);
        }
        if !rest(r).starts_with(b"{") {
            return (Found::None, at);
        }
        r += 1;
        loop {
            while r < buf.len() && buf[r].is_ascii_whitespace() {
                r += 1;
            }
            if rest(r).starts_with(b"LITERAL") {
                r += 7;
                ty.literal = true;
            } else {
                return (Found::None, at);
            }
            while r < buf.len() && buf[r].is_ascii_whitespace() {
                r += 1;
            }
            if rest(r).starts_with(b",") {
                r += 1;
            } else {
                break;
            }
        }
        if !rest(r).starts_with(b"}:") {
            return (Found::None, at);
        }
        (Found::Check(ty), r + 2)
    };
    if rest(r).starts_with(b":") {
        return (Found::Check(CheckTy::new(CheckKind::Plain)), r + 1);
    }
    if rest(r).starts_with(b"{") {
        return consume_mods(r, CheckTy::new(CheckKind::Plain));
    }
    let misspelled = if rest(r).starts_with(b"_") {
        true
    } else if rest(r).starts_with(b"-") {
        false
    } else {
        return (Found::None, at);
    };
    r += 1;
    let wrap = |res: (Found, usize)| -> (Found, usize) {
        if misspelled && res.0 != Found::None {
            (Found::Misspelled, res.1)
        } else {
            res
        }
    };
    if rest(r).starts_with(b"COUNT-") {
        r += 6;
        let start = r;
        let neg = rest(r).starts_with(b"-");
        if neg {
            r += 1;
        }
        let ds = r;
        while r < buf.len() && buf[r].is_ascii_digit() {
            r += 1;
        }
        if r == ds {
            return wrap((Found::BadCount, start));
        }
        let digits = std::str::from_utf8(&buf[ds..r]).unwrap_or("0");
        let count = digits.parse::<i64>().ok().map(|c| if neg { -c } else { c });
        match count {
            Some(c) if c > 0 && c <= i32::MAX as i64 => {
                if !(rest(r).starts_with(b":") || rest(r).starts_with(b"{")) {
                    return wrap((Found::BadCount, r));
                }
                let mut ty = CheckTy::new(CheckKind::Plain);
                ty.count = c as u32;
                return wrap(consume_mods(r, ty));
            }
            _ => return wrap((Found::BadCount, r)),
        }
    }
    for bad in [
        &b"DAG-NOT:"[..],
        b"NOT-DAG:",
        b"NEXT-NOT:",
        b"NOT-NEXT:",
        b"SAME-NOT:",
        b"NOT-SAME:",
        b"EMPTY-NOT:",
        b"NOT-EMPTY:",
    ] {
        if rest(r).starts_with(bad) {
            return wrap((Found::BadNot, r));
        }
    }
    for (name, kind) in [
        (&b"NEXT"[..], CheckKind::Next),
        (b"SAME", CheckKind::Same),
        (b"NOT", CheckKind::Not),
        (b"DAG", CheckKind::Dag),
        (b"LABEL", CheckKind::Label),
        (b"EMPTY", CheckKind::Empty),
    ] {
        if rest(r).starts_with(name) {
            return wrap(consume_mods(r + name.len(), CheckTy::new(kind)));
        }
    }
    (Found::None, at)
}

/// LLVM's `PrefixMatcher`: finds the earliest (then longest) prefix occurrence.
struct PrefixMatcher {
    prefixes: Vec<(String, Option<usize>)>,
}

impl PrefixMatcher {
    fn new(req: &Request, text: &[u8]) -> PrefixMatcher {
        let mut prefixes: Vec<(String, Option<usize>)> = req
            .check_prefixes
            .iter()
            .chain(req.comment_prefixes.iter())
            .map(|p| (p.clone(), memchr::memmem::find(text, p.as_bytes())))
            .collect();
        prefixes.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
        PrefixMatcher { prefixes }
    }

    fn next(&mut self, text: &[u8], from: usize) -> Option<(usize, String)> {
        let mut best: Option<(usize, usize)> = None;
        for (i, (p, pos)) in self.prefixes.iter_mut().enumerate() {
            if let Some(x) = *pos {
                if x < from {
                    *pos = memchr::memmem::find(&text[from..], p.as_bytes()).map(|f| f + from);
                }
            }
            if let Some(x) = *pos {
                if best.is_none_or(|(b, _)| b > x) {
                    best = Some((x, i));
                }
            }
        }
        best.map(|(x, i)| (x, self.prefixes[i].0.clone()))
    }
}

/// Canonicalizes a buffer as LLVM does: drops the `\r` of `\r\n`, and (unless `strict`) folds runs
/// of spaces and tabs into one space.
pub fn canonicalize(input: &[u8], strict: bool) -> Vec<u8> {
    let mut out = input.to_vec();
    canonicalize_in_place(&mut out, strict);
    out
}

/// [`canonicalize`] without a second buffer: the text only shrinks, so it is compacted in place.
///
/// Most bytes stay as they are (a single space between words included), so the scan jumps with
/// SIMD searches from one byte that changes to the next: a `\r`, a tab, or a space followed by a
/// space or a tab (unless `strict`); the text between is moved down in one copy, or not at all
/// while nothing has been removed yet.
pub fn canonicalize_in_place(buf: &mut Vec<u8>, strict: bool) {
    let n = buf.len();
    let mut events = Events::new(strict);
    let (mut r, mut w) = (0usize, 0usize);
    loop {
        let e = events.next(buf, r);
        if w != r {
            buf.copy_within(r..e, w);
        }
        w += e - r;
        if e == n {
            break;
        }
        if buf[e] == b'\r' {
            if e + 1 < n && buf[e + 1] == b'\n' {
                r = e + 1;
            } else {
                buf[w] = b'\r';
                w += 1;
                r = e + 1;
            }
            continue;
        }
        // A run of spaces and tabs starts at `e`.
        buf[w] = b' ';
        w += 1;
        let mut k = e + 1;
        while k < n && (buf[k] == b' ' || buf[k] == b'\t') {
            k += 1;
        }
        r = k;
    }
    buf.truncate(w);
}

/// Finds the bytes [`canonicalize_in_place`] must change, remembering the next hit of each search
/// so that every byte is searched once.
struct Events {
    strict: bool,
    /// The next `\t` or `\r` (`\r` only when strict), or the end.
    tab_cr: Option<usize>,
    /// The next two spaces, or the end.
    spaces: Option<usize>,
    double_space: memchr::memmem::Finder<'static>,
}

impl Events {
    fn new(strict: bool) -> Events {
        Events {
            strict,
            tab_cr: None,
            spaces: None,
            double_space: memchr::memmem::Finder::new(b"  "),
        }
    }

    /// The first offset at or after `from` where the text changes, or `buf.len()`.
    fn next(&mut self, buf: &[u8], from: usize) -> usize {
        let n = buf.len();
        if self.tab_cr.is_none_or(|x| x < from) {
            let hit = if self.strict {
                memchr::memchr(b'\r', &buf[from..])
            } else {
                memchr::memchr2(b'\t', b'\r', &buf[from..])
            };
            self.tab_cr = Some(hit.map_or(n, |x| x + from));
        }
        let mut e = self.tab_cr.unwrap_or(n);
        if self.strict {
            return e;
        }
        // A tab right after a space: the run starts at the space.
        if e < n && e > from && buf[e] == b'\t' && buf[e - 1] == b' ' {
            e -= 1;
        }
        if self.spaces.is_none_or(|x| x < from) {
            let hit = self.double_space.find(&buf[from..]);
            self.spaces = Some(hit.map_or(n, |x| x + from));
        }
        e.min(self.spaces.unwrap_or(n))
    }
}

/// The parsed check file.
#[derive(Debug, Default)]
pub struct Checks {
    strings: Vec<CheckString>,
}

fn print_pat(sm: &SourceSet, out: &mut String, d: &PatDiag) {
    if d.plain {
        out.push_str(&d.msg);
        out.push('\n');
        return;
    }
    out.push_str(&render(
        sm.buf(d.loc.buf),
        d.loc.off,
        Kind::Error,
        &d.msg,
        None,
    ));
    if d.logged {
        out.push('\n');
    }
}

/// Defines `-D` variables (LLVM's `defineCmdlineVariables`).
fn define_cmdline(req: &Request, sm: &mut SourceSet, ctx: &mut Context, out: &mut String) -> bool {
    if req.defines.is_empty() {
        return true;
    }
    let mut text = String::new();
    let mut idx: Vec<(usize, usize)> = Vec::new();
    for (i, d) in req.defines.iter().enumerate() {
        let pre = format!("Global define #{}: ", i + 1);
        let Some(eq) = d.find('=') else {
            idx.push((text.len(), 0));
            continue;
        };
        if d.starts_with('#') {
            text.push_str(&format!("{pre}{d} (parsed as: [["));
            let mut sub = d.clone();
            sub.replace_range(eq..eq + 1, ":");
            idx.push((text.len(), sub.len()));
            text.push_str(&format!("{sub}]])\n"));
        } else {
            text.push_str(&pre);
            idx.push((text.len(), d.len()));
            text.push_str(&format!("{d}\n"));
        }
    }
    sm.defines = Buffer::new("Global defines", text.into_bytes());
    let t = sm.defines.text.clone();
    let mut ok = true;
    for (a, n) in idx {
        let def = &t[a..a + n];
        if def.is_empty() {
            print_pat(
                sm,
                out,
                &PatDiag {
                    loc: Loc::new(BufId::Defines, a),
                    len: 0,
                    msg: "missing equal sign in global definition".into(),
                    logged: true,
                    plain: false,
                },
            );
            ok = false;
            continue;
        }
        if def[0] == b'#' {
            match crate::pattern::parse_cmdline_numeric(ctx, &t, a + 1, a + n) {
                Ok(()) => {}
                Err(ds) => {
                    for d in ds {
                        print_pat(sm, out, &d);
                    }
                    ok = false;
                }
            }
        } else {
            let eq = memchr::memchr(b'=', def).unwrap_or(def.len());
            let value = def.get(eq + 1..).unwrap_or(&[]).to_vec();
            let name_s = match crate::pattern::parse_define_name(&t, a, a + eq) {
                Ok(n) => n,
                Err(d) => {
                    print_pat(sm, out, &d);
                    ok = false;
                    continue;
                }
            };
            let name = name_s.as_bytes();
            if ctx.num_table.contains_key(&name_s) {
                print_pat(
                    sm,
                    out,
                    &PatDiag {
                        loc: Loc::new(BufId::Defines, a),
                        len: name.len(),
                        msg: format!("numeric variable with name '{name_s}' already exists"),
                        logged: true,
                        plain: false,
                    },
                );
                ok = false;
                continue;
            }
            ctx.strings.entry(name_s.clone()).or_insert((value, None));
            ctx.defined_strings.insert(name_s);
        }
    }
    ok
}

impl Checks {
    /// LLVM's `readCheckFile`. Diagnostics go to `out`.
    pub fn read(
        req: &Request,
        sm: &mut SourceSet,
        ctx: &mut Context,
        out: &mut String,
    ) -> Result<Checks, ReadError> {
        if !define_cmdline(req, sm, ctx, out) {
            return Err(ReadError::Invalid);
        }
        ctx.create_line_var();
        let opts = ParseOpts {
            match_full_lines: req.match_full_lines,
            strict_whitespace: req.strict_whitespace,
            ignore_case: req.ignore_case,
        };
        let mut implicit: Vec<DagNot> = Vec::new();
        for (i, pat) in req.implicit_check_not.iter().enumerate() {
            let pre = "-implicit-check-not='";
            let text = format!("{pre}{pat}'");
            sm.cmdline
                .push(Buffer::new("command line", text.clone().into_bytes()));
            let t = text.into_bytes();
            let ty = CheckTy::new(CheckKind::Not);
            match Pattern::parse(
                ctx,
                ty,
                BufId::CmdLine(i),
                &t,
                pre.len(),
                pre.len() + pat.len(),
                None,
                "IMPLICIT-CHECK",
                opts,
            ) {
                Ok(p) => implicit.push(DagNot {
                    pat: Rc::new(p),
                    prefix: "IMPLICIT-CHECK".into(),
                }),
                Err(ParseError::Diag(d)) => {
                    // LLVM prints the diagnostic but goes on without this pattern's pieces.
                    print_pat(sm, out, &d);
                }
                Err(ParseError::Exit(d)) => {
                    print_pat(sm, out, &d);
                    return Err(ReadError::Exit1);
                }
            }
        }
        let text = sm.check.text.clone();
        let mut dag_not = implicit.clone();
        let mut strings: Vec<CheckString> = Vec::new();
        let mut line = 1usize;
        let mut matcher = PrefixMatcher::new(req, &text);
        let mut not_found: std::collections::BTreeSet<String> =
            req.check_prefixes.iter().cloned().collect();
        let distinct = not_found.len();
        let mut pos = 0usize;
        let mut counted = 0usize;
        loop {
            // FindFirstMatchingPrefix.
            let mut found = None;
            while pos < text.len() {
                let Some((at, prefix)) = matcher.next(&text, pos) else {
                    break;
                };
                let skipped_ok = at == pos || !is_part_of_word(text[at - 1]);
                if skipped_ok {
                    let (ty, after) = find_check_type(req, &text, at, &prefix);
                    if ty != Found::None {
                        found = Some((at, prefix, ty, after));
                        break;
                    }
                }
                let mut e = at + prefix.len();
                while e < text.len() && is_part_of_word(text[e]) {
                    e += 1;
                }
                pos = e;
            }
            let Some((at, prefix, ty, after)) = found else {
                break;
            };
            line += memchr::memchr_iter(b'\n', &text[counted..at]).count();
            counted = at;
            if ty != Found::Comment {
                not_found.remove(&prefix);
            }
            let prefix_loc = Loc::new(BufId::Check, at);
            let mut p = after;
            match ty {
                Found::Misspelled => {
                    let dir = String::from_utf8_lossy(&text[at..after]).into_owned();
                    out.push_str(&render(
                        &sm.check,
                        at,
                        Kind::Error,
                        &format!("misspelled directive '{dir}'"),
                        None,
                    ));
                    return Err(ReadError::Invalid);
                }
                Found::BadNot => {
                    out.push_str(&render(
                        &sm.check,
                        after,
                        Kind::Error,
                        &format!("unsupported -NOT combo on prefix '{prefix}'"),
                        None,
                    ));
                    return Err(ReadError::Invalid);
                }
                Found::BadCount => {
                    out.push_str(&render(
                        &sm.check,
                        after,
                        Kind::Error,
                        &format!("invalid count in -COUNT specification on prefix '{prefix}'"),
                        None,
                    ));
                    return Err(ReadError::Invalid);
                }
                _ => {}
            }
            if !(req.strict_whitespace && req.match_full_lines) {
                while p < text.len() && (text[p] == b' ' || text[p] == b'\t') {
                    p += 1;
                }
            }
            let eol = text[p..]
                .iter()
                .position(|&c| c == b'\n' || c == b'\r')
                .map_or(text.len(), |x| x + p);
            let pat_loc = Loc::new(BufId::Check, p);
            pos = eol;
            let Found::Check(cty) = ty else { continue };
            let pat = match Pattern::parse(
                ctx,
                cty,
                BufId::Check,
                &text,
                p,
                eol,
                Some(line),
                &prefix,
                opts,
            ) {
                Ok(x) => x,
                Err(ParseError::Diag(d)) => {
                    print_pat(sm, out, &d);
                    return Err(ReadError::Invalid);
                }
                Err(ParseError::Exit(d)) => {
                    print_pat(sm, out, &d);
                    return Err(ReadError::Exit1);
                }
            };
            if cty.kind == CheckKind::Label && pat.has_variable() {
                let m = format!("found '{prefix}-LABEL:' with variable definition or use");
                out.push_str(&render(&sm.check, prefix_loc.off, Kind::Error, &m, None));
                return Err(ReadError::Invalid);
            }
            if matches!(
                cty.kind,
                CheckKind::Next | CheckKind::Same | CheckKind::Empty
            ) && strings.is_empty()
            {
                let t = match cty.kind {
                    CheckKind::Next => "NEXT",
                    CheckKind::Empty => "EMPTY",
                    _ => "SAME",
                };
                let m = format!("found '{prefix}-{t}' without previous '{prefix}: line");
                out.push_str(&render(&sm.check, prefix_loc.off, Kind::Error, &m, None));
                return Err(ReadError::Invalid);
            }
            if matches!(cty.kind, CheckKind::Dag | CheckKind::Not) {
                dag_not.push(DagNot {
                    pat: Rc::new(pat),
                    prefix,
                });
                continue;
            }
            strings.push(CheckString {
                pat,
                prefix,
                loc: pat_loc,
                dag_not: std::mem::replace(&mut dag_not, implicit.clone()),
            });
        }
        let none_found = not_found.len() == distinct;
        let unused = !req.allow_unused_prefixes && !not_found.is_empty();
        if (none_found || unused) && (implicit.is_empty() || !req.is_default_check_prefix) {
            let list: Vec<String> = not_found.iter().map(|p| format!("'{p}:'")).collect();
            out.push_str(&format!(
                "error: no check strings found with prefix{}{}\n",
                if not_found.len() > 1 { "es " } else { " " },
                list.join(", ")
            ));
            return Err(ReadError::Invalid);
        }
        if !dag_not.is_empty() {
            line += memchr::memchr_iter(b'\n', &text[counted..]).count();
            let loc = Loc::new(BufId::Check, text.len());
            strings.push(CheckString {
                pat: Pattern::eof(loc, line + 1),
                prefix: req.check_prefixes[0].clone(),
                loc,
                dag_not,
            });
        }
        Ok(Checks { strings })
    }

    /// LLVM's `checkInput`: returns whether every directive was satisfied.
    pub fn check_input(
        &self,
        req: &Request,
        sm: &SourceSet,
        ctx: &mut Context,
        out: &mut String,
        diags: Option<&mut Vec<Diag>>,
    ) -> bool {
        let mut run = Run {
            sm,
            ctx,
            out,
            diags,
            req,
        };
        let n = sm.input.text.len();
        let mut buffer = (0usize, n);
        let mut failed = false;
        let (mut i, mut j) = (0usize, 0usize);
        let e = self.strings.len();
        loop {
            let region;
            if j == e {
                region = buffer;
            } else {
                let label = &self.strings[j];
                if label.pat.ty.kind != CheckKind::Label {
                    j += 1;
                    continue;
                }
                let Some((pos, len)) = label.check(&mut run, buffer, true) else {
                    return false;
                };
                region = (buffer.0, buffer.0 + pos + len);
                buffer = (buffer.0 + pos + len, buffer.1);
                j += 1;
            }
            if i != 0 && req.enable_var_scope {
                run.ctx.clear_local_vars();
            }
            let mut region = region;
            while i != j {
                let cs = &self.strings[i];
                match cs.check(&mut run, region, false) {
                    None => {
                        failed = true;
                        i = j;
                        break;
                    }
                    Some((pos, len)) => region = (region.0 + pos + len, region.1),
                }
                i += 1;
            }
            if j == e {
                break;
            }
        }
        !failed
    }
}

fn count_newlines(buf: &[u8]) -> (usize, Option<usize>) {
    let mut n = 0;
    let mut first = None;
    let mut i = 0;
    while i < buf.len() {
        let Some(x) = buf[i..].iter().position(|&c| c == b'\n' || c == b'\r') else {
            break;
        };
        let mut k = i + x;
        n += 1;
        if k + 1 < buf.len() && (buf[k + 1] == b'\n' || buf[k + 1] == b'\r') && buf[k] != buf[k + 1]
        {
            k += 1;
        }
        k += 1;
        if n == 1 {
            first = Some(k);
        }
        i = k;
    }
    (n, first)
}

impl CheckString {
    /// LLVM's `FileCheckString::Check`: returns the match position (relative to `buf`) and length.
    fn check(
        &self,
        run: &mut Run,
        buf: (usize, usize),
        label_scan: bool,
    ) -> Option<(usize, usize)> {
        let mut last_pos = 0;
        let mut not_strings: Vec<&DagNot> = Vec::new();
        if !label_scan {
            last_pos = self.check_dag(run, buf, &mut not_strings)?;
        }
        let mut last_end = last_pos;
        let mut first_pos = 0;
        for i in 1..=self.pat.count() {
            let mb = (buf.0 + last_end, buf.1);
            let res = self
                .pat
                .match_in(run.ctx, &run.sm.input.text[mb.0..mb.1], mb.0);
            let m = match res {
                MatchResult::Found(m) => {
                    if print_match(run, true, &self.prefix, self.loc, &self.pat, i, mb, m) {
                        return None;
                    }
                    m
                }
                MatchResult::NotFound => {
                    print_no_match(
                        run,
                        true,
                        &self.prefix,
                        self.loc,
                        &self.pat,
                        i,
                        mb,
                        Vec::new(),
                    );
                    return None;
                }
                MatchResult::Error(errs) => {
                    print_no_match(run, true, &self.prefix, self.loc, &self.pat, i, mb, errs);
                    return None;
                }
            };
            if i == 1 {
                first_pos = last_pos + m.pos;
            }
            last_end += m.pos + m.len;
        }
        let match_len = last_end - first_pos;
        if !label_scan {
            let match_pos = first_pos - last_pos;
            let skipped = (buf.0 + last_pos, buf.0 + last_pos + match_pos);
            let mrange = (buf.0 + first_pos, buf.0 + first_pos + match_len);
            if self.check_next(run, skipped) || self.check_same(run, skipped) {
                wrong_line(run, &self.pat, self.loc, mrange);
                return None;
            }
            if check_not(run, skipped, &not_strings) {
                return None;
            }
        }
        Some((first_pos, match_len))
    }

    fn check_next(&self, run: &mut Run, skipped: (usize, usize)) -> bool {
        let k = self.pat.ty.kind;
        if k != CheckKind::Next && k != CheckKind::Empty {
            return false;
        }
        let name = format!(
            "{}{}",
            self.prefix,
            if k == CheckKind::Empty {
                "-EMPTY"
            } else {
                "-NEXT"
            }
        );
        let (n, first) = count_newlines(&run.sm.input.text[skipped.0..skipped.1]);
        if n == 0 {
            run.print(
                self.loc,
                Kind::Error,
                &format!("{name}: is on the same line as previous match"),
                0,
            );
            run.print_input(skipped.1, Kind::Note, "'next' match was here", None);
            run.print_input(skipped.0, Kind::Note, "previous match ended here", None);
            return true;
        }
        if n != 1 {
            run.print(
                self.loc,
                Kind::Error,
                &format!("{name}: is not on the line after the previous match"),
                0,
            );
            run.print_input(skipped.1, Kind::Note, "'next' match was here", None);
            run.print_input(skipped.0, Kind::Note, "previous match ended here", None);
            let f = skipped.0 + first.unwrap_or(0);
            run.print_input(
                f,
                Kind::Note,
                "non-matching line after previous match is here",
                None,
            );
            return true;
        }
        false
    }

    fn check_same(&self, run: &mut Run, skipped: (usize, usize)) -> bool {
        if self.pat.ty.kind != CheckKind::Same {
            return false;
        }
        let (n, _) = count_newlines(&run.sm.input.text[skipped.0..skipped.1]);
        if n != 0 {
            run.print(
                self.loc,
                Kind::Error,
                &format!(
                    "{}-SAME: is not on the same line as the previous match",
                    self.prefix
                ),
                0,
            );
            run.print_input(skipped.1, Kind::Note, "'next' match was here", None);
            run.print_input(skipped.0, Kind::Note, "previous match ended here", None);
            return true;
        }
        false
    }

    /// LLVM's `CheckDag`: returns the position (relative to `buf`) after the last DAG group.
    fn check_dag<'s>(
        &'s self,
        run: &mut Run,
        buf: (usize, usize),
        not_strings: &mut Vec<&'s DagNot>,
    ) -> Option<usize> {
        if self.dag_not.is_empty() {
            return Some(0);
        }
        let mut start = 0usize;
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        for (k, dn) in self.dag_not.iter().enumerate() {
            let pat = &dn.pat;
            if pat.ty.kind == CheckKind::Not {
                not_strings.push(dn);
                continue;
            }
            let mut match_pos = start;
            let mut match_len;
            let mut mi = 0usize;
            loop {
                let mb = (buf.0 + match_pos, buf.1);
                let res = pat.match_in(run.ctx, &run.sm.input.text[mb.0..mb.1], mb.0);
                let m = match res {
                    MatchResult::Found(m) => {
                        if run.req.verbose_verbose {
                            print_match(run, true, &dn.prefix, pat.loc, pat, 1, mb, m);
                        }
                        m
                    }
                    MatchResult::NotFound => {
                        print_no_match(run, true, &dn.prefix, pat.loc, pat, 1, mb, Vec::new());
                        return None;
                    }
                    MatchResult::Error(errs) => {
                        print_no_match(run, true, &dn.prefix, pat.loc, pat, 1, mb, errs);
                        return None;
                    }
                };
                match_len = m.len;
                match_pos += m.pos;
                let mm = (match_pos, match_pos + match_len);
                if run.req.allow_deprecated_dag_overlap {
                    if ranges.is_empty() {
                        ranges.push(mm);
                    } else {
                        ranges[0].0 = ranges[0].0.min(mm.0);
                        ranges[0].1 = ranges[0].1.max(mm.1);
                    }
                    break;
                }
                let mut overlap = false;
                while mi < ranges.len() {
                    if mm.0 < ranges[mi].1 {
                        overlap = ranges[mi].0 < mm.1;
                        break;
                    }
                    mi += 1;
                }
                if !overlap {
                    ranges.insert(mi, mm);
                    break;
                }
                if run.req.verbose_verbose {
                    let r = (buf.0 + mm.0, buf.0 + mm.1);
                    run.diag(
                        pat.ty,
                        pat.loc,
                        MatchTy::FoundButDiscarded,
                        r,
                        String::new(),
                    );
                }
                match_pos = ranges[mi].1;
                mi += 1;
            }
            if !run.req.verbose_verbose {
                let m = Match {
                    pos: match_pos,
                    len: match_len,
                };
                print_match(run, true, &dn.prefix, pat.loc, pat, 1, buf, m);
            }
            let last =
                k + 1 == self.dag_not.len() || self.dag_not[k + 1].pat.ty.kind == CheckKind::Not;
            if last {
                if !not_strings.is_empty() {
                    let skipped = (buf.0 + start, buf.0 + ranges[0].0);
                    if check_not(run, skipped, not_strings) {
                        return None;
                    }
                    not_strings.clear();
                }
                start = ranges[ranges.len() - 1].1;
                ranges.clear();
            }
        }
        Some(start)
    }
}

fn wrong_line(run: &mut Run, pat: &Pattern, loc: Loc, range: (usize, usize)) {
    if run.req.verbose {
        if let Some(d) = run.diags.as_deref_mut() {
            for x in d.iter_mut().rev() {
                if x.check_loc != loc {
                    break;
                }
                x.match_ty = MatchTy::FoundButWrongLine;
            }
        }
    } else {
        run.diag(
            pat.ty,
            loc,
            MatchTy::FoundButWrongLine,
            range,
            String::new(),
        );
    }
}

fn check_not(run: &mut Run, region: (usize, usize), nots: &[&DagNot]) -> bool {
    let mut fail = false;
    for dn in nots {
        let res = dn
            .pat
            .match_in(run.ctx, &run.sm.input.text[region.0..region.1], region.0);
        let err = match res {
            MatchResult::Found(m) => {
                print_match(run, false, &dn.prefix, dn.pat.loc, &dn.pat, 1, region, m)
            }
            MatchResult::NotFound => print_no_match(
                run,
                false,
                &dn.prefix,
                dn.pat.loc,
                &dn.pat,
                1,
                region,
                Vec::new(),
            ),
            MatchResult::Error(e) => {
                print_no_match(run, false, &dn.prefix, dn.pat.loc, &dn.pat, 1, region, e)
            }
        };
        fail |= err;
    }
    fail
}

/// Reports a match; returns whether it is an error.
#[allow(clippy::too_many_arguments)]
fn print_match(
    run: &mut Run,
    expected: bool,
    prefix: &str,
    loc: Loc,
    pat: &Pattern,
    count: u32,
    buf: (usize, usize),
    m: Match,
) -> bool {
    let has_error = !expected;
    let mut print_diag = true;
    if !has_error {
        if !run.req.verbose {
            return false;
        }
        if !run.req.verbose_verbose && pat.ty.kind == CheckKind::Eof {
            return false;
        }
        print_diag = run.diags.is_none();
    }
    let mty = if expected {
        MatchTy::FoundAndExpected
    } else {
        MatchTy::FoundButExcluded
    };
    let range = (buf.0 + m.pos, buf.0 + m.pos + m.len);
    let notes = pat.substitution_notes(run.ctx, &run.check_text());
    let caps = pat.captures(run.ctx);
    if run.diags.is_some() {
        run.diag(pat.ty, loc, mty, range, String::new());
        for n in &notes {
            run.diag(pat.ty, loc, mty, (range.0, range.0), n.clone());
        }
        for (name, r) in &caps {
            run.diag(pat.ty, loc, mty, *r, format!("captured var \"{name}\""));
        }
    }
    if !print_diag {
        return has_error;
    }
    let mut msg = format!(
        "{}: {} string found in input",
        pat.ty.description(prefix),
        if expected { "expected" } else { "excluded" }
    );
    if pat.count() > 1 {
        msg.push_str(&format!(" ({} out of {})", count, pat.count()));
    }
    run.print(
        loc,
        if expected { Kind::Remark } else { Kind::Error },
        &msg,
        0,
    );
    run.print_input(range.0, Kind::Note, "found here", Some(range));
    for n in &notes {
        run.print_input(range.0, Kind::Note, n, None);
    }
    for (name, r) in &caps {
        run.print_input(
            r.0,
            Kind::Note,
            &format!("captured var \"{name}\""),
            Some(*r),
        );
    }
    has_error
}

/// Reports a failed match; returns whether it is an error.
#[allow(clippy::too_many_arguments)]
fn print_no_match(
    run: &mut Run,
    expected: bool,
    prefix: &str,
    loc: Loc,
    pat: &Pattern,
    count: u32,
    buf: (usize, usize),
    errs: Vec<PatDiag>,
) -> bool {
    let mut has_error = expected;
    let mut pat_error = false;
    let mut mty = if expected {
        MatchTy::NoneButExpected
    } else {
        MatchTy::NoneAndExcluded
    };
    for e in &errs {
        has_error = true;
        pat_error = true;
        mty = MatchTy::NoneForInvalidPattern;
        run.print(e.loc, Kind::Error, &e.msg, 0);
    }
    let mut print_diag = true;
    if !has_error {
        if !run.req.verbose_verbose {
            return false;
        }
        print_diag = run.diags.is_none();
    }
    let notes = pat.substitution_notes(run.ctx, &run.check_text());
    if run.diags.is_some() {
        run.diag(pat.ty, loc, mty, buf, String::new());
        for e in &errs {
            run.diag(pat.ty, loc, mty, (buf.0, buf.0), e.msg.clone());
        }
        for n in &notes {
            run.diag(pat.ty, loc, mty, (buf.0, buf.0), n.clone());
        }
    }
    if !print_diag {
        return has_error;
    }
    if !pat_error {
        let mut msg = format!(
            "{}: {} string not found in input",
            pat.ty.description(prefix),
            if expected { "expected" } else { "excluded" }
        );
        if pat.count() > 1 {
            msg.push_str(&format!(" ({} out of {})", count, pat.count()));
        }
        run.print(
            loc,
            if expected { Kind::Error } else { Kind::Remark },
            &msg,
            0,
        );
        run.print_input(buf.0, Kind::Note, "scanning from here", None);
    }
    for n in &notes {
        run.print_input(buf.0, Kind::Note, n, None);
    }
    if expected {
        fuzzy(run, pat, loc, buf);
    }
    has_error
}

fn fuzzy(run: &mut Run, pat: &Pattern, loc: Loc, buf: (usize, usize)) {
    let text = &run.sm.input.text[buf.0..buf.1];
    let lim = text.len().min(4096);
    if 4096usize * 2048 < lim * pat.fuzzy_size() {
        return;
    }
    let mut lines = 0usize;
    let mut best: Option<usize> = None;
    let mut best_q = 0f64;
    for i in 0..lim {
        if text[i] == b'\n' {
            lines += 1;
        }
        if text[i] == b' ' || text[i] == b'\t' {
            continue;
        }
        let d = pat.match_distance(&text[i..]);
        let q = d as f64 + lines as f64 / 100.0;
        if best.is_none() || q < best_q {
            best = Some(i);
            best_q = q;
        }
    }
    if let Some(b) = best {
        if b != 0 && best_q < 50.0 {
            run.diag(
                pat.ty,
                loc,
                MatchTy::Fuzzy,
                (buf.0 + b, buf.0 + b),
                String::new(),
            );
            run.print_input(buf.0 + b, Kind::Note, "possible intended match here", None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LLVM's `CanonicalizeFile` loop, byte by byte.
    fn canonicalize_reference(input: &[u8], strict: bool) -> Vec<u8> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < input.len() {
            let c = input[i];
            if c == b'\r' && input.get(i + 1) == Some(&b'\n') {
                i += 1;
                continue;
            }
            if strict || (c != b' ' && c != b'\t') {
                out.push(c);
                i += 1;
                continue;
            }
            out.push(b' ');
            while matches!(input.get(i + 1), Some(b' ') | Some(b'\t')) {
                i += 1;
            }
            i += 1;
        }
        out
    }

    #[test]
    fn canonicalizes_whitespace() {
        assert_eq!(canonicalize(b"a \t b\r\nc\t", false), b"a b\nc ");
        assert_eq!(canonicalize(b"a \t b\r\n", true), b"a \t b\n");
        for (input, strict) in [
            (&b""[..], false),
            (b" ", false),
            (b"\t", false),
            (b"  ", false),
            (b"\t\t x", false),
            (b"x \t", false),
            (b"x\t ", false),
            (b"a b c", false),
            (b"a\tb", false),
            (b" \r\n", false),
            (b"\r", false),
            (b"\r\r\n", false),
            (b"a\r\n\r\nb\r", true),
            (b"  lead\n\t\ttabs  \t mixed \r\n", false),
            (b"  lead\n\t\ttabs  \t mixed \r\n", true),
        ] {
            assert_eq!(
                canonicalize(input, strict),
                canonicalize_reference(input, strict),
                "{:?} strict={strict}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn canonicalizes_random_text_like_llvm() {
        // A fixed xorshift sequence over an alphabet rich in whitespace and `\r`.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let alphabet = b"  \t\r\nab";
        for len in 0..200usize {
            for _ in 0..20 {
                let text: Vec<u8> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        alphabet[(x % alphabet.len() as u64) as usize]
                    })
                    .collect();
                for strict in [false, true] {
                    let mut got = text.clone();
                    canonicalize_in_place(&mut got, strict);
                    assert_eq!(got, canonicalize_reference(&text, strict), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn counts_newlines_like_llvm() {
        assert_eq!(count_newlines(b"a\r\nb\n"), (2, Some(3)));
        assert_eq!(count_newlines(b"abc"), (0, None));
    }
}
