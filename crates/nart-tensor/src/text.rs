//! String operators: StringConcat, StringNormalizer, StringSplit, RegexFullMatch and
//! TfIdfVectorizer.

use std::collections::HashMap;

use crate::layout::{broadcast_all, broadcast_index};
use crate::tensor::Data;
use crate::{DType, KernelError, Result, Tensor};

fn strings_of<'a>(op: &'static str, t: &'a Tensor) -> Result<&'a [String]> {
    match t.data() {
        Data::Str(v) => Ok(v),
        _ => Err(KernelError::dtype(op, t.dtype())),
    }
}

fn string_tensor(shape: Vec<usize>, v: Vec<String>) -> Result<Tensor> {
    Tensor::new(DType::String, shape, Data::Str(v))
}

/// ONNX StringConcat: `a + b` elementwise, with numpy broadcasting.
pub fn string_concat(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    const OP: &str = "StringConcat";
    let (av, bv) = (strings_of(OP, a)?, strings_of(OP, b)?);
    let shape = broadcast_all(OP, &[a.shape(), b.shape()])?;
    let (ia, ib) = (
        broadcast_index(&shape, a.shape()),
        broadcast_index(&shape, b.shape()),
    );
    let v = ia
        .iter()
        .zip(&ib)
        .map(|(&x, &y)| format!("{}{}", av[x], bv[y]))
        .collect();
    string_tensor(shape, v)
}

/// The case change of StringNormalizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CaseChange {
    /// Keep the case.
    #[default]
    None,
    /// Lower-case every kept string.
    Lower,
    /// Upper-case every kept string.
    Upper,
}

/// Attributes of StringNormalizer.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct StringNormalizerAttrs {
    /// The case change applied to the strings kept.
    pub case_change_action: CaseChange,
    /// Compare with the stop words case-sensitively.
    pub is_case_sensitive: bool,
    /// Strings to drop.
    pub stopwords: Vec<String>,
}

/// ONNX StringNormalizer: drops the stop words from `x [C]` or `[1, C]` and changes the case of
/// the rest; an input left empty becomes one empty string.
pub fn string_normalizer(x: &Tensor, a: &StringNormalizerAttrs) -> Result<Tensor> {
    const OP: &str = "StringNormalizer";
    let v = strings_of(OP, x)?;
    let lowered: Vec<String> = a.stopwords.iter().map(|s| s.to_lowercase()).collect();
    let is_stop = |w: &str| {
        if a.is_case_sensitive {
            a.stopwords.iter().any(|s| s == w)
        } else {
            let w = w.to_lowercase();
            lowered.contains(&w)
        }
    };
    let mut kept: Vec<String> = v
        .iter()
        .filter(|w| !is_stop(w))
        .map(|w| match a.case_change_action {
            CaseChange::Lower => w.to_lowercase(),
            CaseChange::Upper => w.to_uppercase(),
            CaseChange::None => w.clone(),
        })
        .collect();
    let shape = match x.shape() {
        [_] => vec![kept.len().max(1)],
        [1, _] => vec![1, kept.len().max(1)],
        s => {
            return Err(KernelError::shape(
                OP,
                format!("input must be [C] or [1, C], got {s:?}"),
            ))
        }
    };
    if kept.is_empty() {
        kept.push(String::new());
    }
    string_tensor(shape, kept)
}

