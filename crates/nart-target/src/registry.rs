//! [`TargetRegistry`]: targets by name.

use nart_target_rt::RuntimeRegistry;

use crate::target::Target;

/// A name that no registered target has.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown target '{name}' (known targets: {known})")]
pub struct UnknownTarget {
    /// The name asked for.
    pub name: String,
    /// The registered names, comma-separated.
    pub known: String,
}

/// Registered targets, in registration order.
#[derive(Default)]
pub struct TargetRegistry {
    targets: Vec<Box<dyn Target>>,
}

impl std::fmt::Debug for TargetRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl TargetRegistry {
    /// An empty registry.
    pub fn new() -> TargetRegistry {
        TargetRegistry::default()
    }

    /// The targets nart itself has: `interp`, the reference and the fallback.
    pub fn builtin() -> TargetRegistry {
        let mut r = TargetRegistry::new();
        r.register(Box::new(crate::interp::InterpTarget::new()));
        r
    }

    /// Registers `target`; a later target of the same name replaces an earlier one, in place.
    pub fn register(&mut self, target: Box<dyn Target>) {
        match self.targets.iter().position(|t| t.name() == target.name()) {
            Some(i) => self.targets[i] = target,
            None => self.targets.push(target),
        }
    }

    /// The target called `name`, if registered.
    pub fn lookup(&self, name: &str) -> Option<&dyn Target> {
        self.targets
            .iter()
            .find(|t| t.name() == name)
            .map(|t| t.as_ref())
    }

    /// The target called `name`, or an error listing the known names.
    pub fn get(&self, name: &str) -> Result<&dyn Target, UnknownTarget> {
        self.lookup(name).ok_or_else(|| UnknownTarget {
            name: name.to_string(),
            known: self.names().join(", "),
        })
    }

    /// The registered targets, in registration order.
    pub fn targets(&self) -> impl Iterator<Item = &dyn Target> {
        self.targets.iter().map(|t| t.as_ref())
    }

    /// The registered names, in registration order.
    pub fn names(&self) -> Vec<&str> {
        self.targets.iter().map(|t| t.name()).collect()
    }

    /// The runtimes of every registered target.
    pub fn runtimes(&self) -> RuntimeRegistry {
        let mut r = RuntimeRegistry::new();
        for t in &self.targets {
            r.register(t.runtime());
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::FakeTarget;

    #[test]
    fn lookup_register_and_errors() {
        let mut r = TargetRegistry::builtin();
        assert_eq!(r.names(), ["interp"]);
        r.register(Box::new(FakeTarget::int8("npu")));
        r.register(Box::new(FakeTarget::int8("dsp")));
        assert_eq!(r.names(), ["interp", "npu", "dsp"]);
        // Re-registering replaces in place.
        r.register(Box::new(FakeTarget::float("npu", &["Relu"])));
        assert_eq!(r.names(), ["interp", "npu", "dsp"]);
        assert_eq!(r.get("npu").map(|t| t.name()), Ok("npu"));
        let e = r.get("gpu").map(|t| t.name()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown target 'gpu' (known targets: interp, npu, dsp)"
        );
        assert_eq!(r.runtimes().targets(), ["interp", "npu", "dsp"]);
    }
}
