//! Widening: a batch of P-LLVM kernels after the transforms (`nonneg-div,dlt,boscc,pl`) as
//! ONE LLVM IR module with vector types, for `llc-19` to select AVX2, AVX-512 or
//! NEON instructions, as the thesis's vectorizer RV does (the native backend, docs/native.md).
//!
//! The input's control flow is uniform (every branch is uniform, or a BOSCC branch
//! on `@pllvm.any`, thesis §9.2), so one program counter serves the whole chunk:
//! every block of the kernel becomes one LLVM block, and the lanes of a chunk of W
//! threads live in the elements of `<W x T>` vectors. What the OBLIVIOUS
//! interpretation (§4.5) lets a lane see is reproduced:
//!
//! - the activation `amsk = cmsk ∧ pmsk` ([BLS-W-STEP], Def. 6-8): under uniform
//!   control every existing lane has cmask 1 (it came along the edge the chunk
//!   took, or was passive at the branch and so may take any successor, Fig. 4.9),
//!   so `amsk` is the block predicate `predicate %p` of the lanes that exist;
//! - a passive lane of a non-`total` command gets ⊤ ([UPD-ENV]): it may hold any
//!   value, so the widened code computes every lane and masks only what can trap
//!   or write (memory through `llvm.masked.*`, divisors through
//!   `select(m, d, 1)`); `total` commands ([W-CMD-TOTAL]) run in every lane that
//!   exists; `mask()` ([W-CMD-MASK]) is `amsk`;
//! - phis ([evalphi], §4.8) are LLVM phis: cmask is 1 in every existing lane, so a
//!   shadow operand is never taken;
//! - the horizontal builtins (Fig. 4.15) reduce over the lanes of the chunk that
//!   exist (`llvm.vector.reduce.*`).
//!
//! The ABI (chunk functions, `@pllvm_kernels`, globals, arguments, returns) is the
//! shared contract of the native routes (`docs/native.md`). Submodules: [`repr`]
//! (scalar or vector, from the divergence analysis), [`function`] (the emitter of
//! one chunk function), `target` (what both share: the instruction set, the
//! mask representation, the declarations).
#![allow(
    rustdoc::broken_intra_doc_links,
    reason = "[RULE] names the thesis's rules, not items"
)]

pub mod function;
mod nan;
pub mod repr;
mod target;

pub use target::{CONTIGUOUS, Declarations, MaskRepr, PASS, VectorTarget};

use crate::error::{Site, TransformError};
use crate::kernel::Kernel;
use crate::uniform;
use pllvm_analysis::result::{AnalysisKind, InitShapes, Uniformity};
use pllvm_analysis::stride::ThreadIds;
use pllvm_analysis::uniformity;
use pllvm_semantics::ir::Body;
use pllvm_semantics::types::TypeTable;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What [`widen_batch`] needs besides the kernels.
#[derive(Clone, Debug)]
pub struct WidenOptions {
    /// The instruction set.
    pub target: VectorTarget,
    /// W; `None` for [`VectorTarget::default_width`].
    pub width: Option<usize>,
    /// The representation of varying `i1`; `None` for each kernel's
    /// [`VectorTarget::default_mask_for`].
    pub mask: Option<MaskRepr>,
    /// The analysis that decides which values stay scalar (as the pipeline's).
    pub analysis: AnalysisKind,
    /// Parameters (by name or number) that are uniform: every lane of a chunk
    /// reads lane 0's argument word. The others are read per lane.
    pub uniform_args: Vec<String>,
    /// Whether accesses the `sa` analysis (thesis Ch. 10) proves contiguous use
    /// `llvm.masked.load/store` instead of gathers and scatters.
    pub contiguous: bool,
    /// The kernels are the output of partial linearization or full
    /// if-conversion (a pipeline ending in `pl` or `ifconv`). Those keep only
    /// branches that are uniform in their input (Theorem 5), and the program
    /// they produce runs each uniformly among the active lanes (checked by the
    /// stage-wise equivalence tests); an analysis of the output may fail to
    /// prove a kept condition uniform again (it reads a value of a block that is
    /// now predicated). With this set, such a branch is taken on the condition
    /// of the first active lane, which every active lane shares, instead of
    /// being refused. Without it (the default), a branch the analysis cannot
    /// prove uniform and that is not on `any`/`all` is refused.
    pub linearized: bool,
    /// Each chunk function gets a second body for full chunks (count = W, all
    /// but the last chunk of a launch), where the existence mask is a
    /// constant llc folds away; the chunk function dispatches on `count`.
    /// Faster loops at the price of about twice the llc time (BENCHMARKS.md,
    /// "Native SIMD code"). On by default.
    pub full_chunks: bool,
}

