//! [`Error`]: everything that can go wrong opening, loading or running a package.

use nart_target_rt::RtError;

/// What went wrong, with the names a user needs to fix it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The package file cannot be read.
    #[error("cannot read '{path}': {error}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error (not a `source`: the message already includes it).
        error: std::io::Error,
    },
    /// The bytes do not start with the package magic.
    #[error("not a nart package: the file does not start with the package magic bytes")]
    Magic,
    /// The package was written by a newer (or unknown) format version.
    #[error(
        "package format version {found} is not supported: this runtime (nart-rt {runtime}) reads format version {supported}{hint}",
        hint = if *found > *supported { "; the package is newer, use a newer nart" } else { "" }
    )]
    Version {
        /// The package's format version.
        found: u32,
        /// The version this runtime reads.
        supported: u32,
        /// This runtime's crate version.
        runtime: &'static str,
    },
    /// The file ends before a part it declares.
    #[error("truncated package: {what} needs bytes up to offset {need}, but the file has {have}")]
    Truncated {
        /// The part.
        what: String,
        /// The offset its end needs.
        need: u64,
        /// The file's length.
        have: u64,
    },
    /// A part's checksum does not match its bytes.
    #[error("corrupt package: the checksum of {what} is {actual:#010x}, the package says {expected:#010x}")]
    Checksum {
        /// The part (`the manifest`, `blob #1`).
        what: String,
        /// The checksum written in the package.
        expected: u32,
        /// The checksum of the bytes found.
        actual: u32,
    },
    /// The manifest is not valid JSON of the schema, or is inconsistent.
    #[error("bad package manifest: {0}")]
    Manifest(String),
    /// A blob lies outside the data section, or the layout is otherwise broken.
    #[error("corrupt package: {0}")]
    Layout(String),
    /// A segment's artifact cannot be loaded.
    #[error("cannot load {step}: {error}")]
    Load {
        /// The step (`step #0 (segment on 'interp')`).
        step: String,
        /// The target runtime's error (not a `source`: the message already includes it).
        error: RtError,
    },
    /// The inputs given do not match the manifest.
    #[error("bad inputs: {0}")]
    Inputs(String),
    /// A step failed while running.
    #[error("{step} failed: {message}")]
    Run {
        /// The step.
        step: String,
        /// What failed.
        message: String,
    },
}
