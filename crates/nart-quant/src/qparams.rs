//! The quantization parameter file: scales and zero points per tensor, as JSON.
//!
//! `quant-apply` writes the parameters it chose (`export-qparams=P.json`), and reads a file of
//! the same form (`qparams=P.json`) whose entries replace what the scheme would choose for the
//! tensors they name, so that parameters can be reviewed, edited, or brought from another tool.
//!
//! ```json
//! {
//!   "format": "nart-qparams",
//!   "version": 1,
//!   "scheme": "onnx-qdq",
//!   "tensors": {
//!     "input": { "dtype": "u8", "scale": [0.003921569], "zero_point": [0] },
//!     "conv1.weight": { "dtype": "i8", "scale": [0.0121, 0.0087], "zero_point": [0, 0], "axis": 0 },
//!     "fc.weight": { "dtype": "u4", "scale": [0.1, 0.2], "zero_point": [8, 8], "block": [1, 32] }
//!   }
//! }
//! ```
//!
//! Tensors are named as ONNX names them: a graph input by its name, a node's output by the
//! node's name, a weight by its initializer's name. `dtype` is `iN` or `uN`; `range` (optional)
//! narrows the stored range (`[-127, 127]`); `axis` marks per-channel parameters and `block`
//! (`[dimension, size]`) per-group ones. A user-given entry needs only `scale` (and
//! `zero_point` when it is not 0); the rest defaults to the scheme's choice.

use std::path::Path;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::errors::QuantError;
use crate::scheme::QParams;

/// One tensor's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TensorParams {
    /// Storage type: `i8`, `u8`, `i4`, `u16`, `i32`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dtype: Option<String>,
    /// Scales: one, or one per channel or block.
    pub scale: Vec<f64>,
    /// Zero points, one per scale (all 0 when left out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zero_point: Vec<i64>,
    /// The stored range, when narrower than the type's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<[i64; 2]>,
    /// The channel dimension of per-channel parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<u32>,
    /// `[dimension, size]` of per-group parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<[u32; 2]>,
}

/// The whole file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QParamsFile {
    /// Always `nart-qparams`.
    pub format: String,
    /// The format version (1).
    pub version: u32,
    /// The scheme the parameters were chosen by, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<String>,
    /// Parameters by tensor name, in the model's order.
    pub tensors: IndexMap<String, TensorParams>,
}

impl Default for QParamsFile {
    fn default() -> Self {
        QParamsFile {
            format: "nart-qparams".into(),
            version: 1,
            scheme: None,
            tensors: IndexMap::new(),
        }
    }
}

/// Parses `i8` / `u4` into (bits, signed).
fn parse_dtype(s: &str) -> Option<(u32, bool)> {
    let (signed, rest) = match s.as_bytes().first()? {
        b'i' | b's' => (true, &s[1..]),
        b'u' => (false, &s[1..]),
        _ => return None,
    };
    let bits: u32 = rest.parse().ok()?;
    (2..=32).contains(&bits).then_some((bits, signed))
}

impl TensorParams {
    /// The entry for chosen parameters.
    pub fn from_qparams(p: &QParams) -> TensorParams {
        let (full_lo, full_hi) = full_range(p.bits, p.signed);
        TensorParams {
            dtype: Some(format!("{}{}", if p.signed { "i" } else { "u" }, p.bits)),
            scale: p.scales.clone(),
            zero_point: p.zero_points.clone(),
            range: (p.qmin != full_lo || p.qmax != full_hi).then_some([p.qmin, p.qmax]),
            axis: p.axis,
            block: p.block.map(|(d, s)| [d, s]),
        }
    }