impl WidenOptions {
    /// The defaults for `target`: its default W and mask representation, the
    /// `best` analysis, every parameter varying, contiguous accesses on, a
    /// body for full chunks.
    pub fn new(target: VectorTarget) -> WidenOptions {
        WidenOptions {
            target,
            width: None,
            mask: None,
            analysis: AnalysisKind::Best,
            uniform_args: Vec::new(),
            contiguous: true,
            linearized: false,
            full_chunks: true,
        }
    }

    /// The W the chunk functions use.
    pub fn width(&self) -> usize {
        self.width.unwrap_or(self.target.default_width())
    }

    /// The mask representation a kernel's chunk functions use: the one given,
    /// else the target's choice for the kernel.
    pub fn mask_for(&self, body: &Body, types: &TypeTable, uniformity: &Uniformity) -> MaskRepr {
        self.mask
            .unwrap_or_else(|| self.target.default_mask_for(body, types, uniformity))
    }
}

/// The mask representation [`widen_batch`] gives `kernel` under `options`
/// (for reports and benchmarks: the batch decides it the same way).
pub fn kernel_mask(
    kernel: &Kernel<'_>,
    options: &WidenOptions,
) -> Result<MaskRepr, TransformError> {
    if let Some(mask) = options.mask {
        return Ok(mask);
    }
    let body = kernel_body(kernel)?;
    let (_, uniformity) = kernel_uniformity(kernel, options)?;
    Ok(options.mask_for(body, &kernel.module.types, &uniformity))
}

/// The body of `kernel`'s function; a declaration has none to widen.
fn kernel_body<'m>(kernel: &Kernel<'m>) -> Result<&'m Body, TransformError> {
    let data = &kernel.module.functions[kernel.function];
    data.body.as_ref().ok_or_else(|| {
        TransformError::new(
            PASS,
            Site::Function(kernel.function),
            format!("@{} is only declared: there is no body to widen", data.name),
        )
    })
}

/// The parameters uniform for `kernel` (the options' and the kernel's own) and
/// what the options' analysis makes of it with them.
fn kernel_uniformity(
    kernel: &Kernel<'_>,
    options: &WidenOptions,
) -> Result<(Vec<String>, Uniformity), TransformError> {
    let uniform_args: Vec<String> = options
        .uniform_args
        .iter()
        .chain(kernel.uniform_args)
        .cloned()
        .collect();
    let uniformity = uniform::analyze(
        kernel.module,
        kernel.function,
        options.analysis,
        &uniform_args,
        PASS,
    )?;
    Ok((uniform_args, uniformity))
}

/// The widest W: `thread_id`, `popcount` and `ballot` turn a mask into an
/// integer of W bits, and llc legalizes wider vectors slowly.
pub const MAX_WIDTH: usize = 256;

