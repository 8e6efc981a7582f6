//! The accuracy guard's report: what was compared and what came of it, as JSON (the schema is
//! in `docs/quantization.md`), as one self-contained HTML page with an inline SVG bar chart of
//! the per-layer SQNR, and as a table for the terminal.
//!
//! Every rendering is deterministic: the same evaluation gives the same bytes. Figures are
//! rounded (dB to 4 decimals, cosines to 6) so that reports compare across machines; infinite
//! SQNR (no noise at all) is the string `"inf"` in JSON, which has no infinity.

use serde::Serialize;

use crate::guard::{fmt_db, Evaluation, FallbackStep, LayerStats, Limits, Top1};

/// What was quantized and how, for the report's header.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReportMeta {
    /// The model file.
    pub model: String,
    /// The scheme.
    pub scheme: String,
    /// The calibrator.
    pub calibrator: String,
    /// `static` or `dynamic`.
    pub mode: String,
    /// The evaluation data.
    pub eval: String,
    /// The labels file.
    pub labels: Option<String>,
}

/// What `--auto-fallback` did.
#[derive(Clone, Debug, PartialEq)]
pub struct FallbackReport {
    /// The evaluation before any layer was kept in float.
    pub initial: Evaluation,
    /// The candidate layers, worst first, each with the activation fused into it.
    pub plan: Vec<Vec<String>>,
    /// The steps, in the order tried.
    pub steps: Vec<FallbackStep>,
    /// The step whose model was kept, if one held.
    pub chosen: Option<usize>,
}

/// The whole report.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The header.
    pub meta: ReportMeta,
    /// The limits.
    pub limits: Limits,
    /// The evaluation of the model that is (or would have been) written.
    pub evaluation: Evaluation,
    /// What does not hold (empty when the guard passed).
    pub failures: Vec<String>,
    /// The fallback search, with `--auto-fallback`.
    pub fallback: Option<FallbackReport>,
}

/// A dB figure in JSON: a number, or `"inf"` / `"-inf"` / `"nan"`.
#[derive(Clone, Copy, Debug)]
struct Db(f64);

impl Serialize for Db {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let x = self.0;
        if x.is_nan() {
            s.serialize_str("nan")
        } else if x == f64::INFINITY {
            s.serialize_str("inf")
        } else if x == f64::NEG_INFINITY {
            s.serialize_str("-inf")
        } else {
            s.serialize_f64(round(x, 4))
        }
    }
}

fn round(x: f64, digits: i32) -> f64 {
    let m = 10f64.powi(digits);
    let r = (x * m).round() / m;
    // No negative zero in reports.
    if r == 0.0 {
        0.0
    } else {
        r
    }
}

#[derive(Serialize)]
struct JsonTop1Run {
    correct: usize,
    rows: usize,
    percent: f64,
}

impl From<Top1> for JsonTop1Run {
    fn from(t: Top1) -> Self {
        JsonTop1Run {
            correct: t.correct,
            rows: t.rows,
            percent: round(t.percent(), 4),
        }
    }
}

#[derive(Serialize)]
struct JsonTop1 {
    float: JsonTop1Run,
    quantized: JsonTop1Run,
    drop_points: f64,
}

#[derive(Serialize)]
struct JsonOutput {
    name: String,
    sqnr_db: Db,
    cosine: f64,
}

#[derive(Serialize)]
struct JsonLayer {
    name: String,
    op: String,
    status: &'static str,
    measured: String,
    sqnr_db: Db,
    cosine: f64,
}

#[derive(Serialize)]
struct JsonEvalSet {
    data: String,
    labels: Option<String>,
    samples: usize,
    rows: usize,
}

#[derive(Serialize)]
struct JsonLimits {
    max_drop_points: Option<f64>,
    min_sqnr_db: Option<f64>,
}

#[derive(Serialize)]
struct JsonStep {
    kept_float: Vec<String>,
    top1_quantized_percent: Option<f64>,
    top1_drop_points: Option<f64>,
    min_output_sqnr_db: Db,
    passed: bool,
    failures: Vec<String>,
}

#[derive(Serialize)]
struct JsonFallback {
    initial_top1_quantized_percent: Option<f64>,
    initial_min_output_sqnr_db: Db,
    plan: Vec<Vec<String>>,
    steps: Vec<JsonStep>,
    kept_float: Option<Vec<String>>,
}