    /// The parameters this entry gives, completing it from `default` (what the scheme would
    /// choose) and checking it against the tensor's `shape`. `name` is for messages.
    pub fn to_qparams(
        &self,
        name: &str,
        default: &QParams,
        shape: Option<&[usize]>,
    ) -> Result<QParams, QuantError> {
        let err = |m: String| QuantError::Params(format!("tensor '{name}': {m}"));
        let (bits, signed) = match &self.dtype {
            Some(d) => parse_dtype(d)
                .ok_or_else(|| err(format!("bad dtype '{d}' (want iN or uN, N in 2..=32)")))?,
            None => (default.bits, default.signed),
        };
        let (mut qmin, mut qmax) = full_range(bits, signed);
        if self.dtype.is_none() {
            (qmin, qmax) = (default.qmin, default.qmax);
        }
        if let Some([lo, hi]) = self.range {
            let (flo, fhi) = full_range(bits, signed);
            if lo > hi || lo < flo || hi > fhi {
                return Err(err(format!(
                    "range [{lo}, {hi}] is not inside [{flo}, {fhi}]"
                )));
            }
            (qmin, qmax) = (lo, hi);
        }
        if self.scale.is_empty() {
            return Err(err("no scale".into()));
        }
        if let Some(s) = self.scale.iter().find(|s| !(s.is_finite() && **s > 0.0)) {
            return Err(err(format!("scale {s} is not a positive finite number")));
        }
        let zero_point = if self.zero_point.is_empty() {
            vec![0; self.scale.len()]
        } else {
            self.zero_point.clone()
        };
        if zero_point.len() != self.scale.len() {
            return Err(err(format!(
                "{} zero points for {} scales",
                zero_point.len(),
                self.scale.len()
            )));
        }
        if let Some(z) = zero_point.iter().find(|z| **z < qmin || **z > qmax) {
            return Err(err(format!(
                "zero point {z} is outside the stored range [{qmin}, {qmax}]"
            )));
        }
        match (self.axis, self.block, shape) {
            (None, None, _) if self.scale.len() != 1 => {
                return Err(err(format!(
                    "{} scales without an axis or block (per-tensor parameters have one)",
                    self.scale.len()
                )))
            }
            (Some(a), _, Some(shape)) => match shape.get(a as usize) {
                Some(&d) if d == self.scale.len() => {}
                Some(&d) => {
                    return Err(err(format!(
                        "{} scales for axis {a} of size {d}",
                        self.scale.len()
                    )))
                }
                None => {
                    return Err(err(format!(
                        "axis {a} is out of range for rank {}",
                        shape.len()
                    )))
                }
            },
            _ => {}
        }
        Ok(QParams {
            bits,
            signed,
            qmin,
            qmax,
            scales: self.scale.clone(),
            zero_points: zero_point,
            axis: self.axis,
            block: self.block.map(|[d, s]| (d, s)),
        })
    }
}

fn full_range(bits: u32, signed: bool) -> (i64, i64) {
    if signed {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    } else {
        (0, (1i64 << bits) - 1)
    }
}

impl QParamsFile {
    /// Parses the JSON text of a parameter file (`source` names it in messages).
    pub fn parse(text: &str, source: &str) -> Result<QParamsFile, QuantError> {
        let f: QParamsFile =
            serde_json::from_str(text).map_err(|e| QuantError::Params(format!("{source}: {e}")))?;
        if f.format != "nart-qparams" || f.version != 1 {
            return Err(QuantError::Params(format!(
                "{source}: not a nart-qparams version 1 file (format '{}', version {})",
                f.format, f.version
            )));
        }
        Ok(f)
    }

