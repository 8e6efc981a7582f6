//! [`PassRegistry`]: passes by command-line name, and the `--list-passes` text generated from
//! their declarations.

use indexmap::IndexMap;

use crate::errors::OptionError;
use crate::options::OptionKind;
use crate::pass::{Pass, PassInfo};

/// Builds a pass with default options.
pub type PassCtor = fn() -> Box<dyn Pass>;

/// A named pass pipeline (MLIR's `PassPipelineRegistration`): an argument that stands for a
/// list of passes wherever a pass may be named, in `--pass-pipeline` and as a flag.
#[derive(Clone, Debug)]
pub struct PipelineInfo {
    /// The name in pipelines and on the command line (`graph-optimize`).
    pub argument: &'static str,
    /// One line for `--list-passes`.
    pub summary: &'static str,
    /// The passes it stands for, as pipeline text without an anchor (`cse,canonicalize`).
    pub pipeline: String,
}

/// Registered passes and pass pipelines, by argument.
#[derive(Default, Clone)]
pub struct PassRegistry {
    passes: IndexMap<&'static str, (&'static PassInfo, PassCtor)>,
    pipelines: IndexMap<&'static str, PipelineInfo>,
}

impl std::fmt::Debug for PassRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.passes.keys()).finish()
    }
}

impl PassRegistry {
    /// An empty registry.
    pub fn new() -> PassRegistry {
        PassRegistry::default()
    }

    /// Registers the pass built by `ctor` under its declared argument (a later registration
    /// of the same argument replaces the earlier one).
    pub fn register(&mut self, ctor: PassCtor) {
        let info = ctor().info();
        self.passes.insert(info.argument, (info, ctor));
    }

    /// Registers the pipeline alias `argument` for `pipeline` (pipeline text without an
    /// anchor, resolved when a pipeline names it; a later registration replaces an earlier one).
    pub fn register_pipeline(
        &mut self,
        argument: &'static str,
        summary: &'static str,
        pipeline: impl Into<String>,
    ) {
        self.pipelines.insert(
            argument,
            PipelineInfo {
                argument,
                summary,
                pipeline: pipeline.into(),
            },
        );
    }

    /// The pipeline alias `argument`.
    pub fn pipeline(&self, argument: &str) -> Option<&PipelineInfo> {
        self.pipelines.get(argument)
    }

    /// Every registered pipeline alias, sorted by argument.
    pub fn pipelines(&self) -> Vec<&PipelineInfo> {
        let mut v: Vec<&PipelineInfo> = self.pipelines.values().collect();
        v.sort_by_key(|p| p.argument);
        v
    }

    /// The declaration of the pass `argument`.
    pub fn lookup(&self, argument: &str) -> Option<&'static PassInfo> {
        self.passes.get(argument).map(|(i, _)| *i)
    }

    /// Whether `argument` names a registered pass or pipeline alias.
    pub fn contains(&self, argument: &str) -> bool {
        self.passes.contains_key(argument) || self.pipelines.contains_key(argument)
    }

    /// Creates the pass `argument` with options parsed from `options` (the text between the
    /// braces). `Ok(None)` when no pass has that name.
    pub fn create(
        &self,
        argument: &str,
        options: &str,
    ) -> Result<Option<Box<dyn Pass>>, OptionError> {
        let Some((_, ctor)) = self.passes.get(argument) else {
            return Ok(None);
        };
        let mut pass = ctor();
        pass.options_mut().parse_into(options)?;
        Ok(Some(pass))
    }

    /// Declarations of every registered pass, sorted by argument.
    pub fn infos(&self) -> Vec<&'static PassInfo> {
        let mut v: Vec<&'static PassInfo> = self.passes.values().map(|(i, _)| *i).collect();
        v.sort_by_key(|i| i.argument);
        v
    }

    /// The `--list-passes` text, laid out as `mlir-opt --list-passes` lays it out: each pass
    /// with its summary, then its options (sorted by name) with their help.
    pub fn list_passes(&self) -> String {
        let mut out = String::from("Passes:\n");
        for info in self.infos() {
            out.push_str(&columns(
                &format!("  --{}", info.argument),
                58,
                "-   ",
                info.summary,
            ));
            let mut opts: Vec<_> = info.options.iter().collect();
            opts.sort_by_key(|o| o.name);
            for o in opts {
                let left = format!("    --{}{}", o.name, o.kind.value_name());
                out.push_str(&columns(&left, 58, "- ", o.help));
                if let OptionKind::Enum(cases) = o.kind {
                    for c in cases {
                        out.push_str(&columns(&format!("    ={}", c.name), 56, "-   ", c.help));
                    }
                }
            }
        }
        if !self.pipelines.is_empty() {
            out.push_str("Pass Pipelines:\n");
            for p in self.pipelines() {
                out.push_str(&columns(
                    &format!("  --{}", p.argument),
                    58,
                    "-   ",
                    p.summary,
                ));
            }
        }
        out
    }

    /// A Markdown reference of every registered pass, generated from the declarations:
    /// summary, anchor, description, options and statistics, one section per pass.
    pub fn markdown_reference(&self) -> String {
        let mut out = String::new();
        for info in self.infos() {
            out.push_str(&format!("### `{}`\n\n", info.argument));
            out.push_str(&format!("{}.\n\n", info.summary.trim_end_matches('.')));
            out.push_str(&format!(
                "Runs on: {}; display name `{}`.\n\n",
                info.anchor
                    .map_or("any op".to_string(), |a| format!("`{a}`")),
                info.name
            ));
            if !info.description.is_empty() {
                out.push_str(&info.description.trim().replace(". ", ".\n"));
                out.push_str("\n\n");
            }
            if !info.options.is_empty() {
                out.push_str("| option | type | default | description |\n|---|---|---|---|\n");
                let mut opts: Vec<_> = info.options.iter().collect();
                opts.sort_by_key(|o| o.name);
                for o in opts {
                    let ty = match o.kind {
                        OptionKind::Bool => "bool".to_string(),
                        OptionKind::Int => "integer".to_string(),
                        OptionKind::String => "string".to_string(),
                        OptionKind::StringList => "list of strings".to_string(),
                        OptionKind::Enum(cases) => cases
                            .iter()
                            .map(|c| format!("`{}`", c.name))
                            .collect::<Vec<_>>()
                            .join(" \\| "),
                    };
                    let default = (o.default)();
                    let default = if default.is_empty() {
                        "(empty)".to_string()
                    } else {
                        format!("`{}`", default.to_pipeline_text())
                    };
                    out.push_str(&format!(
                        "| `{}` | {ty} | {default} | {} |\n",
                        o.name, o.help
                    ));
                }
                out.push('\n');
            }
            if !info.statistics.is_empty() {
                out.push_str("| statistic | description |\n|---|---|\n");
                for s in info.statistics {
                    out.push_str(&format!("| `{}` | {} |\n", s.name, s.desc));
                }
                out.push('\n');
            }
        }
        out
    }
}

fn columns(left: &str, width: usize, sep: &str, right: &str) -> String {
    let pad = width.saturating_sub(left.chars().count()).max(1);
    format!("{left}{}{sep}{right}\n", " ".repeat(pad))
}
