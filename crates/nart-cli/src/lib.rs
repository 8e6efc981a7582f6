//! The library behind the `nart` binary: loading a model for the interpreter, reading and writing
//! test data, and the subcommands.

#![deny(missing_docs)]

pub mod auto;
pub mod commands;
pub mod guard;
pub mod memory;
pub mod package;
pub mod partition;
pub mod quantize;
pub mod tensor_io;
