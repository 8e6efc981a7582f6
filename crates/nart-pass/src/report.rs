//! The timing and statistics reports, laid out as MLIR lays out `--mlir-timing` and
//! `--mlir-pass-statistics`.

use std::time::Duration;

/// One line of the timing report and the lines nested under it.
#[derive(Clone, Debug, PartialEq)]
pub struct TimingEntry {
    /// Name (`CSE`, `'func.func' Pipeline`, `Parser`).
    pub name: String,
    /// Wall time.
    pub time: Duration,
    /// Nested entries.
    pub children: Vec<TimingEntry>,
}

const BANNER: &str =
    "===-------------------------------------------------------------------------===";

fn title(text: &str) -> String {
    let pad = 80usize.saturating_sub(text.len()) / 2;
    format!("{}{text}\n", " ".repeat(pad))
}

/// The report banner: a rule, a centered title, a rule.
pub fn banner(text: &str) -> String {
    format!("{BANNER}\n{}{BANNER}\n", title(text))
}

/// Renders the execution time report. `total` defaults to the sum of the top-level entries.
pub fn render_timing(entries: &[TimingEntry], total: Option<Duration>) -> String {
    let total = total.unwrap_or_else(|| entries.iter().map(|e| e.time).sum());
    let secs = total.as_secs_f64();
    let mut out = banner("... Execution time report ...");
    out.push_str(&format!("  Total Execution Time: {secs:.4} seconds\n\n"));
    out.push_str("  ----Wall Time----  ----Name----\n");
    fn rec(out: &mut String, e: &TimingEntry, total: f64, depth: usize) {
        let t = e.time.as_secs_f64();
        let pct = if total > 0.0 { t / total * 100.0 } else { 0.0 };
        out.push_str(&format!(
            "{t:>10.4} ({pct:>5.1}%)  {}{}\n",
            "  ".repeat(depth),
            e.name
        ));
        for c in &e.children {
            rec(out, c, total, depth + 1);
        }
    }
    for e in entries {
        rec(&mut out, e, secs, 0);
    }
    out.push_str(&format!("{secs:>10.4} (100.0%)  Total\n"));
    out
}

/// One pass or pipeline in the statistics report.
#[derive(Clone, Debug, PartialEq)]
pub enum StatEntry {
    /// A pass with its (name, description, value) statistics.
    Pass {
        /// Display name.
        name: String,
        /// Statistics.
        stats: Vec<(String, String, u64)>,
    },
    /// A nested pipeline.
    Pipeline {
        /// Anchor op name.
        anchor: String,
        /// Its passes.
        children: Vec<StatEntry>,
    },
}

/// Renders the pass statistics report.
pub fn render_statistics(entries: &[StatEntry]) -> String {
    let mut out = banner("... Pass statistics report ...");
    fn rec(out: &mut String, e: &StatEntry, depth: usize) {
        let pad = "  ".repeat(depth);
        match e {
            StatEntry::Pipeline { anchor, children } => {
                out.push_str(&format!("{pad}'{anchor}' Pipeline\n"));
                for c in children {
                    rec(out, c, depth + 1);
                }
            }
            StatEntry::Pass { name, stats } => {
                out.push_str(&format!("{pad}{name}\n"));
                let width = stats
                    .iter()
                    .map(|s| s.2.to_string().len())
                    .max()
                    .unwrap_or(1);
                for (n, d, v) in stats {
                    out.push_str(&format!("{pad}  (S) {v:>width$} {n} - {d}\n"));
                }
            }
        }
    }
    for e in entries {
        rec(&mut out, e, 0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timing_layout() {
        let entries = vec![
            TimingEntry {
                name: "'func.func' Pipeline".into(),
                time: Duration::from_millis(30),
                children: vec![TimingEntry {
                    name: "CSE".into(),
                    time: Duration::from_millis(30),
                    children: vec![],
                }],
            },
            TimingEntry {
                name: "SymbolDCE".into(),
                time: Duration::from_millis(10),
                children: vec![],
            },
        ];
        let got = render_timing(&entries, None);
        let want = "\
===-------------------------------------------------------------------------===
                         ... Execution time report ...
===-------------------------------------------------------------------------===
  Total Execution Time: 0.0400 seconds

  ----Wall Time----  ----Name----
    0.0300 ( 75.0%)  'func.func' Pipeline
    0.0300 ( 75.0%)    CSE
    0.0100 ( 25.0%)  SymbolDCE
    0.0400 (100.0%)  Total
";
        assert_eq!(got, want);
    }

    #[test]
    fn statistics_layout() {
        let entries = vec![StatEntry::Pipeline {
            anchor: "func.func".into(),
            children: vec![StatEntry::Pass {
                name: "CSE".into(),
                stats: vec![
                    ("num-cse'd".into(), "Number of operations CSE'd".into(), 12),
                    ("num-dce'd".into(), "Number of operations DCE'd".into(), 3),
                ],
            }],
        }];
        let want = "\
===-------------------------------------------------------------------------===
                         ... Pass statistics report ...
===-------------------------------------------------------------------------===
'func.func' Pipeline
  CSE
    (S) 12 num-cse'd - Number of operations CSE'd
    (S)  3 num-dce'd - Number of operations DCE'd
";
        assert_eq!(render_statistics(&entries), want);
    }
}
