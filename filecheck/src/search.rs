//! The fast paths of matching: literal searches in place of regexes, and compiled regexes shared
//! between patterns.
//!
//! LLVM compiles a pattern's regex at every match attempt, and its engine first looks for the
//! longest literal every match must contain (the "must" string) and fails at once when the text
//! lacks it, so a `CHECK-NOT` that matches nothing costs one literal scan.
//! Building a Rust regex costs far more than a scan (its DFA is determinized up front), so nart
//! avoids building one where the answer does not need it:
//! - a pattern made only of literal text and substitutions (`[[VAR]]`, `[[#expr]]`) is, once its
//!   values are substituted, a literal string, and is searched as one;
//! - any other regex pattern first looks for the longest literal run every match contains (its
//!   [`Piece`]s between regex blocks, with substituted values), and does not match when the run is
//!   absent;
//! - the regexes that are built are kept by source text in a [`RegexCache`], so the same
//!   `CHECK-NOT` repeated under every `CHECK-LABEL` is compiled once.
//!
//! Each path finds exactly what the regex finds: the leftmost match of a literal is its first
//! occurrence, and a literal that every match contains cannot be absent from a text that matches.

use std::collections::HashMap;
use std::rc::Rc;

/// One element of a pattern's concatenation, for the literal fast paths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Literal text, as it must appear in the input.
    Lit(Vec<u8>),
    /// The value of the pattern's `i`-th substitution, literal once substituted.
    Subst(usize),
    /// Anything else: a regex block, a variable definition, a back-reference, an anchor.
    Regex,
}

/// Whether the pieces form a literal once substituted.
pub fn is_literal(pieces: &[Piece]) -> bool {
    !pieces.contains(&Piece::Regex)
}

/// The literal runs of `pieces`: consecutive literal pieces joined, with `values[i]` for
/// [`Piece::Subst`]`(i)`; the runs are separated by regex pieces.
pub fn literal_runs(pieces: &[Piece], values: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut runs = vec![Vec::new()];
    for p in pieces {
        match p {
            Piece::Lit(t) => runs.last_mut().map(|r| r.extend_from_slice(t)),
            Piece::Subst(i) => runs.last_mut().map(|r| r.extend_from_slice(&values[*i])),
            Piece::Regex => {
                runs.push(Vec::new());
                None
            }
        };
    }
    runs.retain(|r| !r.is_empty());
    runs
}

/// The first occurrence of `needle` in `hay`, ASCII case-insensitively when `ignore_case` (as
/// LLVM's `find_insensitive` and the regex engine's `(?i-u)`).
pub fn find_literal(hay: &[u8], needle: &[u8], ignore_case: bool) -> Option<usize> {
    if ignore_case {
        find_ignore_case(hay, needle)
    } else {
        memchr::memmem::find(hay, needle)
    }
}

fn find_ignore_case(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    let lower: Vec<u8> = needle.to_ascii_lowercase();
    let first = lower[0];
    let upper = first.to_ascii_uppercase();
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        let j = memchr::memchr2(first, upper, &hay[i..=hay.len() - needle.len()])? + i;
        if hay[j..j + needle.len()].eq_ignore_ascii_case(&lower) {
            return Some(j);
        }
        i = j + 1;
    }
    None
}

/// A compiled regex of either engine.
#[derive(Debug)]
pub enum Compiled {
    /// `regex::bytes`, for patterns without back-references.
    Bytes(regex::bytes::Regex),
    /// `fancy_regex`, for back-references.
    Fancy(Box<fancy_regex::Regex>),
    /// The engine rejected the regex (with its message).
    Invalid(String),
}

