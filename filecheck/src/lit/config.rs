//! `lit.toml`: the suite configuration, in a small TOML subset.
//!
//! ```toml
//! suffixes = [".mlir"]            # test files
//! test_dirs = ["tests/lit"]       # searched when no path is given, relative to this file
//! tools = ["nart-opt", "filecheck"] # resolved to binaries next to nart-lit
//! features = ["nart"]             # for REQUIRES/UNSUPPORTED/XFAIL
//! excludes = ["Inputs"]           # directory or file names never treated as tests
//! [aliases]
//! FileCheck = "filecheck"         # a tool name spelled differently
//! [substitutions]
//! "%nart" = "nart-opt"            # extra textual substitutions
//! ```

use std::path::{Path, PathBuf};

use crate::errors::FileCheckError;

/// A parsed `lit.toml`.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The directory holding the config; relative paths start here.
    pub root: PathBuf,
    /// Test file suffixes, with their dot.
    pub suffixes: Vec<String>,
    /// Default test directories.
    pub test_dirs: Vec<String>,
    /// Tool names resolved to the build's binaries.
    pub tools: Vec<String>,
    /// Tool aliases: name to binary name.
    pub aliases: Vec<(String, String)>,
    /// Extra substitutions.
    pub substitutions: Vec<(String, String)>,
    /// Available features.
    pub features: Vec<String>,
    /// Names skipped while searching for tests.
    pub excludes: Vec<String>,
}

fn unquote(s: &str) -> Option<String> {
    let s = s.trim();
    let inner = s.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut it = inner.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(o) => out.push(o),
                None => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

fn strip_comment(line: &str) -> &str {
    let mut in_str = false;
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        if c == '"' && prev != '\\' {
            in_str = !in_str;
        }
        if c == '#' && !in_str {
            return &line[..i];
        }
        prev = c;
    }
    line
}

impl Config {
    /// Parses the text of a config whose file is `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Config, FileCheckError> {
        let root = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut c = Config {
            root,
            ..Config::default()
        };
        let mut table = String::new();
        let err = |line: usize, msg: &str| FileCheckError::Config {
            path: path.display().to_string(),
            line,
            msg: msg.into(),
        };
        for (i, raw) in text.lines().enumerate() {
            let line = strip_comment(raw).trim();
            if line.is_empty() {
                continue;
            }
            if let Some(t) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                table = t.trim().to_string();
                if table != "aliases" && table != "substitutions" {
                    return Err(err(i + 1, &format!("unknown table [{table}]")));
                }
                continue;
            }
            let Some(eq) = line.find('=') else {
                return Err(err(i + 1, "expected `key = value`"));
            };
            let key = line[..eq].trim();
            let key = unquote(key).unwrap_or_else(|| key.to_string());
            let value = line[eq + 1..].trim();
            if !table.is_empty() {
                let v = unquote(value).ok_or_else(|| err(i + 1, "expected a quoted string"))?;
                if table == "aliases" {
                    c.aliases.push((key, v));
                } else {
                    c.substitutions.push((key, v));
                }
                continue;
            }
            let list =
                parse_list(value).ok_or_else(|| err(i + 1, "expected a list of quoted strings"))?;
            match key.as_str() {
                "suffixes" => c.suffixes = list,
                "test_dirs" => c.test_dirs = list,
                "tools" => c.tools = list,
                "features" => c.features = list,
                "excludes" => c.excludes = list,
                _ => return Err(err(i + 1, &format!("unknown key `{key}`"))),
            }
        }
        if c.suffixes.is_empty() {
            return Err(err(0, "`suffixes` must list at least one suffix"));
        }
        Ok(c)
    }

    /// Reads and parses a config file.
    pub fn load(path: &Path) -> Result<Config, FileCheckError> {
        let text = std::fs::read_to_string(path)?;
        Config::parse(path, &text)
    }

    /// Finds `lit.toml` in `start` or one of its ancestors.
    pub fn find(start: &Path) -> Option<PathBuf> {
        let start = std::fs::canonicalize(start).ok()?;
        let mut dir = if start.is_dir() {
            Some(start.as_path())
        } else {
            start.parent()
        };
        while let Some(d) = dir {
            let p = d.join("lit.toml");
            if p.is_file() {
                return Some(p);
            }
            dir = d.parent();
        }
        None
    }
}

fn parse_list(v: &str) -> Option<Vec<String>> {
    let inner = v.strip_prefix('[')?.strip_suffix(']')?;
    let mut out = Vec::new();
    for item in inner.split(',') {
        if item.trim().is_empty() {
            continue;
        }
        out.push(unquote(item)?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_subset() {
        let t = "suffixes = [\".mlir\", \".test\"] # c\ntools = [\"filecheck\"]\n[aliases]\nFileCheck = \"filecheck\"\n[substitutions]\n\"%x\" = \"y\"\n";
        let c = Config::parse(Path::new("/r/lit.toml"), t).unwrap();
        assert_eq!(c.suffixes, vec![".mlir", ".test"]);
        assert_eq!(
            c.aliases,
            vec![("FileCheck".to_string(), "filecheck".to_string())]
        );
        assert_eq!(c.substitutions[0].0, "%x");
        assert!(Config::parse(Path::new("x"), "bogus = [\"a\"]\nsuffixes=[\"a\"]").is_err());
    }
}
