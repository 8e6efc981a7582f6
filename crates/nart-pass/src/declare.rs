//! The declaration macros: a pass, its options and its enum options are each declared once,
//! and everything the pass manager, the registry and the docs need is generated.
//!
//! - [`pass_options!`](crate::pass_options): a struct whose fields are the options.
//! - [`option_enum!`](crate::option_enum): a Rust enum usable as an option type.
//! - [`declare_pass!`](crate::declare_pass): the pass struct, its [`PassInfo`](crate::PassInfo)
//!   and its [`PassDecl`](crate::PassDecl) implementation; the pass then implements only
//!   [`Pass::run`](crate::Pass::run).
//!
//! A whole pass with options, as a crate outside nart would write it:
//!
//! ```
//! use nart_ir::{Context, Op};
//! use nart_pass::{Pass, PassFailure, PassRegistry, PassState};
//!
//! nart_pass::option_enum! {
//!     /// How hard `tile` tries.
//!     pub enum Effort {
//!         /// Only the obvious cases.
//!         Low = "low",
//!         /// Everything.
//!         High = "high",
//!     }
//! }
//!
//! nart_pass::pass_options! {
//!     /// The options of `tile`.
//!     pub struct TileOptions {
//!         /// Tile size
//!         #[name = "tile-size"]
//!         pub tile_size: i64 = 32,
//!         /// How hard to try
//!         #[name = "effort"]
//!         pub effort: Effort = Effort::Low,
//!         /// Ops to leave alone
//!         #[name = "skip"]
//!         pub skip: Vec<String> = [],
//!     }
//! }
//!
//! nart_pass::declare_pass! {
//!     /// The `tile` pass.
//!     pub struct TilePass {
//!         argument: "tile",
//!         name: "Tile",
//!         summary: "Tile loops",
//!         description: "Tiles every loop by `tile-size`.",
//!         options: TileOptions,
//!         statistics: ["num-tiled" => "Number of loops tiled"],
//!     }
//! }
//!
//! impl Pass for TilePass {
//!     fn run(&mut self, _: &mut Context, _: Op, st: &mut PassState<'_>) -> Result<(), PassFailure> {
//!         // The options are typed fields: a misspelled name does not compile.
//!         if self.opts.effort == Effort::High {
//!             st.add_stat("num-tiled", self.opts.tile_size as u64);
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let mut registry = PassRegistry::new();
//! registry.register(|| Box::new(TilePass::new()));
//! let pass = registry.create("tile", "effort=high skip=a,b").unwrap().unwrap();
//! assert_eq!(pass.pipeline_text(), "tile{effort=high skip=a,b tile-size=32}");
//! assert!(registry.list_passes().contains("    --tile-size=<long>"));
//! ```

/// Declares a pass's options as a struct whose fields are the options.
///
/// Each field carries, in this order: its doc comment, which is also the help text of
/// `--list-passes` and the docs (written as MLIR writes option help, without a final period);
/// `#[name = "kebab-name"]`, its name in pipelines; its visibility, name and type (`bool`,
/// `i64`, `String`, `Vec<String>` or an [`option_enum!`](crate::option_enum) enum); and
/// `= default`, any expression that converts `Into` the type (`10`, `true`, `"text"`, `[]`,
/// `Mode::Fast`).
///
/// The struct derives `Clone`, `Debug`, `PartialEq` and `Eq`, implements `Default` with the
/// declared defaults and [`PassOptions`](crate::PassOptions), and gets a `DECLS` constant, the
/// declaration table.
/// See the [module example](crate::declare) for a whole pass.
///
/// A misspelled option is a compile error, not a panic at run time:
///
/// ```compile_fail
/// nart_pass::pass_options! {
///     /// The options.
///     pub struct Options {
///         /// Max. iterations
///         #[name = "max-iterations"]
///         pub max_iterations: i64 = 10,
///     }
/// }
/// let n = Options::default().max_iteration;
/// ```
#[macro_export]
macro_rules! pass_options {
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                #[name = $option:literal]
                $field_vis:vis $field:ident : $ty:ty = $default:expr
            ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        $vis struct $name {
            $(
                $(#[doc = $doc])*
                $field_vis $field: $ty,
            )*
        }

        impl ::core::default::Default for $name {
            fn default() -> Self {
                Self {
                    $($field: ::core::convert::Into::<$ty>::into($default),)*
                }
            }
        }

        impl $name {
            /// The declarations of the options, in declaration order.
            pub const DECLS: &'static [$crate::OptionDecl] = &[
                $(
                    $crate::OptionDecl {
                        name: $option,
                        help: $crate::__doc_text(::core::concat!($($doc),*)),
                        kind: <$ty as $crate::OptionType>::KIND,
                        default: || {
                            $crate::OptionType::to_option_value(
                                &::core::convert::Into::<$ty>::into($default),
                            )
                        },
                    },
                )*
            ];
        }

        impl $crate::PassOptions for $name {
            fn decls(&self) -> &'static [$crate::OptionDecl] {
                Self::DECLS
            }

            fn values(&self) -> ::std::vec::Vec<$crate::OptionValue> {
                ::std::vec![$($crate::OptionType::to_option_value(&self.$field)),*]
            }

            fn set(
                &mut self,
                name: &str,
                text: &str,
            ) -> ::core::result::Result<(), ::std::string::String> {
                $(
                    if name == $option {
                        self.$field = <$ty as $crate::OptionType>::parse_option(text)?;
                        return ::core::result::Result::Ok(());
                    }
                )*
                let _ = text;
                ::core::result::Result::Err(::std::format!("no such option '{name}'"))
            }
        }
    };
}