#[derive(Serialize)]
struct JsonReport {
    format: &'static str,
    version: u32,
    model: String,
    scheme: String,
    calibrator: String,
    mode: String,
    eval: JsonEvalSet,
    limits: JsonLimits,
    passed: bool,
    failures: Vec<String>,
    top1: Option<JsonTop1>,
    outputs: Vec<JsonOutput>,
    layers: Vec<JsonLayer>,
    fallback: Option<JsonFallback>,
}

fn json_top1(e: &Evaluation) -> Option<JsonTop1> {
    Some(JsonTop1 {
        float: e.top1_float?.into(),
        quantized: e.top1_quant?.into(),
        drop_points: round(e.top1_drop()?, 4),
    })
}

fn json_layer(l: &LayerStats) -> JsonLayer {
    JsonLayer {
        name: l.name.clone(),
        op: l.op.clone(),
        status: l.status.name(),
        measured: l.measured.clone(),
        sqnr_db: Db(l.sqnr_db),
        cosine: round(l.cosine, 6),
    }
}

/// The kept-float layers of the chosen step, if one held.
fn chosen_kept(f: &FallbackReport) -> Option<&[String]> {
    f.chosen.map(|c| f.steps[c].kept_float.as_slice())
}

impl Report {
    /// Whether every limit holds.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// The JSON report (format `nart-quant-report`, version 1), pretty-printed, with a final
    /// newline.
    pub fn to_json(&self) -> String {
        let e = &self.evaluation;
        let r = JsonReport {
            format: "nart-quant-report",
            version: 1,
            model: self.meta.model.clone(),
            scheme: self.meta.scheme.clone(),
            calibrator: self.meta.calibrator.clone(),
            mode: self.meta.mode.clone(),
            eval: JsonEvalSet {
                data: self.meta.eval.clone(),
                labels: self.meta.labels.clone(),
                samples: e.samples,
                rows: e.rows,
            },
            limits: JsonLimits {
                max_drop_points: self.limits.max_drop,
                min_sqnr_db: self.limits.min_sqnr_db,
            },
            passed: self.passed(),
            failures: self.failures.clone(),
            top1: json_top1(e),
            outputs: e
                .outputs
                .iter()
                .map(|o| JsonOutput {
                    name: o.name.clone(),
                    sqnr_db: Db(o.sqnr_db),
                    cosine: round(o.cosine, 6),
                })
                .collect(),
            layers: e.layers.iter().map(json_layer).collect(),
            fallback: self.fallback.as_ref().map(|f| JsonFallback {
                initial_top1_quantized_percent: f.initial.top1_quant.map(|t| round(t.percent(), 4)),
                initial_min_output_sqnr_db: Db(f.initial.min_output_sqnr()),
                plan: f.plan.clone(),
                steps: f
                    .steps
                    .iter()
                    .map(|s| JsonStep {
                        kept_float: s.kept_float.clone(),
                        top1_quantized_percent: s
                            .evaluation
                            .top1_quant
                            .map(|t| round(t.percent(), 4)),
                        top1_drop_points: s.evaluation.top1_drop().map(|d| round(d, 4)),
                        min_output_sqnr_db: Db(s.evaluation.min_output_sqnr()),
                        passed: s.failures.is_empty(),
                        failures: s.failures.clone(),
                    })
                    .collect(),
                kept_float: chosen_kept(f).map(<[String]>::to_vec),
            }),
        };
        let mut text = serde_json::to_string_pretty(&r)
            .expect("invariant: the report holds only serializable plain data");
        text.push('\n');
        text
    }