/// ONNX StringSplit: splits every string at `delimiter` (runs of whitespace when empty) into at
/// most `maxsplit + 1` parts; out the parts, padded with empty strings to `x.shape + [width]`,
/// and the number of parts of each string.
pub fn string_split(
    x: &Tensor,
    delimiter: &str,
    maxsplit: Option<usize>,
) -> Result<(Tensor, Tensor)> {
    let v = strings_of("StringSplit", x)?;
    let limit = maxsplit.map_or(usize::MAX, |m| m.saturating_add(1));
    let parts: Vec<Vec<String>> = v
        .iter()
        .map(|s| {
            if delimiter.is_empty() {
                let mut out: Vec<String> = Vec::new();
                let mut rest = s.trim_start();
                while !rest.is_empty() {
                    if out.len() + 1 == limit {
                        out.push(rest.to_string());
                        break;
                    }
                    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                    out.push(rest[..end].to_string());
                    rest = rest[end..].trim_start();
                }
                out
            } else {
                s.splitn(limit, delimiter).map(str::to_string).collect()
            }
        })
        .collect();
    let width = parts.iter().map(Vec::len).max().unwrap_or(0);
    let mut y = Vec::with_capacity(v.len() * width);
    for p in &parts {
        y.extend(p.iter().cloned());
        y.extend(std::iter::repeat_n(String::new(), width - p.len()));
    }
    let mut shape = x.shape().to_vec();
    shape.push(width);
    let counts = Tensor::from_vec(
        x.shape().to_vec(),
        parts.iter().map(|p| p.len() as i64).collect(),
    )?;
    Ok((string_tensor(shape, y)?, counts))
}

/// ONNX RegexFullMatch: whether each string matches `pattern` as a whole.
pub fn regex_full_match(x: &Tensor, pattern: &str) -> Result<Tensor> {
    const OP: &str = "RegexFullMatch";
    let v = strings_of(OP, x)?;
    let re = regex::Regex::new(&format!("^(?:{pattern})$"))
        .map_err(|e| KernelError::attr(OP, "pattern", e.to_string()))?;
    let m = v.iter().map(|s| re.is_match(s)).collect();
    Tensor::new(DType::Bool, x.shape().to_vec(), Data::Bool(m))
}

/// What TfIdfVectorizer outputs per n-gram.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TfIdfMode {
    /// The count.
    #[default]
    Tf,
    /// The weight if the n-gram occurs, else 0.
    Idf,
    /// The count times the weight.
    TfIdf,
}

/// Attributes of TfIdfVectorizer.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TfIdfAttrs {
    /// The n-grams, 1-grams first, then 2-grams, ..., as strings (integers in decimal).
    pub pool: Vec<String>,
    /// `ngram_counts[k]`: where the (k + 1)-grams start in `pool`.
    pub ngram_counts: Vec<i64>,
    /// The output column of each n-gram, in pool order.
    pub ngram_indexes: Vec<i64>,
    /// Per-column weights (default 1).
    pub weights: Vec<f64>,
    /// Shortest n-gram counted.
    pub min_gram_length: usize,
    /// Longest n-gram counted.
    pub max_gram_length: usize,
    /// Most items skipped between the items of an n-gram.
    pub max_skip_count: usize,
    /// What each column holds.
    pub mode: TfIdfMode,
}