/// Declares a Rust enum usable as an option type: each variant is spelled in pipelines as the
/// string after `=`, and its doc comment is its help text in `--list-passes` and the docs.
///
/// The enum derives `Clone`, `Copy`, `Debug`, `PartialEq`, `Eq` and `Hash`, implements
/// [`OptionType`](crate::OptionType), and gets `CASES` (the declaration table) and `name()`
/// (the spelling).
/// See the [module example](crate::declare).
#[macro_export]
macro_rules! option_enum {
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $variant:ident = $case:literal
            ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $(
                $(#[doc = $doc])*
                $variant,
            )*
        }

        impl $name {
            /// The cases, in declaration order, as `--list-passes` shows them.
            pub const CASES: &'static [$crate::EnumCase] = &[
                $(
                    $crate::EnumCase {
                        name: $case,
                        help: $crate::__doc_text(::core::concat!($($doc),*)),
                    },
                )*
            ];

            /// The variants, in the order of `CASES`.
            const VARIANTS: &'static [$name] = &[$($name::$variant),*];

            /// The spelling of the case in a pipeline.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $case,)*
                }
            }
        }

        impl $crate::OptionType for $name {
            const KIND: $crate::OptionKind = $crate::OptionKind::Enum(Self::CASES);

            fn parse_option(
                text: &str,
            ) -> ::core::result::Result<Self, ::std::string::String> {
                $crate::parse_enum_case(Self::CASES, text).map(|i| Self::VARIANTS[i])
            }

            fn to_option_value(&self) -> $crate::OptionValue {
                $crate::OptionValue::Str(::std::string::ToString::to_string(self.name()))
            }
        }
    };
}

/// Declares a pass: the struct, its [`PassInfo`](crate::PassInfo) (MLIR's `Passes.td`
/// record) and everything of [`Pass`](crate::Pass) but `run`, which the pass implements.
///
/// The fields come in this order; `anchor`, `options` and `statistics` may be left out (any
/// op, no options, no statistics):
///
/// - `argument`: the kebab-case name in pipelines and on the command line;
/// - `name`: the display name in IR dumps and reports;
/// - `summary`: one line for `--list-passes`;
/// - `description`: Markdown for the docs;
/// - `anchor`: the op name the pass runs on;
/// - `options`: a struct declared with [`pass_options!`](crate::pass_options);
/// - `statistics`: `["name" => "description", ...]`.
///
/// The struct has one field, `pub opts`, the typed option values, derives `Clone`, `Debug` and
/// `Default`, and gets `INFO` (the declaration), `new()` (default options) and
/// `with_options(opts)`.
/// See the [module example](crate::declare).
#[macro_export]
macro_rules! declare_pass {
    (@options) => { $crate::NoOptions };
    (@options $options:ty) => { $options };
    (@anchor) => { ::core::option::Option::None };
    (@anchor $anchor:literal) => { ::core::option::Option::Some($anchor) };
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            argument: $argument:literal,
            name: $display:literal,
            summary: $summary:literal,
            description: $description:expr,
            $(anchor: $anchor:literal,)?
            $(options: $options:ty,)?
            $(statistics: [$($stat:literal => $stat_desc:literal),* $(,)?],)?
        }
    ) => {
        $(#[$attr])*
        #[derive(Clone, Debug, Default)]
        $vis struct $name {
            /// The option values.
            pub opts: $crate::declare_pass!(@options $($options)?),
        }

        impl $name {
            /// The declaration of the pass.
            pub const INFO: &'static $crate::PassInfo = &$crate::PassInfo {
                argument: $argument,
                name: $display,
                summary: $summary,
                description: $description,
                anchor: $crate::declare_pass!(@anchor $($anchor)?),
                options: <$crate::declare_pass!(@options $($options)?)>::DECLS,
                statistics: &[$($($crate::StatisticDecl { name: $stat, desc: $stat_desc }),*)?],
            };

            /// The pass with default options.
            pub fn new() -> Self {
                <Self as ::core::default::Default>::default()
            }

            /// The pass with the options `opts`.
            pub fn with_options(opts: $crate::declare_pass!(@options $($options)?)) -> Self {
                Self { opts }
            }
        }

        impl $crate::PassDecl for $name {
            fn info(&self) -> &'static $crate::PassInfo {
                Self::INFO
            }

            fn options(&self) -> &dyn $crate::PassOptions {
                &self.opts
            }

            fn options_mut(&mut self) -> &mut dyn $crate::PassOptions {
                &mut self.opts
            }

            fn clone_boxed(&self) -> ::std::boxed::Box<dyn $crate::Pass> {
                ::std::boxed::Box::new(::core::clone::Clone::clone(self))
            }
        }
    };
}
