//! The textual pipeline syntax (MLIR's `PassManagement.md` grammar), parsed in two phases:
//! first the structure, then the lookup of every name in the [`PassRegistry`].
//!
//! ```text
//! pipeline          ::= op-anchor `(` pipeline-element-list `)`
//! pipeline-element-list ::= pipeline-element (`,` pipeline-element)*
//! pipeline-element  ::= pipeline | pass-name options?
//! options           ::= `{` (key (`=` value)?)* `}`
//! ```
//!
//! `any` as an anchor nests a pipeline on every op, whatever its name.
//! Errors carry the byte offset they are about, rendered with a caret by [`PipelineError`].
//! Pipelines nest at most [`MAX_NESTING`] deep, so that parsing and running them cannot overflow
//! the stack.

use crate::errors::PipelineError;
use crate::manager::OpPassManager;
use crate::registry::PassRegistry;

/// One element of a parsed (not yet resolved) pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineElement {
    /// Pass name or op anchor.
    pub name: String,
    /// Byte offset of the name.
    pub name_pos: usize,
    /// Option text between the braces, and the byte offset of its first character.
    pub options: Option<(String, usize)>,
    /// The nested elements, when this is an op-anchored pipeline.
    pub inner: Option<Vec<PipelineElement>>,
}

/// The deepest nesting of op-anchored pipelines accepted.
pub const MAX_NESTING: usize = 256;

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    /// How many `(` of nested pipelines are open.
    depth: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, offset: usize, message: impl Into<String>) -> PipelineError {
        PipelineError {
            message: message.into(),
            pipeline: self.text.to_string(),
            offset,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    /// Parses a comma-separated list; `open` is the offset of the `(` that opened it, if any.
    fn list(&mut self, open: Option<usize>) -> Result<Vec<PipelineElement>, PipelineError> {
        let mut out = Vec::new();
        loop {
            self.skip_ws();
            if open.is_some() && self.peek() == Some(b')') && out.is_empty() {
                // An empty nested pipeline: `func.func()`.
                self.pos += 1;
                return Ok(out);
            }
            out.push(self.element()?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => {
                    if open.is_some() {
                        self.pos += 1;
                        return Ok(out);
                    }
                    return Err(self.err(
                        self.pos,
                        "encountered extra closing ')' creating unbalanced parentheses while parsing pipeline",
                    ));
                }
                None => {
                    return match open {
                        Some(o) => Err(self.err(
                            o,
                            "encountered unbalanced parentheses while parsing pipeline",
                        )),
                        None => Ok(out),
                    }
                }
                Some(c) => {
                    return Err(self.err(
                        self.pos,
                        format!("expected ',' or ')' but found '{}'", c as char),
                    ))
                }
            }
        }
    }

    fn element(&mut self) -> Result<PipelineElement, PipelineError> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if b"(){},".contains(&c) || c.is_ascii_whitespace() {
                break;
            }
            self.pos += 1;
        }
        let name = self.text[start..self.pos].to_string();
        if name.is_empty() {
            return Err(self.err(start, "expected pass or pass pipeline name"));
        }
        self.skip_ws();
        let mut options = None;
        if self.peek() == Some(b'{') {
            let brace = self.pos;
            self.pos += 1;
            let opt_start = self.pos;
            let mut depth = 1;
            let mut quote: Option<u8> = None;
            while depth > 0 {
                let Some(c) = self.peek() else {
                    return Err(
                        self.err(brace, "missing closing '}' while processing pass options")
                    );
                };
                match (quote, c) {
                    (Some(q), c) if c == q => quote = None,
                    (Some(_), _) => {}
                    (None, b'"' | b'\'') => quote = Some(c),
                    (None, b'{') => depth += 1,
                    (None, b'}') => depth -= 1,
                    _ => {}
                }
                self.pos += 1;
            }
            options = Some((self.text[opt_start..self.pos - 1].to_string(), opt_start));
            self.skip_ws();
        }
        let mut inner = None;
        if self.peek() == Some(b'(') {
            let open = self.pos;
            if self.depth == MAX_NESTING {
                return Err(self.err(
                    open,
                    format!("pipelines nest more than {MAX_NESTING} levels deep"),
                ));
            }
            self.pos += 1;
            self.depth += 1;
            inner = Some(self.list(Some(open))?);
            self.depth -= 1;
        }
        Ok(PipelineElement {
            name,
            name_pos: start,
            options,
            inner,
        })
    }
}