    /// The summary for a terminal: the evaluation set, top-1, the outputs, the per-layer table
    /// worst first, the fallback steps, and the verdict.
    pub fn to_terminal(&self) -> String {
        let e = &self.evaluation;
        let mut out = format!(
            "accuracy guard: {} vs float on '{}' ({} samples, {} rows)\n",
            self.meta.scheme, self.meta.eval, e.samples, e.rows
        );
        if let (Some(f), Some(q), Some(d)) = (e.top1_float, e.top1_quant, e.top1_drop()) {
            out.push_str(&format!(
                "  top-1: float {:.2}% ({}/{}), quantized {:.2}% ({}/{}), drop {:.2} points{}\n",
                f.percent(),
                f.correct,
                f.rows,
                q.percent(),
                q.correct,
                q.rows,
                d,
                self.limits
                    .max_drop
                    .map_or(String::new(), |m| format!(" (limit {m})"))
            ));
        }
        let mut rows = vec![vec![
            "output".to_string(),
            "SQNR dB".to_string(),
            "cosine".to_string(),
        ]];
        for o in &e.outputs {
            rows.push(vec![
                o.name.clone(),
                fmt_db(o.sqnr_db),
                format!("{:.6}", o.cosine),
            ]);
        }
        out.push_str(&table(&rows, &[false, true, true]));
        if let Some(m) = self.limits.min_sqnr_db {
            out.push_str(&format!("  (SQNR floor {m} dB)\n"));
        }
        if !e.layers.is_empty() {
            out.push_str(&format!(
                "per-layer SQNR, worst first ({} layers):\n",
                e.layers.len()
            ));
            let mut rows = vec![vec![
                "layer".to_string(),
                "op".to_string(),
                "status".to_string(),
                "SQNR dB".to_string(),
                "cosine".to_string(),
                "measured".to_string(),
            ]];
            for l in &e.layers {
                rows.push(vec![
                    l.name.clone(),
                    l.op.clone(),
                    l.status.name().to_string(),
                    fmt_db(l.sqnr_db),
                    format!("{:.6}", l.cosine),
                    l.measured.clone(),
                ]);
            }
            out.push_str(&table(&rows, &[false, false, false, true, true, false]));
        }
        if let Some(f) = &self.fallback {
            out.push_str(&format!(
                "auto-fallback: {} candidate layers, worst first: {}\n",
                f.plan.len(),
                f.plan
                    .iter()
                    .map(|g| g.join("+"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            for (i, s) in f.steps.iter().enumerate() {
                out.push_str(&format!(
                    "  step {}: {} kept float{}: {}{}, min output SQNR {} dB: {}\n",
                    i + 1,
                    s.kept_float.len(),
                    if s.kept_float.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", s.kept_float.join(", "))
                    },
                    s.evaluation
                        .top1_quant
                        .map_or("no labels".to_string(), |t| format!(
                            "top-1 {:.2}%",
                            t.percent()
                        )),
                    s.evaluation
                        .top1_drop()
                        .map_or(String::new(), |d| format!(" (drop {d:.2})")),
                    fmt_db(s.evaluation.min_output_sqnr()),
                    if s.failures.is_empty() {
                        "holds"
                    } else {
                        "fails"
                    }
                ));
            }
            match chosen_kept(f) {
                Some(k) => {
                    out.push_str(&format!(
                        "  kept in float: {} ({} layers)\n",
                        k.join(", "),
                        k.len()
                    ));
                    if f.chosen == Some(0) {
                        out.push_str(
                            "  note: only keeping every candidate in float holds; no quantized \
                             compute layer is left\n",
                        );
                    }
                }
                None => out.push_str("  no set of layers kept in float makes the limits hold\n"),
            }
        }
        if self.failures.is_empty() {
            out.push_str("accuracy guard: passed\n");
        } else {
            out.push_str("accuracy guard: FAILED\n");
            for f in &self.failures {
                out.push_str(&format!("  {f}\n"));
            }
        }
        out
    }

    /// One self-contained HTML page: no scripts, no external assets; the per-layer SQNR as an
    /// inline SVG bar chart.
    pub fn to_html(&self) -> String {
        let e = &self.evaluation;
        let mut h = String::new();
        h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        h.push_str(&format!(
            "<title>nart quantization report: {}</title>\n",
            esc(&self.meta.model)
        ));
        h.push_str(
            "<style>\nbody{font-family:sans-serif;margin:2em;color:#222}\n\
             table{border-collapse:collapse;margin:1em 0}\n\
             td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}\n\
             td.n{text-align:right;font-family:monospace}\n\
             .pass{color:#1a7f37}.fail{color:#cf222e}\n</style>\n</head>\n<body>\n",
        );
        h.push_str(&format!(
            "<h1>Quantization report</h1>\n<p>model <code>{}</code>, scheme <code>{}</code>, \
             calibrator <code>{}</code>, {} mode; evaluated on <code>{}</code>{} ({} samples, \
             {} rows)</p>\n",
            esc(&self.meta.model),
            esc(&self.meta.scheme),
            esc(&self.meta.calibrator),
            esc(&self.meta.mode),
            esc(&self.meta.eval),
            self.meta.labels.as_ref().map_or(String::new(), |l| format!(
                " with labels <code>{}</code>",
                esc(l)
            )),
            e.samples,
            e.rows
        ));
        if self.failures.is_empty() {
            h.push_str("<p class=\"pass\"><b>passed</b></p>\n");
        } else {
            h.push_str("<p class=\"fail\"><b>FAILED</b></p>\n<ul>\n");
            for f in &self.failures {
                h.push_str(&format!("<li>{}</li>\n", esc(f)));
            }
            h.push_str("</ul>\n");
        }
        if let (Some(f), Some(q), Some(d)) = (e.top1_float, e.top1_quant, e.top1_drop()) {
            h.push_str(&format!(
                "<table>\n<tr><th>top-1 float</th><th>top-1 quantized</th><th>drop (points)</th></tr>\n\
                 <tr><td class=\"n\">{:.2}%</td><td class=\"n\">{:.2}%</td><td class=\"n\">{d:.2}</td></tr>\n</table>\n",
                f.percent(),
                q.percent()
            ));
        }
        h.push_str("<table>\n<tr><th>output</th><th>SQNR dB</th><th>cosine</th></tr>\n");
        for o in &e.outputs {
            h.push_str(&format!(
                "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{:.6}</td></tr>\n",
                esc(&o.name),
                fmt_db(o.sqnr_db),
                o.cosine
            ));
        }
        h.push_str("</table>\n");
        if !e.layers.is_empty() {
            h.push_str("<h2>Per-layer SQNR, worst first</h2>\n");
            h.push_str(&svg_chart(&e.layers));
            h.push_str(
                "<table>\n<tr><th>layer</th><th>op</th><th>status</th><th>SQNR dB</th>\
                 <th>cosine</th><th>measured</th></tr>\n",
            );
            for l in &e.layers {
                h.push_str(&format!(
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td>\
                     <td class=\"n\">{:.6}</td><td>{}</td></tr>\n",
                    esc(&l.name),
                    esc(&l.op),
                    l.status.name(),
                    fmt_db(l.sqnr_db),
                    l.cosine,
                    esc(&l.measured)
                ));
            }
            h.push_str("</table>\n");
        }
        if let Some(f) = &self.fallback {
            h.push_str(
                "<h2>Auto-fallback</h2>\n<table>\n<tr><th>step</th><th>kept float</th>\
                        <th>top-1 quantized</th><th>min output SQNR dB</th><th>result</th></tr>\n",
            );
            for (i, s) in f.steps.iter().enumerate() {
                h.push_str(&format!(
                    "<tr><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td>\
                     <td class=\"n\">{}</td><td>{}</td></tr>\n",
                    i + 1,
                    esc(&s.kept_float.join(", ")),
                    s.evaluation
                        .top1_quant
                        .map_or("-".to_string(), |t| format!("{:.2}%", t.percent())),
                    fmt_db(s.evaluation.min_output_sqnr()),
                    if s.failures.is_empty() {
                        "holds"
                    } else {
                        "fails"
                    }
                ));
            }
            h.push_str("</table>\n");
            h.push_str(&match chosen_kept(f) {
                Some(k) => format!("<p>kept in float: {}</p>\n", esc(&k.join(", "))),
                None => "<p>no set of layers kept in float makes the limits hold</p>\n".into(),
            });
        }
        h.push_str("</body>\n</html>\n");
        h
    }
}

/// Columns padded to their widest cell, two spaces of indent; `right[i]` right-aligns column `i`.
fn table(rows: &[Vec<String>], right: &[bool]) -> String {
    let n = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..n)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in rows {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if right.get(i).copied().unwrap_or(false) {
                    format!("{c:>w$}", w = widths[i])
                } else {
                    format!("{c:<w$}", w = widths[i])
                }
            })
            .collect();
        out.push_str("  ");
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// Escapes text for HTML.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A horizontal bar per layer, its length the SQNR (negative and non-finite SQNR draw no bar;
/// infinite SQNR draws a full one, labelled `inf`); kept-float layers are grey.
fn svg_chart(layers: &[LayerStats]) -> String {
    const LABEL: f64 = 220.0;
    const BAR: f64 = 400.0;
    const ROW: f64 = 18.0;
    let top = layers
        .iter()
        .map(|l| l.sqnr_db)
        .filter(|x| x.is_finite())
        .fold(1.0f64, f64::max);
    let height = ROW * layers.len() as f64 + 24.0;
    let width = LABEL + BAR + 70.0;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"12\">\n"
    );
    for (i, l) in layers.iter().enumerate() {
        let y = ROW * i as f64;
        let len = if l.sqnr_db == f64::INFINITY {
            BAR
        } else if l.sqnr_db.is_finite() && l.sqnr_db > 0.0 {
            BAR * l.sqnr_db / top
        } else {
            0.0
        };
        let color = match l.status {
            crate::guard::LayerStatus::Quantized => "#4c72b0",
            crate::guard::LayerStatus::Float => "#999999",
        };
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n\
             <rect x=\"{LABEL}\" y=\"{:.1}\" width=\"{len:.1}\" height=\"{:.1}\" fill=\"{color}\"><title>{}: {} dB</title></rect>\n\
             <text x=\"{:.1}\" y=\"{:.1}\">{}</text>\n",
            LABEL - 6.0,
            y + 13.0,
            esc(&l.name),
            y + 3.0,
            ROW - 5.0,
            esc(&l.name),
            fmt_db(l.sqnr_db),
            LABEL + len + 4.0,
            y + 13.0,
            fmt_db(l.sqnr_db)
        ));
    }
    let axis_y = ROW * layers.len() as f64 + 14.0;
    s.push_str(&format!(
        "<text x=\"{LABEL}\" y=\"{axis_y:.1}\">0 dB</text>\n\
         <text x=\"{:.1}\" y=\"{axis_y:.1}\" text-anchor=\"end\">{} dB</text>\n</svg>\n",
        LABEL + BAR,
        fmt_db(top)
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::{LayerStatus, OutputStats};

    fn report() -> Report {
        Report {
            meta: ReportMeta {
                model: "m<1>.onnx".into(),
                scheme: "onnx-qdq".into(),
                calibrator: "minmax".into(),
                mode: "static".into(),
                eval: "eval.pb".into(),
                labels: None,
            },
            limits: Limits {
                max_drop: None,
                min_sqnr_db: Some(30.0),
            },
            evaluation: Evaluation {
                samples: 2,
                rows: 2,
                top1_float: None,
                top1_quant: None,
                outputs: vec![OutputStats {
                    name: "y".into(),
                    sqnr_db: f64::INFINITY,
                    cosine: 1.0,
                }],
                layers: vec![
                    LayerStats {
                        name: "a&b".into(),
                        op: "Conv".into(),
                        status: LayerStatus::Quantized,
                        measured: "output".into(),
                        fused: None,
                        sqnr_db: 12.345678,
                        cosine: 0.99,
                    },
                    LayerStats {
                        name: "c".into(),
                        op: "Gemm".into(),
                        status: LayerStatus::Float,
                        measured: "output".into(),
                        fused: None,
                        sqnr_db: f64::INFINITY,
                        cosine: 1.0,
                    },
                ],
            },
            failures: vec![],
            fallback: None,
        }
    }

    #[test]
    fn json_spells_infinity_and_rounds() {
        let j = report().to_json();
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["format"], "nart-quant-report");
        assert_eq!(v["outputs"][0]["sqnr_db"], "inf");
        assert_eq!(v["layers"][0]["sqnr_db"], 12.3457);
        assert_eq!(v["layers"][1]["status"], "float");
        assert_eq!(v["top1"], serde_json::Value::Null);
        assert_eq!(v["passed"], true);
        assert!(j.ends_with("}\n"));
    }

    #[test]
    fn html_is_self_contained_and_escaped() {
        let h = report().to_html();
        assert!(h.contains("<svg"), "{h}");
        assert!(h.contains("m&lt;1&gt;.onnx"));
        assert!(h.contains(">a&amp;b</text>"));
        assert!(!h.contains("<script"));
        // No external assets: the only URL is the SVG namespace.
        assert!(!h.replace("http://www.w3.org/2000/svg", "").contains("http"));
        // Two layers, two bars; the infinite one full length.
        assert_eq!(h.matches("<rect").count(), 2);
        assert!(h.contains("width=\"400.0\""));
        assert_eq!(h, report().to_html());
    }

    #[test]
    fn terminal_table_aligns() {
        let t = report().to_terminal();
        assert!(
            t.contains("  layer  op    status     SQNR dB    cosine  measured\n"),
            "{t}"
        );
        assert!(
            t.contains("  a&b    Conv  quantized    12.35  0.990000  output\n"),
            "{t}"
        );
        assert!(
            t.contains("  c      Gemm  float          inf  1.000000  output\n"),
            "{t}"
        );
        assert!(t.ends_with("accuracy guard: passed\n"));
    }
}
