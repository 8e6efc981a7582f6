//! The simulator, the toy NPU's runtime: it loads a [`Program`] and runs it with the exact
//! integer kernels of `nart_tensor::qnn`, so that it is bit-exact with nart's interpreter.

use nart_target_rt::{Artifact, Executable, RtError, TargetRuntime};
use nart_tensor::qnn::{self, Activation, ConvAttrs, Output, PoolAttrs, QParams, Rounding};
use nart_tensor::{DType, Tensor};

use crate::program::{Program, FORMAT};

/// Loads toy NPU programs.
pub struct Simulator;

/// A loaded program, its quantizations and constants decoded.
struct Loaded {
    p: Program,
    quant: Vec<QParams>,
    consts: Vec<(usize, Tensor)>,
}

fn corrupt(m: String) -> RtError {
    RtError::corrupt(crate::NAME, m)
}

fn dtype(name: &str) -> Result<DType, RtError> {
    DType::from_name(name).ok_or_else(|| corrupt(format!("unknown dtype '{name}'")))
}

impl TargetRuntime for Simulator {
    fn target(&self) -> &str {
        crate::NAME
    }

    fn load(&self, artifact: &Artifact) -> Result<Box<dyn Executable>, RtError> {
        artifact.expect_format(FORMAT)?;
        let p = Program::from_bytes(&artifact.bytes)?;
        let quant = p
            .quant
            .iter()
            .cloned()
            .map(|(d, min, max, bits, scales, zps, axis)| {
                let mut q = QParams::per_tensor(dtype(&d)?, 1.0, 0).with_range(min, max);
                (q.bits, q.scales, q.zero_points, q.axis) = (bits, scales, zps, axis);
                Ok(q)
            });
        let quant = quant.collect::<Result<_, RtError>>()?;
        let consts = p.consts.iter().map(|(slot, d, shape, values)| {
            let v = values.iter().map(|&x| x.into()).collect();
            let t = Tensor::from_i128(dtype(d)?, shape.clone(), v);
            Ok((*slot, t.map_err(|e| corrupt(e.to_string()))?))
        });
        let consts = consts.collect::<Result<_, RtError>>()?;
        Ok(Box::new(Loaded { p, quant, consts }))
    }
}

impl Executable for Loaded {
    fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, RtError> {
        let (want, got) = (self.p.inputs.len(), inputs.len());
        if want != got {
            return Err(RtError::inputs(format!(
                "expected {want} inputs, got {got}"
            )));
        }
        let n = self.quant.len();
        let oob = |s: usize| corrupt(format!("slot {s} out of range ({n} slots)"));
        let mut slots: Vec<Option<Tensor>> = vec![None; n];
        let given = self.p.inputs.iter().copied().zip(inputs.iter().cloned());
        for (s, t) in self.consts.iter().cloned().chain(given) {
            *slots.get_mut(s).ok_or_else(|| oob(s))? = Some(t);
        }
        let get = |slots: &[Option<Tensor>], s: usize| {
            let t = slots.get(s).ok_or_else(|| oob(s))?.clone();
            t.ok_or_else(|| RtError::run(format!("slot {s} read before it is written")))
        };
        for ins in &self.p.instrs {
            let ints = |n: &str| ins.ints.get(n).cloned().unwrap_or_default();
            let args = ins
                .args
                .iter()
                .map(|&s| get(&slots, s))
                .collect::<Result<Vec<_>, _>>()?;
            let q = |k: usize| &self.quant[ins.args[k]];
            let rounding = match ins.round.as_str() {
                "half_even" => Rounding::HalfEven,
                "half_away" => Rounding::HalfAway,
                "half_up" => Rounding::HalfUp,
                r => return Err(corrupt(format!("unknown rounding '{r}'"))),
            };
            let act = if ins.relu {
                Activation::Relu
            } else {
                Activation::None
            };
            let out = Output {
                q: self.quant.get(ins.y).ok_or_else(|| oob(ins.y))?,
                act,
                rounding,
            };
            let (strides, pads, dilations) = (ints("strides"), ints("pads"), ints("dilations"));
            let r = match (ins.op.as_str(), args.as_slice()) {
                ("toynpu.conv", [x, w, b @ ..]) if b.len() < 2 => {
                    let group = ints("group").first().copied().unwrap_or(1);
                    let attrs = ConvAttrs {
                        strides,
                        pads,
                        dilations,
                        group,
                    };
                    qnn::conv(x, q(0), w, q(1), b.first(), &attrs, out)
                }
                ("toynpu.add", [a, b]) => qnn::add(a, q(0), b, q(1), out),
                ("toynpu.max_pool", [x]) => {
                    let kernel = ints("kernel_shape");
                    let attrs = PoolAttrs {
                        kernel,
                        strides,
                        pads,
                        dilations,
                        count_include_pad: false,
                    };
                    qnn::max_pool(x, q(0), &attrs)
                }
                (op, a) => {
                    return Err(corrupt(format!(
                        "no instruction '{op}' of {} operands",
                        a.len()
                    )))
                }
            };
            slots[ins.y] = Some(r.map_err(|e| RtError::run(e.to_string()))?);
        }
        self.p.outputs.iter().map(|&s| get(&slots, s)).collect()
    }
}
