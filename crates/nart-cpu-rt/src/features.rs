//! What the machine the runtime runs on can execute.

/// The architecture part of a target triple for this machine (`x86_64`, `aarch64`).
pub fn host_arch() -> &'static str {
    std::env::consts::ARCH
}

/// Whether this machine has the CPU feature `name` (Rust's spelling, as
/// `is_x86_feature_detected!` takes it); `None` for a name nart does not check.
pub fn host_has_feature(name: &str) -> Option<bool> {
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! check {
            ($($f:tt),*) => {
                match name {
                    $($f => Some(std::arch::is_x86_feature_detected!($f)),)*
                    _ => None,
                }
            };
        }
        check!(
            "sse2",
            "sse3",
            "ssse3",
            "sse4.1",
            "sse4.2",
            "popcnt",
            "avx",
            "avx2",
            "fma",
            "f16c",
            "bmi1",
            "bmi2",
            "lzcnt",
            "avx512f",
            "avx512bw",
            "avx512cd",
            "avx512dq",
            "avx512vl",
            "avx512vnni",
            "avx512bf16",
            "avxvnni"
        )
    }
    #[cfg(target_arch = "aarch64")]
    {
        macro_rules! check {
            ($($f:tt),*) => {
                match name {
                    $($f => Some(std::arch::is_aarch64_feature_detected!($f)),)*
                    _ => None,
                }
            };
        }
        check!("neon", "dotprod", "fp16", "i8mm", "bf16", "sve")
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = name;
        None
    }
}