impl Compiled {
    /// Compiles `src` (Rust syntax, without flags) with multi-line anchors, and ASCII
    /// case-insensitively when `ignore_case`.
    pub fn new(src: &[u8], fancy: bool, ignore_case: bool) -> Compiled {
        let flags = if ignore_case { "(?mi" } else { "(?m" };
        if fancy {
            let s = format!("{flags}){}", String::from_utf8_lossy(src));
            match fancy_regex::Regex::new(&s) {
                Ok(r) => Compiled::Fancy(Box::new(r)),
                Err(e) => Compiled::Invalid(e.to_string()),
            }
        } else {
            let s = format!("{flags}-u){}", String::from_utf8_lossy(src));
            match regex::bytes::RegexBuilder::new(&s)
                .size_limit(1 << 28)
                .build()
            {
                Ok(r) => Compiled::Bytes(r),
                Err(e) => Compiled::Invalid(e.to_string()),
            }
        }
    }
}

/// The compiled regexes of one run, by source text and flags.
#[derive(Debug, Default)]
pub struct RegexCache {
    /// Keyed by the flags (one byte) and the source.
    map: HashMap<Vec<u8>, Rc<Compiled>>,
    /// The key being looked up, kept to look up without allocating.
    key: Vec<u8>,
}

impl RegexCache {
    /// At most this many regexes are kept (each holds its lazy DFA's cache); the cache starts
    /// over when it is full.
    const CAPACITY: usize = 256;