    /// Reads a parameter file.
    pub fn read(path: &Path) -> Result<QParamsFile, QuantError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| QuantError::Params(format!("cannot read '{}': {e}", path.display())))?;
        QParamsFile::parse(&text, &path.display().to_string())
    }

    /// The JSON text (pretty, with a final newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("parameter files always serialize");
        s.push('\n');
        s
    }

    /// Writes the file.
    pub fn write(&self, path: &Path) -> Result<(), QuantError> {
        std::fs::write(path, self.to_json())
            .map_err(|e| QuantError::Params(format!("cannot write '{}': {e}", path.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> QParamsFile {
        let mut f = QParamsFile {
            scheme: Some("onnx-qdq".into()),
            ..Default::default()
        };
        let act = QParams {
            bits: 8,
            signed: false,
            qmin: 0,
            qmax: 255,
            scales: vec![0.003921568859368563],
            zero_points: vec![3],
            axis: None,
            block: None,
        };
        let w = QParams {
            bits: 8,
            signed: true,
            qmin: -127,
            qmax: 127,
            scales: vec![0.1, 1e-7, 123.456],
            zero_points: vec![0, 0, 0],
            axis: Some(0),
            block: None,
        };
        let g = QParams {
            bits: 4,
            signed: false,
            qmin: 0,
            qmax: 15,
            scales: vec![0.5, 0.25],
            zero_points: vec![8, 7],
            axis: None,
            block: Some((1, 32)),
        };
        for (n, p) in [("input", &act), ("conv1.weight", &w), ("fc.weight", &g)] {
            f.tensors.insert(n.into(), TensorParams::from_qparams(p));
        }
        f
    }

    #[test]
    fn json_round_trip_is_exact() {
        let f = sample();
        let text = f.to_json();
        let back = QParamsFile::parse(&text, "t.json").unwrap();
        assert_eq!(back, f);
        // Scales survive exactly, including ones whose shortest form is long.
        let mut g = QParamsFile::default();
        let awkward = vec![
            1.2059824139464135e-02,
            1.0147929659076765e-02,
            0.1 + 0.2,
            1.0 / 3.0,
            5e-324,
        ];
        g.tensors.insert(
            "t".into(),
            TensorParams {
                dtype: None,
                scale: awkward.clone(),
                zero_point: Vec::new(),
                range: None,
                axis: Some(0),
                block: None,
            },
        );
        let g2 = QParamsFile::parse(&g.to_json(), "g.json").unwrap();
        assert_eq!(
            g2.tensors["t"]
                .scale
                .iter()
                .map(|s| s.to_bits())
                .collect::<Vec<_>>(),
            awkward.iter().map(|s| s.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(back.to_json(), text);
        // Parameters come back bit for bit, narrow range and blocks included.
        let w = &back.tensors["conv1.weight"];
        assert_eq!(w.range, Some([-127, 127]));
        let dflt = QParams {
            bits: 8,
            signed: true,
            qmin: -128,
            qmax: 127,
            scales: vec![1.0],
            zero_points: vec![0],
            axis: None,
            block: None,
        };
        let p = w
            .to_qparams("conv1.weight", &dflt, Some(&[3, 1, 3, 3]))
            .unwrap();
        assert_eq!(p.scales, vec![0.1, 1e-7, 123.456]);
        assert_eq!((p.qmin, p.qmax, p.axis), (-127, 127, Some(0)));
        assert_eq!(back.tensors.get_index(0).unwrap().0, "input");
        assert!(
            text.contains("\"block\": [\n        1,\n        32\n      ]"),
            "{text}"
        );
    }

    #[test]
    fn user_entries_are_completed_and_checked() {
        let dflt = QParams {
            bits: 8,
            signed: false,
            qmin: 0,
            qmax: 255,
            scales: vec![1.0],
            zero_points: vec![0],
            axis: None,
            block: None,
        };
        let f = QParamsFile::parse(
            r#"{"format": "nart-qparams", "version": 1, "tensors": {"x": {"scale": [0.5]}}}"#,
            "u.json",
        )
        .unwrap();
        let p = f.tensors["x"].to_qparams("x", &dflt, None).unwrap();
        assert_eq!(
            (p.bits, p.signed, p.zero_points.clone()),
            (8, false, vec![0])
        );
        let bad = |json: &str| {
            let f = QParamsFile::parse(json, "b.json");
            match f {
                Err(e) => e.to_string(),
                Ok(f) => f.tensors[0]
                    .to_qparams("x", &dflt, Some(&[2, 3]))
                    .unwrap_err()
                    .to_string(),
            }
        };
        let head = r#"{"format": "nart-qparams", "version": 1, "tensors": {"x": "#;
        assert!(bad(&format!("{head}{{\"scale\": [0]}}}}}}")).contains("not a positive"));
        assert!(bad(&format!(
            "{head}{{\"scale\": [1], \"zero_point\": [300]}}}}}}"
        ))
        .contains("outside the stored range"));
        assert!(bad(&format!("{head}{{\"scale\": [1, 2]}}}}}}")).contains("without an axis"));
        assert!(
            bad(&format!("{head}{{\"scale\": [1, 2], \"axis\": 1}}}}}}"))
                .contains("2 scales for axis 1 of size 3")
        );
        assert!(
            bad(&format!("{head}{{\"scale\": [1], \"dtype\": \"q8\"}}}}}}")).contains("bad dtype")
        );
        assert!(
            bad(r#"{"format": "x", "version": 1, "tensors": {}}"#).contains("not a nart-qparams")
        );
        assert!(bad("{").contains("b.json"));
    }
}
