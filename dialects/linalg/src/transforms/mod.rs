//! The passes of the `linalg` dialect, one per file.

pub mod generalize;
