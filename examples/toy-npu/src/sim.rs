//! The simulator, the toy NPU's runtime: it loads a [`Program`] and runs it with the exact
//! integer kernels of `nart_tensor::qnn`, so that it is bit-exact with nart's interpreter.

use nart_target_rt::{Artifact, Executable, RtError, TargetRuntime};
use nart_tensor::qnn::{self, Activation, ConvAttrs, Output, PoolAttrs, QParams, Rounding};
use nart_tensor::{DType, Tensor};

use crate::program::{Instr, Program, FORMAT};

/// Loads toy NPU programs.
pub struct Simulator;

/// A loaded program: its quantizations and constants decoded.
struct Loaded {
    p: Program,
    quant: Vec<QParams>,
    consts: Vec<(usize, Tensor)>,
}

fn dtype(name: &str) -> Result<DType, RtError> {
    let bad = || RtError::corrupt(crate::NAME, format!("unknown dtype '{name}'"));
    DType::from_name(name).ok_or_else(bad)
}

fn rounding(r: &str) -> Result<Rounding, RtError> {
    match r {
        "half_even" => Ok(Rounding::HalfEven),
        "half_away" => Ok(Rounding::HalfAway),
        "half_up" => Ok(Rounding::HalfUp),
        _ => Err(RtError::corrupt(
            crate::NAME,
            format!("unknown rounding '{r}'"),
        )),
    }
}

impl TargetRuntime for Simulator {
    fn target(&self) -> &str {
        crate::NAME
    }

    fn load(&self, artifact: &Artifact) -> Result<Box<dyn Executable>, RtError> {
        artifact.expect_format(FORMAT)?;
        let p = Program::from_bytes(&artifact.bytes)?;
        let quant = p.quant.iter().map(|q| {
            let (scales, zero_points, axis) = (q.scales.clone(), q.zero_points.clone(), q.axis);
            let (min, max, bits, dtype) = (q.min, q.max, q.bits, dtype(&q.dtype)?);
            Ok(QParams {
                dtype,
                min,
                max,
                bits,
                scales,
                zero_points,
                axis,
                block_shape: None,
            })
        });
        let quant = quant.collect::<Result<_, RtError>>()?;
        let consts = p.consts.iter().map(|c| {
            let v = c.values.iter().map(|&x| x.into()).collect();
            let t = Tensor::from_i128(dtype(&c.dtype)?, c.shape.clone(), v);
            Ok((
                c.slot,
                t.map_err(|e| RtError::corrupt(crate::NAME, e.to_string()))?,
            ))
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
        let oob = |s: usize| RtError::run(format!("slot {s} out of range ({n} slots)"));
        let mut slots: Vec<Option<Tensor>> = vec![None; n];
        let given = self.p.inputs.iter().zip(inputs.iter().cloned());
        for (s, t) in self
            .consts
            .iter()
            .cloned()
            .chain(given.map(|(&s, t)| (s, t)))
        {
            *slots.get_mut(s).ok_or_else(|| oob(s))? = Some(t);
        }
        let get = |slots: &[Option<Tensor>], s: usize| {
            let t = slots.get(s).ok_or_else(|| oob(s))?.as_ref();
            t.ok_or_else(|| RtError::run(format!("slot {s} read before it is written")))
                .map(|t| (t.clone(), &self.quant[s]))
        };
        let out = |y: usize, relu: bool, r: &str| -> Result<Output<'_>, RtError> {
            let act = if relu {
                Activation::Relu
            } else {
                Activation::None
            };
            let q = self.quant.get(y).ok_or_else(|| oob(y))?;
            Ok(Output {
                q,
                act,
                rounding: rounding(r)?,
            })
        };
        for ins in &self.p.instrs {
            let (y, r) = match ins {
                Instr::Conv {
                    x,
                    w,
                    b,
                    y,
                    strides,
                    pads,
                    dilations,
                    group,
                    relu,
                    round,
                } => {
                    let ((xt, xq), (wt, wq)) = (get(&slots, *x)?, get(&slots, *w)?);
                    let bt = b.map(|b| get(&slots, b).map(|(t, _)| t)).transpose()?;
                    let (strides, pads) = (strides.clone(), pads.clone());
                    let attrs = ConvAttrs {
                        strides,
                        pads,
                        dilations: dilations.clone(),
                        group: *group,
                    };
                    let o = out(*y, *relu, round)?;
                    (*y, qnn::conv(&xt, xq, &wt, wq, bt.as_ref(), &attrs, o))
                }
                Instr::Add {
                    a,
                    b,
                    y,
                    relu,
                    round,
                } => {
                    let ((at, aq), (bt, bq)) = (get(&slots, *a)?, get(&slots, *b)?);
                    (*y, qnn::add(&at, aq, &bt, bq, out(*y, *relu, round)?))
                }
                Instr::MaxPool {
                    x,
                    y,
                    kernel,
                    strides,
                    pads,
                    dilations,
                } => {
                    let (xt, xq) = get(&slots, *x)?;
                    let (kernel, strides, pads) = (kernel.clone(), strides.clone(), pads.clone());
                    let dilations = dilations.clone();
                    let attrs = PoolAttrs {
                        kernel,
                        strides,
                        pads,
                        dilations,
                        count_include_pad: false,
                    };
                    (*y, qnn::max_pool(&xt, xq, &attrs))
                }
            };
            *slots.get_mut(y).ok_or_else(|| oob(y))? =
                Some(r.map_err(|e| RtError::run(e.to_string()))?);
        }
        self.p
            .outputs
            .iter()
            .map(|&s| get(&slots, s).map(|(t, _)| t))
            .collect()
    }
}
