//! `#[op(...)]`: declares an op once, on a unit struct, and generates everything else.
//!
//! ```ignore
//! #[op(
//!     name = "arith.addi",
//!     def = ADDI,
//!     operands(lhs: c::SIGNLESS_INTEGER_LIKE, rhs: c::SIGNLESS_INTEGER_LIKE),
//!     results(result: c::SIGNLESS_INTEGER_LIKE),
//!     attrs(overflowFlags: OVERFLOW_FLAGS),
//!     traits(Pure, Commutative, SameOperandsAndResultType, Elementwise),
//!     format = "$lhs `,` $rhs (`overflow` `` $overflowFlags^)? attr-dict `:` type($result)",
//!     fold = fold::addi,
//! )]
//! /// integer addition operation
//! ///
//! /// Adds two integers ...
//! pub struct AddIOp;
//! ```
//!
//! generates:
//! - `pub static ADDI: OpDef` (with `def = NAME`; otherwise the definition lives inside
//!   `AddIOp::def()`), whose summary is the first doc line and whose description is the rest;
//! - `pub struct AddIOp(pub Op)`, a typed handle, implementing `nart_ir::registry::TypedOp`
//!   (`ctx.dyn_cast::<AddIOp>(op)`), with accessors named after the declaration
//!   (`add.lhs(ctx)`, `add.overflow_flags(ctx)`; variadic groups give slices);
//! - `AddIOp::state(u, loc, ...)` (an `OperationState`) and `AddIOp::build(b, loc, ...)`
//!   (creates the op through any `OpBuilder`: an `IrBuilder` or a `PatternRewriter`), taking
//!   result types (unless `SameOperandsAndResultType` or `InferTypeOpInterface` gives them),
//!   operands, required attributes without a default, and successors, in that order;
//! - a build-time check of the assembly format: it is compiled with `nart-asm-format` (the
//!   compiler `nart-ir` runs), and every operand and result type must be written, inferable
//!   (`SameOperandsAndResultType`, `SameTypeOperands`, `InferTypeOpInterface`, a typed
//!   attribute giving a single result's type) or buildable (checked by a `const` assertion on
//!   the operand's type constraint). A bad format is a compile error pointing at the string.
//!
//! Keys may repeat; a later one replaces an earlier one, so that a `macro_rules!` family base
//! can pass shared keys first and the op its own after them (like `..BASE` in a struct
//! literal). Keys: `name`, `def`, `summary`, `operands(...)`, `results(...)` (each
//! `name: CONSTRAINT`, `name: variadic(CONSTRAINT)` or `name: optional(CONSTRAINT)`),
//! `attrs(name: ATTR_DEF, other: optional(ATTR_DEF))` (the `AttrDef`'s `optional` must agree,
//! checked at compile time), `regions(name: REGION_DEF, ...)`, `successors(a, b)` or
//! `successors(variadic)`, `traits(...)` (a bare name is a core trait, `Trait::Name`),
//! `interfaces(Interface => Impl, ...)`, `parents("d.op", ...)`, `format`, `verify`, `fold`,
//! `canonicalize(PATTERN, ...)`, `parse`, `print`.
//!
//! # Build-time errors
//!
//! A variable the op does not declare:
//!
//! ```compile_fail
//! use nart_ir::registry::constraints as c;
//! #[nart_macros::op(
//!     name = "t.neg",
//!     operands(x: c::ANY),
//!     results(r: c::ANY),
//!     format = "$y attr-dict `:` type($r)",
//! )]
//! /// negates
//! pub struct NegOp;
//! ```
//!
//! An operand type the format neither writes nor can infer (`x` is `any type`, not buildable):
//!
//! ```compile_fail
//! use nart_ir::registry::constraints as c;
//! #[nart_macros::op(
//!     name = "t.neg",
//!     operands(x: c::ANY),
//!     results(r: c::ANY),
//!     format = "$x attr-dict `:` type($r)",
//! )]
//! /// negates
//! pub struct NegOp;
//! ```
//!
//! The same op with `traits(SameOperandsAndResultType)` compiles:
//!
//! ```
//! use nart_ir::registry::constraints as c;
//! #[nart_macros::op(
//!     name = "t.neg",
//!     operands(x: c::ANY),
//!     results(r: c::ANY),
//!     traits(Pure, SameOperandsAndResultType),
//!     format = "$x attr-dict `:` type($r)",
//! )]
//! /// negates
//! pub struct NegOp;
//! assert_eq!(NegOp::NAME, "t.neg");
//! ```
//!
//! An attribute declared optional whose `AttrDef` says required:
//!
//! ```compile_fail
//! use nart_ir::registry::{constraints as c, AttrDef};
//! #[nart_macros::op(
//!     name = "t.tag",
//!     attrs(tag: optional(AttrDef::required("tag", c::STRING_ATTR, ""))),
//! )]
//! /// tags
//! pub struct TagOp;
//! ```

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, ItemStruct, LitStr, Path, Token};

