//! Checks of node attributes that ONNX Runtime rejects a model for and that would otherwise
//! reach the interpreter: a window (kernel, strides, dilations) of a convolution or pool must be
//! positive.
//!
//! The importer runs [`check_node`] on each node after upgrading it, and reports its error as a
//! diagnostic naming the node; the node is then not imported.

use nart_onnx_proto::AttributeProto;

/// The ops whose `kernel_shape`, `strides` and `dilations` are windows over spatial dims.
const WINDOWED: &[&str] = &[
    "AveragePool",
    "Conv",
    "ConvInteger",
    "ConvTranspose",
    "DeformConv",
    "LpPool",
    "MaxPool",
    "MaxUnpool",
    "QLinearConv",
];

/// The window attributes, each of whose values must be at least 1.
const POSITIVE: &[&str] = &["kernel_shape", "strides", "dilations"];

/// Checks the attributes of a node of type `op_type` (after upgrading); the error says which
/// attribute is wrong and how.
pub(crate) fn check_node(op_type: &str, attrs: &[AttributeProto]) -> Result<(), String> {
    if !WINDOWED.contains(&op_type) {
        return Ok(());
    }
    for a in attrs {
        let name = a.name();
        if POSITIVE.contains(&name) && a.ints.iter().any(|&v| v < 1) {
            return Err(format!(
                "attribute '{name}' must hold positive values, but is {:?}",
                a.ints
            ));
        }
    }
    Ok(())
}
