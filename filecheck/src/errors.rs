//! Typed errors of the library and helpers to word them as LLVM does.

use std::io;

/// Errors from parsing a FileCheck or nart-lit command line, or from reading the lit config.
#[derive(Debug, thiserror::Error)]
pub enum FileCheckError {
    /// An option that does not exist.
    #[error("Unknown command line argument '{0}'.")]
    UnknownArgument(String),
    /// An option that needs a value got none.
    #[error(
        "Not enough positional command line arguments specified! (option '{0}' needs a value)"
    )]
    MissingValue(String),
    /// A value that the option does not accept.
    #[error("Cannot find option named '{value}' for '{option}'!")]
    BadValue {
        /// The option.
        option: String,
        /// The value.
        value: String,
    },
    /// More than one positional argument.
    #[error("Too many positional arguments specified!")]
    TooManyPositional,
    /// A malformed `lit.toml`.
    #[error("{path}:{line}: {msg}")]
    Config {
        /// The config file.
        path: String,
        /// The line.
        line: usize,
        /// What is wrong.
        msg: String,
    },
    /// An I/O error.
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// The wording LLVM's `std::error_code::message()` gives for common I/O errors.
pub fn io_message(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "No such file or directory".into(),
        io::ErrorKind::PermissionDenied => "Permission denied".into(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_string(),
                None => s,
            }
        }
    }
}
