//! Bufferization: from tensors at the structured level to buffers (memrefs), and one arena
//! per function for the intermediate buffers, with offsets planned at compile time.

#![deny(missing_docs)]

pub mod arena;
