//! The simulator, the toy NPU's runtime: it loads a [`Program`] and runs it with the exact
//! integer kernels of `nart_tensor::qnn`, so that it is bit-exact with nart's interpreter.

use nart_target_rt::wire::{expect_inputs, Slots};
use nart_target_rt::{Artifact, Executable, RtError, TargetRuntime};
use nart_tensor::qnn::{self, Activation, ConvAttrs, Output, PoolAttrs, QParams, Rounding};
use nart_tensor::Tensor;

use crate::program::{Program, FORMAT};
use crate::NAME;

/// Loads toy NPU programs.
pub struct Simulator;

/// A loaded program, its quantizations and constants decoded.
struct Loaded {
    p: Program,
    quant: Vec<QParams>,
    consts: Vec<(usize, Tensor)>,
}

impl TargetRuntime for Simulator {
    fn target(&self) -> &str {
        NAME
    }

    fn load(&self, artifact: &Artifact) -> Result<Box<dyn Executable>, RtError> {
        artifact.expect_format(FORMAT)?;
        let p = Program::from_bytes(&artifact.bytes)?;
        let quant = p.quant.iter().map(|q| q.params(NAME));
        let quant = quant.collect::<Result<_, _>>()?;
        let consts = p.consts.iter().map(|(s, t)| Ok((*s, t.tensor(NAME)?)));
        let consts = consts.collect::<Result<_, RtError>>()?;
        Ok(Box::new(Loaded { p, quant, consts }))
    }
}

impl Executable for Loaded {
    fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, RtError> {
        expect_inputs(self.p.inputs.len(), inputs)?;
        let mut slots = Slots::new(NAME, self.quant.len());
        let given = self.p.inputs.iter().copied().zip(inputs.iter().cloned());
        slots.set_all(self.consts.iter().cloned().chain(given))?;
        for ins in &self.p.instrs {
            let ints = |n: &str| -> Vec<usize> {
                let v = ins.ints.get(n).into_iter().flatten();
                v.map(|&x| x.max(0) as usize).collect()
            };
            let args = ins.args.iter().map(|&s| slots.get(s));
            let args = args.collect::<Result<Vec<_>, _>>()?;
            let bad = || RtError::corrupt(NAME, format!("unknown rounding '{}'", ins.round));
            let rounding = Rounding::from_name(&ins.round).ok_or_else(bad)?;
            let act = [Activation::None, Activation::Relu][ins.relu as usize];
            let oob = || RtError::corrupt(NAME, format!("result slot {} out of range", ins.y));
            let q = self.quant.get(ins.y).ok_or_else(oob)?;
            let out = Output { q, act, rounding };
            let q = |k: usize| &self.quant[ins.args[k]];
            let (strides, pads, dilations) = (ints("strides"), ints("pads"), ints("dilations"));
            // Every arg's slot was read, so `q` is in range.
            let r = match (ins.op.as_str(), args.as_slice()) {
                ("toynpu.conv", [x, w, b @ ..]) if b.len() < 2 => {
                    let group = ints("group").first().copied().unwrap_or(1);
                    let attrs = ConvAttrs {
                        strides,
                        pads,
                        dilations,
                        group,
                    };
                    qnn::conv(x, q(0), w, q(1), b.first().copied(), &attrs, out)
                }
                ("toynpu.add", [a, b]) => qnn::add(a, q(0), b, q(1), out),
                ("toynpu.max_pool", [x]) => {
                    let kernel = ints("kernel_shape");
                    let count_include_pad = false;
                    let attrs = PoolAttrs {
                        kernel,
                        strides,
                        pads,
                        dilations,
                        count_include_pad,
                    };
                    qnn::max_pool(x, q(0), &attrs)
                }
                (op, a) => {
                    let e = format!("no instruction '{op}' of {} operands", a.len());
                    return Err(RtError::corrupt(NAME, e));
                }
            };
            slots.set(ins.y, r.map_err(|e| RtError::run(e.to_string()))?)?;
        }
        self.p
            .outputs
            .iter()
            .map(|&s| slots.get(s).cloned())
            .collect()
    }
}