/// ONNX TfIdfVectorizer over `x [C]` or `[N, C]` (strings or integers); out f32 `[width]` or
/// `[N, width]`, `width` one more than the largest of `ngram_indexes`.
pub fn tfidf_vectorizer(x: &Tensor, a: &TfIdfAttrs) -> Result<Tensor> {
    const OP: &str = "TfIdfVectorizer";
    let items: Vec<String> = match x.data() {
        Data::Str(v) => v.clone(),
        _ => x.to_i64_vec()?.into_iter().map(|v| v.to_string()).collect(),
    };
    // Map every pool n-gram to its output column.
    let mut table: HashMap<&[String], usize> = HashMap::new();
    let mut gram_id = 0usize;
    for (k, &start) in a.ngram_counts.iter().enumerate() {
        let len = k + 1;
        let end = a
            .ngram_counts
            .get(k + 1)
            .map_or(a.pool.len(), |&e| (e.max(0) as usize).min(a.pool.len()));
        let mut at = start.max(0) as usize;
        while at + len <= end {
            let col = *a
                .ngram_indexes
                .get(gram_id)
                .ok_or_else(|| KernelError::attr(OP, "ngram_indexes", "too few entries"))?;
            table.insert(&a.pool[at..at + len], col.max(0) as usize);
            gram_id += 1;
            at += len;
        }
    }
    let width = a
        .ngram_indexes
        .iter()
        .copied()
        .max()
        .map_or(0, |m| m.max(-1) + 1) as usize;
    let (rows, cols) = match x.shape() {
        [c] => (1, *c),
        [r, c] => (*r, *c),
        s => {
            return Err(KernelError::shape(
                OP,
                format!("input must be 1-D or 2-D, got {s:?}"),
            ))
        }
    };
    let mut out = vec![0f64; rows * width];
    let mut gram: Vec<String> = Vec::new();
    for r in 0..rows {
        let row = &items[r * cols..(r + 1) * cols];
        let y = &mut out[r * width..(r + 1) * width];
        for len in a.min_gram_length.max(1)..=a.max_gram_length {
            let skips = if len == 1 { 0 } else { a.max_skip_count };
            for skip in 0..=skips {
                let step = skip + 1;
                for start in 0..cols {
                    if start + (len - 1) * step >= cols {
                        break;
                    }
                    gram.clear();
                    gram.extend((0..len).map(|k| row[start + k * step].clone()));
                    if let Some(&col) = table.get(gram.as_slice()) {
                        y[col] += 1.0;
                    }
                }
            }
        }
        for (col, v) in y.iter_mut().enumerate() {
            let w = a.weights.get(col).copied().unwrap_or(1.0);
            *v = match a.mode {
                TfIdfMode::Tf => *v,
                TfIdfMode::Idf if *v > 0.0 => w,
                TfIdfMode::Idf => 0.0,
                TfIdfMode::TfIdf => *v * w,
            };
        }
    }
    let shape = if x.rank() == 1 {
        vec![width]
    } else {
        vec![rows, width]
    };
    Tensor::from_f64(DType::F32, shape, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(shape: &[usize], v: &[&str]) -> Tensor {
        string_tensor(shape.to_vec(), v.iter().map(|s| s.to_string()).collect()).unwrap()
    }

    fn strings(t: &Tensor) -> Vec<String> {
        t.to_string_vec()
    }

    #[test]
    fn concat_normalize_split_match() {
        let y = string_concat(&strs(&[2], &["a", "b"]), &strs(&[], &["!"])).unwrap();
        assert_eq!(strings(&y), ["a!", "b!"]);
        let a = StringNormalizerAttrs {
            case_change_action: CaseChange::Upper,
            is_case_sensitive: false,
            stopwords: vec!["The".into()],
        };
        let y = string_normalizer(&strs(&[3], &["the", "cat", "sat"]), &a).unwrap();
        assert_eq!(strings(&y), ["CAT", "SAT"]);
        let (parts, counts) = string_split(&strs(&[2], &["a b  c", "d"]), "", Some(1)).unwrap();
        assert_eq!(parts.shape(), &[2, 2]);
        assert_eq!(strings(&parts), ["a", "b  c", "d", ""]);
        assert_eq!(counts.as_i64().unwrap(), &[2, 1]);
        let m = regex_full_match(&strs(&[2], &["ab", "abc"]), "a.").unwrap();
        assert_eq!(m.as_slice::<bool>().unwrap(), &[true, false]);
        assert!(regex_full_match(&strs(&[1], &["a"]), "(").is_err());
    }

    #[test]
    fn tfidf_counts_unigrams_and_skip_bigrams() {
        let x = Tensor::vector(vec![1i64, 2, 1, 3]);
        let a = TfIdfAttrs {
            pool: ["1", "2", "1", "3"].map(String::from).to_vec(),
            ngram_counts: vec![0, 2],
            ngram_indexes: vec![0, 1, 2],
            min_gram_length: 1,
            max_gram_length: 2,
            max_skip_count: 1,
            ..TfIdfAttrs::default()
        };
        // Unigrams 1 (twice) and 2; the bigram (1, 3) once with one skip.
        let y = tfidf_vectorizer(&x, &a).unwrap();
        assert_eq!(y.as_f32().unwrap(), &[2.0, 1.0, 1.0]);
    }
}