/// Phase one: the structure of a comma-separated list of pipeline elements.
pub fn parse_structure(text: &str) -> Result<Vec<PipelineElement>, PipelineError> {
    let mut p = Parser {
        text,
        pos: 0,
        depth: 0,
    };
    p.skip_ws();
    if p.peek().is_none() {
        return Ok(Vec::new());
    }
    p.list(None)
}

/// Parses an anchored pipeline, `builtin.module(func.func(cse),symbol-dce)`, into a pass
/// manager, looking every pass up in `registry`.
pub fn parse_pipeline(text: &str, registry: &PassRegistry) -> Result<OpPassManager, PipelineError> {
    let elements = parse_structure(text)?;
    let anchored = match elements.as_slice() {
        [e] if e.inner.is_some() && e.options.is_none() => e,
        _ => {
            return Err(PipelineError {
                message: "expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'".to_string(),
                pipeline: text.to_string(),
                offset: elements.first().map_or(0, |e| e.name_pos),
            })
        }
    };
    let mut pm = OpPassManager::new(&anchored.name);
    add_elements(
        &mut pm,
        anchored.inner.as_deref().unwrap_or_default(),
        text,
        registry,
        0,
    )?;
    Ok(pm)
}

/// Parses a pipeline list without an anchor (`canonicalize,func.func(cse)`) and appends it to
/// `pm`.
pub fn parse_pass_list(
    pm: &mut OpPassManager,
    text: &str,
    registry: &PassRegistry,
) -> Result<(), PipelineError> {
    let elements = parse_structure(text)?;
    add_elements(pm, &elements, text, registry, 0)
}

/// How deep pipeline aliases may expand into one another (a cycle stops here).
const MAX_ALIAS_DEPTH: usize = 16;

/// Phase two: resolves `elements` against `registry` and adds them to `pm`.
fn add_elements(
    pm: &mut OpPassManager,
    elements: &[PipelineElement],
    text: &str,
    registry: &PassRegistry,
    alias_depth: usize,
) -> Result<(), PipelineError> {
    let err = |offset: usize, message: String| PipelineError {
        message,
        pipeline: text.to_string(),
        offset,
    };
    for e in elements {
        if let Some(inner) = &e.inner {
            if let Some((_, pos)) = &e.options {
                return Err(err(
                    pos.saturating_sub(1),
                    format!("options are not allowed on the op anchor '{}'", e.name),
                ));
            }
            let nested = pm.nest(&e.name);
            add_elements(nested, inner, text, registry, alias_depth)?;
            continue;
        }
        if let Some(alias) = registry.pipeline(&e.name) {
            if let Some((_, pos)) = &e.options {
                return Err(err(
                    pos.saturating_sub(1),
                    format!("pass pipeline '{}' takes no options", e.name),
                ));
            }
            if alias_depth >= MAX_ALIAS_DEPTH {
                return Err(err(
                    e.name_pos,
                    format!(
                        "pass pipeline '{}' expands more than {MAX_ALIAS_DEPTH} levels deep",
                        e.name
                    ),
                ));
            }
            let inner = parse_structure(&alias.pipeline)
                .and_then(|els| add_elements(pm, &els, &alias.pipeline, registry, alias_depth + 1));
            if let Err(ie) = inner {
                // Name only the innermost alias the error is in.
                let message = if ie.message.starts_with("in pass pipeline '") {
                    ie.message
                } else {
                    format!("in pass pipeline '{}': {}", e.name, ie.message)
                };
                return Err(err(e.name_pos, message));
            }
            continue;
        }
        let (opts, opts_pos) = e
            .options
            .as_ref()
            .map_or(("", 0), |(t, p)| (t.as_str(), *p));
        let pass = match registry.create(&e.name, opts) {
            Ok(Some(p)) => p,
            Ok(None) => {
                return Err(err(
                    e.name_pos,
                    format!(
                        "'{}' does not refer to a registered pass or pass pipeline",
                        e.name
                    ),
                ))
            }
            Err(oe) => {
                return Err(err(
                    opts_pos + oe.offset,
                    format!("{} (in the options of pass '{}')", oe.message, e.name),
                ))
            }
        };
        if let Err(m) = pm.add_pass(pass) {
            return Err(err(e.name_pos, m.to_string()));
        }
    }
    Ok(())
}