    /// The compiled form of `src` (see [`Compiled::new`]), built on first use.
    pub fn get(&mut self, src: &[u8], fancy: bool, ignore_case: bool) -> Rc<Compiled> {
        self.key.clear();
        self.key
            .push(u8::from(fancy) | (u8::from(ignore_case) << 1));
        self.key.extend_from_slice(src);
        if let Some(c) = self.map.get(self.key.as_slice()) {
            return c.clone();
        }
        if self.map.len() >= Self::CAPACITY {
            self.map.clear();
        }
        let c = Rc::new(Compiled::new(src, fancy, ignore_case));
        self.map.insert(self.key.clone(), c.clone());
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::canonicalize;
    use crate::pattern::{
        parse_cmdline_numeric, CheckKind, CheckTy, Context, MatchResult, ParseOpts, Pattern,
    };
    use crate::source::BufId;

    const DEFAULT: ParseOpts = ParseOpts {
        match_full_lines: false,
        strict_whitespace: false,
        ignore_case: false,
    };

    /// How a pattern fared: the match and the variables it set, or why it failed.
    fn outcome(ctx: &mut Context, p: &Pattern, input: &[u8]) -> String {
        match p.match_in(ctx, input, 100) {
            MatchResult::Found(m) => {
                // The variables this match captured.
                let mut vars: Vec<String> = ctx
                    .strings
                    .iter()
                    .filter_map(|(k, (v, r))| {
                        r.map(|r| format!(" {k}={}@{}", String::from_utf8_lossy(v), r.0))
                    })
                    .collect();
                vars.extend(ctx.nums.iter().filter_map(|n| {
                    n.matched
                        .map(|r| format!(" #{}={}@{}", n.name, n.value.unwrap_or(-1), r.0))
                }));
                vars.sort();
                format!("found {}+{}{}", m.pos, m.len, vars.concat())
            }
            MatchResult::NotFound => "not found".into(),
            MatchResult::Error(es) => {
                let msgs: Vec<&str> = es.iter().map(|e| e.msg.as_str()).collect();
                format!("error {}", msgs.join("; "))
            }
        }
    }

    /// Matches `pat` against `input` (both canonicalized as the run does) with the fast paths on
    /// and off, requires the same outcome, and returns it.
    /// `vars` defines string variables (`V=value`) and numeric ones (`#N=41`) first.
    fn both_ways(
        kind: CheckKind,
        vars: &[&str],
        pat: &str,
        input: &str,
        opts: ParseOpts,
    ) -> String {
        let run = |fast: bool| {
            let mut ctx = Context::default();
            ctx.create_line_var();
            for v in vars {
                let (name, value) = v.split_once('=').unwrap();
                if let Some(num) = name.strip_prefix('#') {
                    let def = format!("{num}:{value}");
                    parse_cmdline_numeric(&mut ctx, def.as_bytes(), 0, def.len()).unwrap();
                } else {
                    ctx.strings
                        .insert(name.into(), (value.as_bytes().to_vec(), None));
                }
            }
            let text = canonicalize(pat.as_bytes(), opts.strict_whitespace);
            let ty = CheckTy::new(kind);
            let parsed = Pattern::parse(
                &mut ctx,
                ty,
                BufId::Check,
                &text,
                0,
                text.len(),
                Some(7),
                "CHECK",
                opts,
            );
            let Ok(mut p) = parsed else {
                panic!("{pat:?} does not parse");
            };
            if !fast {
                p.disable_fast_path();
            }
            let input = canonicalize(input.as_bytes(), opts.strict_whitespace);
            (
                outcome(&mut ctx, &p, &input),
                p.is_literal_fast_path(),
                p.is_prefiltered(),
            )
        };
        let (fast, literal, prefiltered) = run(true);
        let (slow, _, _) = run(false);
        assert_eq!(
            fast, slow,
            "{pat:?} on {input:?} (literal path {literal}, prefilter {prefiltered})"
        );
        format!(
            "{fast}{}{}",
            if literal { " [literal]" } else { "" },
            if prefiltered { " [prefilter]" } else { "" }
        )
    }

    fn check(vars: &[&str], pat: &str, input: &str, opts: ParseOpts) -> String {
        both_ways(CheckKind::Plain, vars, pat, input, opts)
    }

    #[test]
    fn substituted_literals_match_like_the_regex() {
        let v = &["V=arg0", "E=", "M=a.b*[c]{d}$", "#N=41"];
        let t = |pat: &str, input: &str| check(v, pat, input, DEFAULT);
        assert_eq!(
            t("x %[[V]]", "y x %arg0 z"),
            "found 2+7 [literal] [prefilter]"
        );
        assert_eq!(t("x %[[V]]", "x %arg1"), "not found [literal] [prefilter]");
        assert_eq!(t("[[E]]", "abc"), "not found [literal] [prefilter]");
        assert_eq!(t("q[[E]]r", "qr"), "found 0+2 [literal] [prefilter]");
        assert_eq!(
            t("[[M]]", "a.b*[c]{d}$ aXbbb"),
            "found 0+11 [literal] [prefilter]"
        );
        assert_eq!(t("[[M]]", "aXb[c]{d}"), "not found [literal] [prefilter]");
        assert_eq!(t("v[[#N+1]]", "v41 v42"), "found 4+3 [literal] [prefilter]");
        assert_eq!(
            t("line [[#@LINE]] [[@LINE-1]]", "line 7 6"),
            "found 0+8 [literal] [prefilter]"
        );
        assert_eq!(
            t("[[U]] x", "x"),
            "error undefined variable: U [literal] [prefilter]"
        );
        // Overlapping candidates: the first occurrence wins, as the regex's leftmost match.
        assert_eq!(t("a[[V]]", "aaarg0"), "found 1+5 [literal] [prefilter]");
        assert_eq!(t("aa[[E]]a", "aaaa"), "found 0+3 [literal] [prefilter]");
    }

    #[test]
    fn prefiltered_regexes_match_like_the_regex() {
        let v = &["V=arg0", "#N=41"];
        let t = |pat: &str, input: &str| check(v, pat, input, DEFAULT);
        // Regex blocks with anchors: the literal run is required, the anchors still apply.
        assert_eq!(t("{{^}}foo", "xfoo\nfoo"), "found 5+3 [prefilter]");
        assert_eq!(t("{{^}}foo", "xfoo"), "not found [prefilter]");
        assert_eq!(t("foo{{$}}", "foox\nfoo\n"), "found 5+3 [prefilter]");
        assert_eq!(t("{{^}}bar{{$}}", "foo"), "not found [prefilter]");
        assert_eq!(t("a{{.*}}arg0", "a b arg0"), "found 0+8 [prefilter]");
        assert_eq!(t("a{{.*}}arg0", "a b\narg0"), "not found [prefilter]");
        assert_eq!(
            t("call {{a|b}}[[V]]", "call barg0"),
            "found 0+10 [prefilter]"
        );
        assert_eq!(
            t("call {{a|b}}[[V]]", "call carg0"),
            "not found [prefilter]"
        );
        assert_eq!(t("{{[0-9]+}}", "ab 12"), "found 3+2");
        // Definitions capture as before.
        assert_eq!(
            t("x [[W:[a-z]+]] y", "x ab y"),
            "found 0+6 W=ab@102 [prefilter]"
        );
        assert_eq!(t("x [[W:[a-z]+]] y", "x ab z"), "not found [prefilter]");
        assert_eq!(t("v[[#M:]] w", "v12 w"), "found 0+5 #M=12@101 [prefilter]");
        assert_eq!(
            t("v[[#M:N+1]]", "v41 v42"),
            "found 4+3 #M=42@105 [prefilter]"
        );
        assert_eq!(
            t("q [[#%x,H:]]", "q ff"),
            "found 0+4 #H=255@102 [prefilter]"
        );
        // Back-references use the fancy engine on a lossy UTF-8 copy: only ASCII runs filter.
        assert_eq!(
            t("[[X:a+]] [[X]]!", "aa a a!"),
            "found 3+4 X=a@103 [prefilter]"
        );
        assert_eq!(t("[[X:a+]] [[X]]!", "aa a aa"), "not found [prefilter]");
        assert_eq!(t("{{(b)\\1}}é", "bbé"), "found 0+4 [prefilter]");
        assert_eq!(
            t("[[X:.]]\u{fffd}[[X]]", "a\u{fffd}a"),
            "found 0+5 X=a@100 [prefilter]"
        );
        // An undefined variable is an error whether or not the run is present.
        assert_eq!(
            t("{{a}}[[U]]", "b"),
            "error undefined variable: U [prefilter]"
        );
    }

    #[test]
    fn fast_paths_keep_the_options() {
        let v = &["V=Arg0", "S=a  b"];
        let icase = ParseOpts {
            ignore_case: true,
            ..DEFAULT
        };
        let strict = ParseOpts {
            strict_whitespace: true,
            ..DEFAULT
        };
        let full = ParseOpts {
            match_full_lines: true,
            ..DEFAULT
        };
        let full_strict = ParseOpts {
            match_full_lines: true,
            strict_whitespace: true,
            ..DEFAULT
        };
        assert_eq!(
            check(v, "X %[[V]]", "y x %ARG0", icase),
            "found 2+7 [literal] [prefilter]"
        );
        assert_eq!(
            check(v, "X %[[V]]", "y x %ARG1", icase),
            "not found [literal] [prefilter]"
        );
        assert_eq!(
            check(v, "{{^}}X %[[V]]", "x %arg0", icase),
            "found 0+7 [prefilter]"
        );
        assert_eq!(
            check(v, "{{^}}X %[[V]]", "y x %arg0", icase),
            "not found [prefilter]"
        );
        assert_eq!(
            check(v, "[[X:a]]-[[X]] Z", "A-a z a-a z", icase),
            "found 6+5 X=a@106"
        );
        // Whitespace: the pattern, the input and substituted values keep their spaces when strict.
        assert_eq!(
            check(v, "p  [[S]]", "p  a  b", strict),
            "found 0+7 [literal] [prefilter]"
        );
        assert_eq!(
            check(v, "p  [[S]]", "p a b", strict),
            "not found [literal] [prefilter]"
        );
        assert_eq!(
            check(v, "p\t{{.}}", "p  q p\tq", strict),
            "found 5+3 [prefilter]"
        );
        // Values are not canonicalized (from the input they never hold two spaces; `-D` values can).
        assert_eq!(
            check(v, "p  [[S]]", "p a  b", DEFAULT),
            "not found [literal] [prefilter]"
        );
        // Full lines anchor the literal.
        assert_eq!(
            check(v, "x [[V]]", "a x Arg0\nx Arg0\n", full),
            "found 9+6 [prefilter]"
        );
        assert_eq!(
            check(v, "x [[V]]", "x Arg0 b\n", full),
            "not found [prefilter]"
        );
        assert_eq!(check(v, "x", "  x  \n", full), "found 0+3 [prefilter]");
        assert_eq!(check(v, "x", " x\n", full_strict), "not found [prefilter]");
    }

    #[test]
    fn other_kinds_keep_their_regex() {
        let empty = both_ways(CheckKind::Empty, &[], "", "a\n\nb", DEFAULT);
        assert_eq!(empty, "found 2+0");
        let not = both_ways(CheckKind::Not, &["V=x"], "[[V]] y", "x y", DEFAULT);
        assert_eq!(not, "found 0+3 [literal] [prefilter]");
        let full_not = ParseOpts {
            match_full_lines: true,
            ..DEFAULT
        };
        // `--match-full-lines` does not apply to CHECK-NOT.
        let not = both_ways(CheckKind::Not, &["V=x"], "[[V]] y", "a x y b", full_not);
        assert_eq!(not, "found 2+3 [literal] [prefilter]");
    }

    #[test]
    fn huge_regexes_skip_the_fast_paths() {
        // The Rust engine rejects this one; the error must not depend on the input.
        let t = |input: &str| check(&[], "zz{{((a{255}){255}){255}b}}", input, DEFAULT);
        let err = t("no z here");
        assert!(err.starts_with("error invalid regex"), "{err}");
        assert_eq!(t("zz"), err);
        // So does one nested deeper than the Rust parser allows.
        let deep = format!("zz{{{{{}a{}}}}}", "(".repeat(300), ")".repeat(300));
        let err = check(&[], &deep, "no z here", DEFAULT);
        assert!(err.starts_with("error invalid regex"), "{err}");
    }

    #[test]
    fn joins_literal_runs_between_regex_pieces() {
        let pieces = [
            Piece::Lit(b"a ".to_vec()),
            Piece::Subst(0),
            Piece::Lit(b" b".to_vec()),
            Piece::Regex,
            Piece::Subst(1),
            Piece::Regex,
            Piece::Regex,
        ];
        let values = [b"X".to_vec(), b"yy".to_vec()];
        assert_eq!(
            literal_runs(&pieces, &values),
            [b"a X b".to_vec(), b"yy".to_vec()]
        );
        assert!(!is_literal(&pieces));
        assert!(is_literal(&pieces[..3]));
        assert_eq!(
            literal_runs(&[Piece::Subst(0)], &[Vec::new()]),
            Vec::<Vec<u8>>::new()
        );
    }

    #[test]
    fn finds_literals_case_insensitively_in_ascii_only() {
        assert_eq!(find_literal(b"xxAbC", b"abc", true), Some(2));
        assert_eq!(find_literal(b"xxAbC", b"abc", false), None);
        assert_eq!(find_literal(b"aab", b"ab", true), Some(1));
        assert_eq!(find_literal("É".as_bytes(), "é".as_bytes(), true), None);
        assert_eq!(find_literal(b"abc", b"", true), Some(0));
        assert_eq!(find_literal(b"ab", b"abc", true), None);
    }

    #[test]
    fn shares_compiled_regexes_by_source_and_flags() {
        let mut cache = RegexCache::default();
        let a = cache.get(b"a+", false, false);
        assert!(Rc::ptr_eq(&a, &cache.get(b"a+", false, false)));
        assert!(!Rc::ptr_eq(&a, &cache.get(b"a+", false, true)));
        assert!(!Rc::ptr_eq(&a, &cache.get(b"a+", true, false)));
        assert!(matches!(
            *cache.get(b"(", false, false),
            Compiled::Invalid(_)
        ));
        // A full cache starts over.
        for i in 0..RegexCache::CAPACITY {
            cache.get(format!("x{i}").as_bytes(), false, false);
        }
        assert!(cache.map.len() <= RegexCache::CAPACITY);
        assert!(!Rc::ptr_eq(&a, &cache.get(b"a+", false, false)));
    }
}
