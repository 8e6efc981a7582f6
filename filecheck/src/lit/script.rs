//! Reading a test file's directives (`RUN:` with `\` continuations, `XFAIL:`, `REQUIRES:`,
//! `UNSUPPORTED:`) and applying lit's substitutions.

/// The directives of one test file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Directives {
    /// The `RUN:` commands, continuations joined.
    pub run: Vec<String>,
    /// `XFAIL:` expressions.
    pub xfail: Vec<String>,
    /// `REQUIRES:` expressions.
    pub requires: Vec<String>,
    /// `UNSUPPORTED:` expressions.
    pub unsupported: Vec<String>,
}

/// Parses the directives of `text`; `Err` describes a malformed file.
pub fn parse(text: &str) -> Result<Directives, String> {
    let mut d = Directives::default();
    let mut pending: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        if line.contains("END.") && line.trim_end().ends_with("END.") && pending.is_none() {
            let before = line.trim_end().trim_end_matches("END.");
            if before.trim_end().ends_with("//")
                || before.trim_end().ends_with('#')
                || before.trim_end().ends_with(';')
            {
                break;
            }
        }
        let mut found = false;
        for (kw, list) in [
            ("RUN:", 0usize),
            ("XFAIL:", 1),
            ("REQUIRES:", 2),
            ("UNSUPPORTED:", 3),
        ] {
            let Some(pos) = find_keyword(line, kw) else {
                continue;
            };
            found = true;
            let rest = line[pos + kw.len()..].trim();
            if list == 0 {
                let (body, cont) = match rest.strip_suffix('\\') {
                    Some(b) => (b.trim_end(), true),
                    None => (rest, false),
                };
                let joined = match pending.take() {
                    Some(p) => format!("{p} {body}"),
                    None => body.to_string(),
                };
                if cont {
                    pending = Some(joined);
                } else if !joined.trim().is_empty() {
                    d.run.push(joined);
                }
            } else {
                if pending.is_some() {
                    return Err(format!(
                        "line {}: a RUN: line ends with '\\' but is not continued",
                        n + 1
                    ));
                }
                let items = rest
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty());
                match list {
                    1 => d.xfail.extend(items),
                    2 => d.requires.extend(items),
                    _ => d.unsupported.extend(items),
                }
            }
            break;
        }
        if !found && pending.is_some() {
            return Err(format!(
                "line {}: a RUN: line ends with '\\' but the next line has no RUN:",
                n + 1
            ));
        }
    }
    if pending.is_some() {
        return Err("the last RUN: line ends with '\\'".into());
    }
    Ok(d)
}

/// Finds `kw` in `line` where it is not part of a longer word (as lit's keyword parser does).
fn find_keyword(line: &str, kw: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = line[from..].find(kw) {
        let at = from + i;
        let ok = at == 0 || {
            let c = line.as_bytes()[at - 1];
            !(c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
        };
        if ok {
            return Some(at);
        }
        from = at + kw.len();
    }
    None
}

/// Applies `subs` (longest match first among those that match at a position) to `cmd`, treating
/// `%%` as a literal percent sign.
pub fn substitute(cmd: &str, subs: &[(String, String)]) -> String {
    let mut out = String::new();
    let mut i = 0;
    let b = cmd.as_bytes();
    while i < b.len() {
        if b[i] == b'%' {
            if cmd[i..].starts_with("%%") {
                out.push('%');
                i += 2;
                continue;
            }
            let best = subs
                .iter()
                .filter(|(k, _)| cmd[i..].starts_with(k.as_str()))
                .max_by_key(|(k, _)| k.len());
            if let Some((k, v)) = best {
                out.push_str(v);
                i += k.len();
                continue;
            }
        }
        let ch = cmd[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// Replaces whole-word occurrences of each tool name with its path (lit's tool substitution: a
/// name preceded by a word character, `/`, `.` or `-`, or followed by a word character or `-`, is
/// left alone).
pub fn substitute_tools(cmd: &str, tools: &[(String, String)]) -> String {
    let mut out = String::new();
    let b = cmd.as_bytes();
    let mut i = 0;
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    'outer: while i < b.len() {
        for (name, path) in tools {
            if cmd[i..].starts_with(name.as_str()) {
                let before_ok = i == 0 || !(word(b[i - 1]) || b"/.-".contains(&b[i - 1]));
                let end = i + name.len();
                let after_ok = end >= b.len() || !(word(b[end]) || b[end] == b'-');
                if before_ok && after_ok {
                    out.push_str(path);
                    i = end;
                    continue 'outer;
                }
            }
        }
        let ch = cmd[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_run_lines_and_continuations() {
        let d = parse("// RUN: a \\\n// RUN:   b | c\n// XFAIL: *\n// REQUIRES: x, y\nRUNX: no\n")
            .unwrap();
        assert_eq!(d.run, vec!["a b | c"]);
        assert_eq!(d.xfail, vec!["*"]);
        assert_eq!(d.requires, vec!["x", "y"]);
        assert!(parse("// RUN: a \\\n").is_err());
    }

    #[test]
    fn substitutes() {
        let subs = vec![
            ("%s".to_string(), "/t/a.mlir".to_string()),
            ("%S".to_string(), "/t".to_string()),
        ];
        assert_eq!(substitute("cat %s %S %%s", &subs), "cat /t/a.mlir /t %s");
        let tools = vec![("filecheck".to_string(), "/b/filecheck".to_string())];
        assert_eq!(
            substitute_tools("x | filecheck %s", &tools),
            "x | /b/filecheck %s"
        );
        assert_eq!(
            substitute_tools("cat dir/filecheck.txt filecheck-x", &tools),
            "cat dir/filecheck.txt filecheck-x"
        );
    }
}