use nart_asm_format::{Arity, Signature};

/// Declares an op; see the crate docs.
#[proc_macro_attribute]
pub fn op(args: TokenStream, item: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(args as Args);
    let item = syn::parse_macro_input!(item as ItemStruct);
    match expand(args, item) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

struct ValueSpec {
    name: Ident,
    arity: Arity,
    constraint: Expr,
}

struct NamedExpr {
    name: Ident,
    expr: Expr,
}

enum Successors {
    Named(Vec<Ident>),
    Variadic,
}

#[derive(Default)]
struct Spec {
    name: Option<LitStr>,
    def: Option<Ident>,
    summary: Option<LitStr>,
    operands: Vec<ValueSpec>,
    results: Vec<ValueSpec>,
    attrs: Vec<ValueSpec>,
    regions: Vec<NamedExpr>,
    successors: Option<Successors>,
    traits: Vec<Path>,
    interfaces: Vec<(Path, Expr)>,
    parents: Vec<LitStr>,
    format: Option<LitStr>,
    verify: Option<Expr>,
    fold: Option<Expr>,
    canonicalize: Vec<Expr>,
    parse: Option<Expr>,
    print: Option<Expr>,
}

struct Args(Spec);

fn parse_value_spec(input: ParseStream) -> syn::Result<ValueSpec> {
    let name = Ident::parse_any(input)?;
    input.parse::<Token![:]>()?;
    let expr: Expr = input.parse()?;
    if let Expr::Call(call) = &expr {
        if let Expr::Path(p) = &*call.func {
            let arity = if p.path.is_ident("variadic") {
                Some(Arity::Variadic)
            } else if p.path.is_ident("optional") {
                Some(Arity::Optional)
            } else {
                None
            };
            if let Some(arity) = arity {
                if call.args.len() != 1 {
                    return Err(syn::Error::new_spanned(
                        call,
                        "variadic(...) and optional(...) take one constraint",
                    ));
                }
                return Ok(ValueSpec {
                    name,
                    arity,
                    constraint: call.args[0].clone(),
                });
            }
        }
    }
    Ok(ValueSpec {
        name,
        arity: Arity::Single,
        constraint: expr,
    })
}

fn parse_named_expr(input: ParseStream) -> syn::Result<NamedExpr> {
    let name = Ident::parse_any(input)?;
    input.parse::<Token![:]>()?;
    Ok(NamedExpr {
        name,
        expr: input.parse()?,
    })
}

fn parse_interface(input: ParseStream) -> syn::Result<(Path, Expr)> {
    let iface: Path = input.parse()?;
    input.parse::<Token![=>]>()?;
    Ok((iface, input.parse()?))
}

fn list<T>(input: ParseStream, f: fn(ParseStream) -> syn::Result<T>) -> syn::Result<Vec<T>> {
    let content;
    syn::parenthesized!(content in input);
    let items = Punctuated::<T, Token![,]>::parse_terminated_with(&content, f)?;
    Ok(items.into_iter().collect())
}

impl Parse for Args {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut s = Spec::default();
        while !input.is_empty() {
            // `def`, `fn`-like keywords are not keys; every key is a plain identifier.
            let key: Ident = input.parse()?;
            let k = key.to_string();
            match k.as_str() {
                "name" | "summary" | "format" => {
                    input.parse::<Token![=]>()?;
                    let v: LitStr = input.parse()?;
                    match k.as_str() {
                        "name" => s.name = Some(v),
                        "summary" => s.summary = Some(v),
                        _ => s.format = Some(v),
                    }
                }
                "def" => {
                    input.parse::<Token![=]>()?;
                    s.def = Some(input.parse()?);
                }
                "verify" | "fold" | "parse" | "print" => {
                    input.parse::<Token![=]>()?;
                    let v: Expr = input.parse()?;
                    match k.as_str() {
                        "verify" => s.verify = Some(v),
                        "fold" => s.fold = Some(v),
                        "parse" => s.parse = Some(v),
                        _ => s.print = Some(v),
                    }
                }
                "operands" => s.operands = list(input, parse_value_spec)?,
                "results" => s.results = list(input, parse_value_spec)?,
                "attrs" => s.attrs = list(input, parse_value_spec)?,
                "regions" => s.regions = list(input, parse_named_expr)?,
                "traits" => s.traits = list(input, Path::parse)?,
                "interfaces" => s.interfaces = list(input, parse_interface)?,
                "parents" => s.parents = list(input, <LitStr as Parse>::parse)?,
                "canonicalize" => s.canonicalize = list(input, Expr::parse)?,
                "successors" => {
                    let names = list(input, Ident::parse)?;
                    s.successors = Some(if names.len() == 1 && names[0] == "variadic" {
                        Successors::Variadic
                    } else {
                        Successors::Named(names)
                    });
                }
                _ => return Err(syn::Error::new(key.span(), format!("unknown key '{k}'"))),
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(Args(s))
    }
}

/// `overflowFlags` → `overflow_flags`, `destOperands` → `dest_operands`.
fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

const RESERVED: [&str; 7] = ["op", "def", "build", "state", "from_op", "NAME", "cast"];

/// Rust's keywords, which become raw identifiers (`r#in`) as accessor and argument names.
const KEYWORDS: [&str; 38] = [
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "gen", "yield",
];

fn accessor_ident(name: &Ident) -> Ident {
    let s = snake(&name.unraw().to_string());
    if RESERVED.contains(&s.as_str()) {
        format_ident!("get_{}", s)
    } else if KEYWORDS.contains(&s.as_str()) {
        Ident::new_raw(&s, name.span())
    } else {
        Ident::new(&s, name.span())
    }
}

fn last_segment(p: &Path) -> String {
    p.segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

fn has_trait(spec: &Spec, name: &str) -> bool {
    spec.traits.iter().any(|t| last_segment(t) == name)
}

fn arity_tokens(a: Arity) -> TokenStream2 {
    match a {
        Arity::Single => quote!(::nart_ir::registry::Arity::Single),
        Arity::Optional => quote!(::nart_ir::registry::Arity::Optional),
        Arity::Variadic => quote!(::nart_ir::registry::Arity::Variadic),
    }
}

/// Splits doc attributes into (summary, description).
fn docs(item: &ItemStruct) -> (String, String) {
    let mut lines = Vec::new();
    for a in &item.attrs {
        if !a.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &a.meta {
            if let Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
            {
                let v = s.value();
                lines.push(v.strip_prefix(' ').unwrap_or(&v).to_string());
            }
        }
    }
    let text = lines.join("\n");
    let text = text.trim();
    match text.split_once("\n\n") {
        Some((first, rest)) => (first.trim().to_string(), rest.trim().to_string()),
        None => (text.to_string(), String::new()),
    }
}

/// Checks the assembly format at build time; returns `const` assertions for operands whose
/// type must be buildable.
fn check_format(spec: &Spec, op_name: &str) -> syn::Result<Vec<TokenStream2>> {
    let Some(fmt) = &spec.format else {
        return Ok(Vec::new());
    };
    let operand_names: Vec<String> = spec
        .operands
        .iter()
        .map(|o| o.name.unraw().to_string())
        .collect();
    let result_names: Vec<String> = spec
        .results
        .iter()
        .map(|o| o.name.unraw().to_string())
        .collect();
    let attr_names: Vec<String> = spec
        .attrs
        .iter()
        .map(|a| a.name.unraw().to_string())
        .collect();
    let region_names: Vec<String> = spec
        .regions
        .iter()
        .map(|a| a.name.unraw().to_string())
        .collect();
    let sig = Signature {
        operands: operand_names
            .iter()
            .zip(&spec.operands)
            .map(|(n, o)| (n.as_str(), o.arity))
            .collect(),
        results: result_names
            .iter()
            .zip(&spec.results)
            .map(|(n, o)| (n.as_str(), o.arity))
            .collect(),
        attrs: attr_names.iter().map(String::as_str).collect(),
        regions: region_names.iter().map(String::as_str).collect(),
        has_successors: spec.successors.is_some(),
        attr_sized_operand_segments: has_trait(spec, "AttrSizedOperandSegments"),
    };
    let elems = nart_asm_format::compile(&sig, &fmt.value()).map_err(|msg| {
        syn::Error::new(fmt.span(), format!("assembly format of '{op_name}': {msg}"))
    })?;
    if spec.parse.is_some() {
        // Hand-written hooks implement the syntax; the format documents it and must still
        // compile, but the hooks decide where the types come from.
        return Ok(Vec::new());
    }
    let spelled = nart_asm_format::spelled_types(&sig, &elems);
    let same_all = has_trait(spec, "SameOperandsAndResultType");
    let same_operands = has_trait(spec, "SameTypeOperands");
    let infers = spec
        .interfaces
        .iter()
        .any(|(i, _)| last_segment(i) == "InferTypeOpInterface");
    let any_operand_spelled = spelled.operands.iter().any(|&b| b);
    let any_spelled = any_operand_spelled || spelled.results.iter().any(|&b| b);
    let mut asserts = Vec::new();
    for (i, o) in spec.operands.iter().enumerate() {
        if spelled.operands[i]
            || (same_all && any_spelled)
            || (same_operands && any_operand_spelled)
        {
            continue;
        }
        let c = &o.constraint;
        let msg = format!(
            "assembly format of '{op_name}': the type of operand '{}' is neither written, \
             inferred nor buildable",
            o.name
        );
        asserts.push(quote! {
            const _: () = ::core::assert!((#c).buildable.is_some(), #msg);
        });
    }
    let typed_attr_in_format = spec.results.len() == 1 && !spec.attrs.is_empty();
    for (i, r) in spec.results.iter().enumerate() {
        if spelled.results[i] || (same_all && any_spelled) || infers || typed_attr_in_format {
            continue;
        }
        return Err(syn::Error::new(
            fmt.span(),
            format!(
                "assembly format of '{op_name}': the type of result '{}' is neither written \
                 nor inferable (SameOperandsAndResultType, InferTypeOpInterface)",
                r.name
            ),
        ));
    }
    Ok(asserts)
}

fn expand(Args(spec): Args, item: ItemStruct) -> syn::Result<TokenStream2> {
    let name_lit = spec
        .name
        .clone()
        .ok_or_else(|| syn::Error::new(Span::call_site(), "missing `name = \"dialect.op\"`"))?;
    let op_name = name_lit.value();
    if !item.fields.is_empty() {
        return Err(syn::Error::new_spanned(
            &item.fields,
            "#[op] goes on a unit struct (`pub struct AddIOp;`)",
        ));
    }
    let asserts = check_format(&spec, &op_name)?;
    let (doc_summary, description) = docs(&item);
    let summary = spec.summary.as_ref().map_or(doc_summary, LitStr::value);

    // ----- the OpDef -----
    let value_defs = |vs: &[ValueSpec]| {
        let items = vs.iter().map(|v| {
            let n = v.name.unraw().to_string();
            let c = &v.constraint;
            let a = arity_tokens(v.arity);
            quote!(::nart_ir::registry::ValueDef { name: #n, constraint: #c, arity: #a })
        });
        quote!(&[#(#items),*])
    };
    let operands = value_defs(&spec.operands);
    let results = value_defs(&spec.results);
    let attrs = spec.attrs.iter().map(|a| {
        let n = a.name.unraw().to_string();
        let e = &a.constraint;
        quote!(::nart_ir::registry::AttrDef { name: #n, ..#e })
    });
    let mut attr_asserts = Vec::new();
    for a in &spec.attrs {
        let e = &a.constraint;
        let optional =
            match a.arity {
                Arity::Single => false,
                Arity::Optional => true,
                Arity::Variadic => return Err(syn::Error::new_spanned(
                    e,
                    "an attribute is required (`name: DEF`) or optional (`name: optional(DEF)`)",
                )),
            };
        let msg = format!(
            "'{op_name}': attribute '{}' is declared {} here but its AttrDef says otherwise",
            a.name,
            if optional { "optional" } else { "required" }
        );
        attr_asserts.push(quote! {
            const _: () = ::core::assert!((#e).optional == #optional, #msg);
        });
    }
    let regions = spec.regions.iter().map(|a| {
        let n = a.name.unraw().to_string();
        let e = &a.expr;
        quote!(::nart_ir::registry::RegionDef { name: #n, ..#e })
    });
    let num_successors = match &spec.successors {
        None => quote!(Some(0)),
        Some(Successors::Variadic) => quote!(None),
        Some(Successors::Named(n)) => {
            let k = n.len();
            quote!(Some(#k))
        }
    };
    let traits = spec.traits.iter().map(|t| {
        if t.segments.len() == 1 && t.leading_colon.is_none() {
            quote!(::nart_ir::Trait::#t)
        } else {
            quote!(#t)
        }
    });
    let interfaces = spec
        .interfaces
        .iter()
        .map(|(i, e)| quote!(::nart_ir::interface_impl!(#i => #e)));
    let parents = &spec.parents;
    let opt = |e: &Option<Expr>| match e {
        Some(e) => quote!(Some(#e)),
        None => quote!(None),
    };
    let verify = opt(&spec.verify);
    let fold = opt(&spec.fold);
    let parse = opt(&spec.parse);
    let print = opt(&spec.print);
    let canonicalize = spec.canonicalize.iter();
    let format = match &spec.format {
        Some(f) => quote!(Some(#f)),
        None => quote!(None),
    };
    let def_value = quote! {
        ::nart_ir::OpDef {
            name: #name_lit,
            summary: #summary,
            description: #description,
            operands: #operands,
            results: #results,
            attrs: &[#(#attrs),*],
            regions: &[#(#regions),*],
            num_successors: #num_successors,
            traits: &[#(#traits),*],
            parents: &[#(#parents),*],
            verify: #verify,
            fold: #fold,
            canonicalize: &[#(&#canonicalize),*],
            assembly_format: #format,
            parse: #parse,
            print: #print,
            interfaces: &[#(#interfaces),*],
        }
    };
    let vis = &item.vis;
    let ident = &item.ident;
    let doc_attrs: Vec<_> = item
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .collect();
    let (def_item, def_fn) = match &spec.def {
        Some(d) => {
            let doc = format!("The declaration of `{op_name}`.");
            (
                quote! {
                    #[doc = #doc]
                    #vis static #d: ::nart_ir::OpDef = #def_value;
                },
                quote! { &#d },
            )
        }
        None => (
            quote! {},
            quote! {
                static DEF: ::nart_ir::OpDef = #def_value;
                &DEF
            },
        ),
    };

    // ----- accessors -----
    let all_single_before =
        |vs: &[ValueSpec], i: usize| vs[..=i].iter().all(|v| v.arity == Arity::Single);
    let mut accessors = Vec::new();
    for (group, (vs, is_result)) in [(&spec.operands, false), (&spec.results, true)]
        .into_iter()
        .enumerate()
    {
        let _ = group;
        for (i, v) in vs.iter().enumerate() {
            let m = accessor_ident(&v.name);
            let list = if is_result {
                quote!(ctx.results(self.0))
            } else {
                quote!(ctx.operands(self.0))
            };
            let what = if is_result { "result" } else { "operand" };
            let doc = format!(
                "The `{}` {what}{}.",
                v.name,
                match v.arity {
                    Arity::Single => "",
                    Arity::Optional => " (optional)",
                    Arity::Variadic => "s (variadic)",
                }
            );
            let range = quote! {
                ::nart_ir::registry::value_group(ctx, self.0, #is_result, #i)
            };
            accessors.push(match v.arity {
                Arity::Single if all_single_before(vs, i) => quote! {
                    #[doc = #doc]
                    pub fn #m(self, ctx: &::nart_ir::Context) -> ::nart_ir::Value {
                        #list[#i]
                    }
                },
                Arity::Single => {
                    let msg = format!("invariant: a verified '{op_name}' has its {what} groups");
                    quote! {
                        #[doc = #doc]
                        pub fn #m(self, ctx: &::nart_ir::Context) -> ::nart_ir::Value {
                            let r = #range.expect(#msg);
                            #list[r.start]
                        }
                    }
                }
                Arity::Optional => quote! {
                    #[doc = #doc]
                    pub fn #m(self, ctx: &::nart_ir::Context) -> ::core::option::Option<::nart_ir::Value> {
                        #range.and_then(|r| #list.get(r).and_then(|s| s.first().copied()))
                    }
                },
                Arity::Variadic => quote! {
                    #[doc = #doc]
                    pub fn #m(self, ctx: &::nart_ir::Context) -> &[::nart_ir::Value] {
                        match #range {
                            Some(r) => &#list[r],
                            None => &[],
                        }
                    }
                },
            });
        }
    }
    for a in &spec.attrs {
        let m = accessor_ident(&a.name);
        let n = a.name.unraw().to_string();
        let doc = format!("The `{n}` property.");
        accessors.push(quote! {
            #[doc = #doc]
            pub fn #m(self, ctx: &::nart_ir::Context) -> ::core::option::Option<::nart_ir::Attr> {
                ctx.attr(self.0, #n)
            }
        });
    }
    for (i, r) in spec.regions.iter().enumerate() {
        let m = accessor_ident(&r.name);
        let doc = format!("The `{}` region.", r.name);
        accessors.push(quote! {
            #[doc = #doc]
            pub fn #m(self, ctx: &::nart_ir::Context) -> ::nart_ir::Region {
                ctx.region(self.0, #i)
            }
        });
    }
    if let Some(Successors::Named(names)) = &spec.successors {
        for (i, s) in names.iter().enumerate() {
            let m = accessor_ident(s);
            let doc = format!("The `{s}` successor.");
            accessors.push(quote! {
                #[doc = #doc]
                pub fn #m(self, ctx: &::nart_ir::Context) -> ::nart_ir::Block {
                    ctx.successors(self.0)[#i]
                }
            });
        }
    }

    // ----- builders -----
    let same_all = has_trait(&spec, "SameOperandsAndResultType");
    let infers = spec
        .interfaces
        .iter()
        .any(|(i, _)| last_segment(i) == "InferTypeOpInterface");
    let first_single = spec.operands.first().filter(|o| o.arity == Arity::Single);
    let results_from_first = same_all && first_single.is_some();
    let fixed_results = spec.results.iter().all(|r| r.arity == Arity::Single);
    let mut params = Vec::new();
    let mut state_params = Vec::new();
    let mut result_stmts = Vec::new();
    for r in &spec.results {
        let p = format_ident!("{}_type", snake(&r.name.unraw().to_string()));
        let ty = match r.arity {
            Arity::Single => quote!(::nart_ir::Type),
            Arity::Optional => quote!(::core::option::Option<::nart_ir::Type>),
            Arity::Variadic => quote!(&[::nart_ir::Type]),
        };
        state_params.push(quote!(#p: #ty));
        result_stmts.push(match r.arity {
            Arity::Single => quote!(nart_result_types.push(#p);),
            Arity::Optional => quote!(nart_result_types.extend(#p);),
            Arity::Variadic => quote!(nart_result_types.extend_from_slice(#p);),
        });
    }
    let mut operand_stmts = Vec::new();
    let mut segment_exprs = Vec::new();
    let mut operand_params = Vec::new();
    for o in &spec.operands {
        let p = accessor_ident(&o.name);
        let (ty, stmt, seg) = match o.arity {
            Arity::Single => (
                quote!(::nart_ir::Value),
                quote!(nart_operands.push(#p);),
                quote!(1i64),
            ),
            Arity::Optional => (
                quote!(::core::option::Option<::nart_ir::Value>),
                quote!(nart_operands.extend(#p);),
                quote!(#p.is_some() as i64),
            ),
            Arity::Variadic => (
                quote!(&[::nart_ir::Value]),
                quote!(nart_operands.extend_from_slice(#p);),
                quote!(#p.len() as i64),
            ),
        };
        operand_params.push(quote!(#p: #ty));
        operand_stmts.push(stmt);
        segment_exprs.push(seg);
    }
    // Required attributes are builder arguments; optional ones are set on the state, and
    // defaulted ones come from `create_op`.
    let required_attrs: Vec<(Ident, String)> = spec
        .attrs
        .iter()
        .filter(|a| a.arity == Arity::Single)
        .map(|a| (accessor_ident(&a.name), a.name.unraw().to_string()))
        .collect();
    let mut attr_arg_params = Vec::new();
    let mut attr_push = Vec::new();
    for (p, n) in &required_attrs {
        attr_arg_params.push(quote!(#p: ::nart_ir::Attr));
        attr_push.push(quote!(nart_state = nart_state.prop(nart_u, #n, #p);));
    }
    let mut succ_params = Vec::new();
    let mut succ_stmts = Vec::new();
    if let Some(Successors::Named(names)) = &spec.successors {
        for s in names {
            let p = accessor_ident(s);
            succ_params.push(quote!(#p: ::nart_ir::Block));
            succ_stmts.push(quote!(nart_successors.push(#p);));
        }
    }
    let successors_variadic = matches!(spec.successors, Some(Successors::Variadic));
    if successors_variadic {
        succ_params.push(quote!(nart_successors_in: &[::nart_ir::Block]));
        succ_stmts.push(quote!(nart_successors.extend_from_slice(nart_successors_in);));
    }
    let segments = if has_trait(&spec, "AttrSizedOperandSegments") {
        quote! {
            let nart_sizes = ::std::vec![#(#segment_exprs),*];
            let nart_i32 = nart_u.int_type(32);
            let nart_seg = nart_u.intern_attr(::nart_ir::AttrData::DenseArray {
                elem: nart_i32,
                data: ::nart_ir::DenseArrayData::Int(nart_sizes),
            });
            nart_state = nart_state.prop(nart_u, "operandSegmentSizes", nart_seg);
        }
    } else {
        quote!()
    };
    let n_regions = spec.regions.len();
    params.extend(operand_params.iter().cloned());
    let _ = &params;
    let state_doc = format!(
        "The state of a `{op_name}` (result types, operands, properties, successors), to \
         adjust before creating it."
    );
    let state_fn = quote! {
        #[doc = #state_doc]
        #[allow(clippy::too_many_arguments, unused_mut)]
        pub fn state(
            nart_u: &mut ::nart_ir::Uniquer,
            nart_loc: ::nart_ir::Location,
            #(#state_params,)*
            #(#operand_params,)*
            #(#attr_arg_params,)*
            #(#succ_params,)*
        ) -> ::nart_ir::OperationState {
            let mut nart_result_types: ::std::vec::Vec<::nart_ir::Type> = ::std::vec::Vec::new();
            #(#result_stmts)*
            let mut nart_operands: ::std::vec::Vec<::nart_ir::Value> = ::std::vec::Vec::new();
            #(#operand_stmts)*
            let mut nart_successors: ::std::vec::Vec<::nart_ir::Block> = ::std::vec::Vec::new();
            #(#succ_stmts)*
            let mut nart_state = ::nart_ir::OperationState::new(nart_u, #name_lit, nart_loc)
                .operands(&nart_operands)
                .results(&nart_result_types)
                .successors(&nart_successors);
            #(#attr_push)*
            #segments
            nart_state
        }
    };
    // `build`: like `state`, but result types come from inference when the declaration allows.
    let state_args_names: Vec<TokenStream2> = spec
        .results
        .iter()
        .map(|r| {
            let p = format_ident!("{}_type", snake(&r.name.unraw().to_string()));
            quote!(#p)
        })
        .collect();
    let operand_names: Vec<Ident> = spec
        .operands
        .iter()
        .map(|o| accessor_ident(&o.name))
        .collect();
    let attr_names: Vec<Ident> = required_attrs.iter().map(|(p, _)| p.clone()).collect();
    let succ_names: Vec<TokenStream2> = match &spec.successors {
        Some(Successors::Named(n)) => n
            .iter()
            .map(|s| {
                let p = accessor_ident(s);
                quote!(#p)
            })
            .collect(),
        Some(Successors::Variadic) => vec![quote!(nart_successors_in)],
        None => vec![],
    };
    let build_doc = format!("Creates a `{op_name}` through `b` at its insertion point.");
    // No loop at all for an op without regions (`0..0` is an empty range clippy denies).
    let regions_stmt = if n_regions == 0 {
        quote!()
    } else {
        quote! {
            for _ in 0..#n_regions {
                let nart_r = nart_b.new_region();
                nart_state.regions.push(nart_r);
            }
        }
    };
    let build_fn = if (results_from_first || infers) && fixed_results && !spec.results.is_empty() {
        let n_results = spec.results.len();
        let infer = if results_from_first {
            let first = &operand_names[0];
            quote! {
                let nart_ty = nart_b.value_type(#first);
                let nart_inferred: ::std::vec::Vec<::nart_ir::Type> = ::std::vec![nart_ty; #n_results];
            }
        } else {
            let msg =
                format!("invariant: '{op_name}' declares InferTypeOpInterface and is registered");
            quote! {
                let nart_operand_types: ::std::vec::Vec<::nart_ir::Type> = {
                    let mut nart_operands: ::std::vec::Vec<::nart_ir::Value> = ::std::vec::Vec::new();
                    #(#operand_stmts)*
                    nart_operands.iter().map(|&v| nart_b.value_type(v)).collect()
                };
                let nart_iface = nart_b
                    .lookup_ident(#name_lit)
                    .and_then(|id| {
                        nart_b.op_interface_by_name::<dyn ::nart_ir::interfaces::InferTypeOpInterface>(id)
                    })
                    .expect(#msg);
                let nart_inferred = nart_iface.infer_return_types(nart_b.uniq(), &nart_operand_types, &[])?;
            }
        };
        let idx = 0..n_results;
        quote! {
            #[doc = #build_doc]
            #[doc = ""]
            #[doc = "The result types are inferred; inference failing is an error."]
            #[allow(clippy::too_many_arguments)]
            pub fn build(
                nart_b: &mut impl ::nart_ir::OpBuilder,
                nart_loc: ::nart_ir::Location,
                #(#operand_params,)*
                #(#attr_arg_params,)*
                #(#succ_params,)*
            ) -> ::core::result::Result<Self, ::std::string::String> {
                #infer
                #(let #state_args_names = nart_inferred[#idx];)*
                let mut nart_state = Self::state(
                    nart_b.uniq(), nart_loc,
                    #(#state_args_names,)*
                    #(#operand_names,)*
                    #(#attr_names,)*
                    #(#succ_names,)*
                );
                #regions_stmt
                Ok(Self(nart_b.create(nart_state)))
            }
        }
    } else {
        quote! {
            #[doc = #build_doc]
            #[allow(clippy::too_many_arguments)]
            pub fn build(
                nart_b: &mut impl ::nart_ir::OpBuilder,
                nart_loc: ::nart_ir::Location,
                #(#state_params,)*
                #(#operand_params,)*
                #(#attr_arg_params,)*
                #(#succ_params,)*
            ) -> Self {
                let mut nart_state = Self::state(
                    nart_b.uniq(), nart_loc,
                    #(#state_args_names,)*
                    #(#operand_names,)*
                    #(#attr_names,)*
                    #(#succ_names,)*
                );
                #regions_stmt
                Self(nart_b.create(nart_state))
            }
        }
    };

    Ok(quote! {
        #def_item
        #(#asserts)*
        #(#attr_asserts)*

        #(#doc_attrs)*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        #vis struct #ident(pub ::nart_ir::Op);

        impl ::nart_ir::registry::TypedOp for #ident {
            const NAME: &'static str = #name_lit;
            fn def() -> &'static ::nart_ir::OpDef {
                #def_fn
            }
            fn from_op_unchecked(op: ::nart_ir::Op) -> Self {
                Self(op)
            }
            fn op(self) -> ::nart_ir::Op {
                self.0
            }
        }

        impl #ident {
            /// The op's name.
            pub const NAME: &'static str = #name_lit;

            /// The op's declaration.
            pub fn def() -> &'static ::nart_ir::OpDef {
                <Self as ::nart_ir::registry::TypedOp>::def()
            }

            /// The op handle.
            pub fn op(self) -> ::nart_ir::Op {
                self.0
            }

            #(#accessors)*

            #state_fn

            #build_fn
        }
    })
}
