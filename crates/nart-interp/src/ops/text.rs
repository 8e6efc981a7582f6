//! Attribute mapping for the string operators of `nart_tensor::text`.

use nart_tensor::text::{self, CaseChange, StringNormalizerAttrs, TfIdfAttrs, TfIdfMode};
use nart_tensor::{KernelError, Result as KResult, Tensor};

use super::{one, req};
use crate::attrs::Node;

pub(super) fn string_concat(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(text::string_concat(req(n, i, 0)?, req(n, i, 1)?)?)
}

pub(super) fn string_normalizer(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let a = StringNormalizerAttrs {
        case_change_action: match n.str_or("case_change_action", "NONE")?.as_str() {
            "LOWER" => CaseChange::Lower,
            "UPPER" => CaseChange::Upper,
            _ => CaseChange::None,
        },
        is_case_sensitive: n.int_or("is_case_sensitive", 0)? != 0,
        stopwords: n.strings("stopwords")?,
    };
    one(text::string_normalizer(req(n, i, 0)?, &a)?)
}

pub(super) fn string_split(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let delimiter = n.str_or("delimiter", "")?;
    let maxsplit = n.opt_int("maxsplit")?.map(|m| m.max(0) as usize);
    let (parts, counts) = text::string_split(req(n, i, 0)?, &delimiter, maxsplit)?;
    Ok(vec![parts, counts])
}

pub(super) fn regex_full_match(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(text::regex_full_match(
        req(n, i, 0)?,
        &n.str_or("pattern", "")?,
    )?)
}

pub(super) fn tfidf_vectorizer(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let pool = match n.opt_ints("pool_int64s")? {
        Some(v) if !v.is_empty() => v.into_iter().map(|v| v.to_string()).collect(),
        _ => n.strings("pool_strings")?,
    };
    let mode = n.str_or("mode", "TF")?;
    let a = TfIdfAttrs {
        pool,
        ngram_counts: n.ints("ngram_counts")?,
        ngram_indexes: n.ints("ngram_indexes")?,
        weights: n.opt_floats("weights")?.unwrap_or_default(),
        min_gram_length: n.int("min_gram_length")?.max(1) as usize,
        max_gram_length: n.int("max_gram_length")?.max(1) as usize,
        max_skip_count: n.int_or("max_skip_count", 0)?.max(0) as usize,
        mode: match mode.as_str() {
            "TF" => TfIdfMode::Tf,
            "IDF" => TfIdfMode::Idf,
            "TFIDF" => TfIdfMode::TfIdf,
            other => {
                return Err(KernelError::attr(
                    n.onnx,
                    "mode",
                    format!("unknown mode '{other}'"),
                ))
            }
        },
    };
    one(text::tfidf_vectorizer(req(n, i, 0)?, &a)?)
}