/// Widens `kernels` into one LLVM IR module for `options.target`: a chunk function
/// `@pllvm_chunk_<name>` per kernel, the table `@pllvm_kernels` and
/// `@pllvm_kernel_count` (the native ABI, `docs/native.md`). The module defines no
/// global of the programs: they come in through the chunk's `globals` argument.
pub fn widen_batch(
    kernels: &[Kernel<'_>],
    options: &WidenOptions,
) -> Result<String, TransformError> {
    let width = options.width();
    let mut decls = Declarations::default();
    let mut functions = String::new();
    let mut masks = Vec::new();
    for (index, kernel) in kernels.iter().enumerate() {
        let site = Site::Function(kernel.function);
        if width == 0 || width > MAX_WIDTH {
            return Err(TransformError::new(
                PASS,
                site,
                format!("width {width} is not between 1 and {MAX_WIDTH}"),
            ));
        }
        if kernel.name.is_empty()
            || !kernel
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(TransformError::new(
                PASS,
                site,
                format!("kernel name `{}` is not [A-Za-z0-9_]+", kernel.name),
            ));
        }
        if kernels[..index].iter().any(|k| k.name == kernel.name) {
            return Err(TransformError::new(
                PASS,
                site,
                format!("kernel name `{}` is used twice in the batch", kernel.name),
            ));
        }
        let data = &kernel.module.functions[kernel.function];
        let body = kernel_body(kernel)?;
        if let Some((site, what)) = kernel.unsupported_construct() {
            return Err(TransformError::new(PASS, site, what));
        }
        let (uniform_args, uniformity) = kernel_uniformity(kernel, options)?;
        let strides = if options.contiguous {
            InitShapes::with_uniform(data, &uniform_args)
                .ok()
                .and_then(|init| {
                    // The chunks start at multiples of W: thread ids `(1, W)`.
                    uniformity::analyze_sa(
                        kernel.module,
                        kernel.function,
                        &init,
                        ThreadIds::Chunk(width as u32),
                    )
                    .ok()
                })
                .map(|sa| sa.strides)
                .unwrap_or_default()
        } else {
            BTreeMap::new()
        };
        let mask = options.mask_for(body, &kernel.module.types, &uniformity);
        masks.push(mask);
        let text = function::emit(
            kernel,
            &function::Setup {
                width,
                mask,
                uniformity: &uniformity,
                strides: &strides,
                target: options.target,
                linearized: options.linearized,
                full_chunks: options.full_chunks,
            },
            &mut decls,
        )?;
        functions.push_str(&text);
        functions.push('\n');
    }
    Ok(assemble(
        kernels, options, width, &masks, &decls, &functions,
    ))
}

/// The module text: header, declarations, chunk functions, the kernel table.
fn assemble(
    kernels: &[Kernel<'_>],
    options: &WidenOptions,
    width: usize,
    masks: &[MaskRepr],
    decls: &Declarations,
    functions: &str,
) -> String {
    let mut out = String::new();
    let masks = match masks {
        [first, rest @ ..] if rest.iter().all(|m| m == first) => format!("{first:?}"),
        _ => format!("by kernel {masks:?}"),
    };
    let _ = writeln!(
        out,
        "; pllvm widen: {} kernel(s), target {}, W = {width}, masks {masks}",
        kernels.len(),
        options.target.name(),
    );
    let _ = writeln!(out, "target triple = \"{}\"\n", options.target.triple());
    for line in decls.lines() {
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    out.push_str(functions);
    for (k, kernel) in kernels.iter().enumerate() {
        let _ = writeln!(
            out,
            "@pllvm_name.{k} = private unnamed_addr constant [{} x i8] c\"{}\\00\"",
            kernel.name.len() + 1,
            kernel.name
        );
    }
    let entries: Vec<String> = kernels
        .iter()
        .enumerate()
        .map(|(k, kernel)| {
            format!(
                "{{ ptr, i64, ptr }} {{ ptr @pllvm_name.{k}, i64 {width}, ptr @pllvm_chunk_{} }}",
                kernel.name
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "@pllvm_kernels = constant [{} x {{ ptr, i64, ptr }}] [{}], align 8",
        kernels.len(),
        entries.join(", ")
    );
    let _ = writeln!(
        out,
        "@pllvm_kernel_count = constant i64 {}, align 8",
        kernels.len()
    );
    out
}
