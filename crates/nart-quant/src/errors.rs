//! What can go wrong while quantizing: a bad scheme or option, bad calibration data, a bad
//! parameter file, or IR the passes cannot handle.

use thiserror::Error;

/// An error of the quantization library; every variant says what to fix.
#[derive(Debug, Error)]
pub enum QuantError {
    /// An unknown scheme, or options it cannot take.
    #[error("{0}")]
    Scheme(String),
    /// An unknown calibrator or a bad calibrator option.
    #[error("{0}")]
    Calibrator(String),
    /// Calibration data that cannot be used: the message names the sample and the input.
    #[error("{0}")]
    Data(String),
    /// A parameter file that cannot be read or written.
    #[error("{0}")]
    Params(String),
    /// A per-layer override that cannot be parsed.
    #[error("{0}")]
    Override(String),
    /// The interpreter failed while calibrating.
    #[error("calibration run failed on {sample}: {error}")]
    Run {
        /// The sample.
        sample: String,
        /// What the interpreter said (boxed: it is large, and rare).
        error: Box<nart_interp::InterpError>,
    },
    /// IR the passes cannot handle.
    #[error("{0}")]
    Ir(String),
    /// Evaluation data or labels that cannot be used, or an evaluation run that failed (the
    /// accuracy guard): the message names the file, the sample and the input.
    #[error("{0}")]
    Eval(String),
}
