//! The unit tests' harness: [`TestIr`] from `nart-test-dialect` builds the IR, and
//! [`RunPipeline`] runs pipelines of this crate's passes on it.

use nart_pass::{PassManager, PassManagerError, PassRegistry};
pub use nart_test_dialect::TestIr;

/// Runs pipelines of this crate's passes on the module of a [`TestIr`].
pub trait RunPipeline {
    /// The pass manager of `pipeline` (panics on a bad pipeline).
    fn pass_manager(&self, pipeline: &str) -> PassManager;
    /// Runs `pipeline`; returns what the passes printed.
    fn try_pipeline(&mut self, pipeline: &str) -> Result<String, PassManagerError>;
    /// Runs `pipeline`, which must succeed; returns what the passes printed.
    fn run_pipeline(&mut self, pipeline: &str) -> String;
}

impl RunPipeline for TestIr {
    fn pass_manager(&self, pipeline: &str) -> PassManager {
        let mut registry = PassRegistry::new();
        crate::register(&mut registry);
        PassManager::parse(pipeline, &registry).unwrap_or_else(|e| panic!("{e}"))
    }

    fn try_pipeline(&mut self, pipeline: &str) -> Result<String, PassManagerError> {
        let mut pm = self.pass_manager(pipeline);
        let mut out = Vec::new();
        pm.run(&mut self.ctx, self.module, &mut out)?;
        Ok(String::from_utf8(out).expect("pass output is UTF-8"))
    }

    fn run_pipeline(&mut self, pipeline: &str) -> String {
        match self.try_pipeline(pipeline) {
            Ok(out) => out,
            Err(e) => panic!("{e}: {:?}", e.diagnostics()),
        }
    }
}
