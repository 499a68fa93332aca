//! What the widening's modules share: the instruction set ([`VectorTarget`]),
//! how masks are held ([`MaskRepr`]), the `declare` lines of a batch
//! ([`Declarations`]), the pass name of its errors and the mark of contiguous
//! accesses. Below both [`super`] (the batch) and [`super::function`] (one chunk
//! function), which import it; re-exported by [`super`].

use pllvm_analysis::result::Uniformity;
use pllvm_semantics::ir::Body;
use pllvm_semantics::types::{TypeData, TypeTable};
use std::collections::BTreeMap;

/// The instruction set the module is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VectorTarget {
    /// x86-64 with AVX2 (`llc-19 -mcpu=x86-64-v3`): 8 lanes of 32 bits.
    Avx2,
    /// x86-64 with AVX-512 (`llc-19 -mcpu=x86-64-v4`): 16 lanes of 32 bits.
    Avx512,
    /// AArch64 with NEON (`llc-19 -mtriple=aarch64-linux-gnu`): 4 lanes of 32 bits.
    Neon,
}

impl VectorTarget {
    /// Every target.
    pub const ALL: [VectorTarget; 3] =
        [VectorTarget::Avx2, VectorTarget::Avx512, VectorTarget::Neon];

    /// The name `--target` takes.
    pub fn name(self) -> &'static str {
        match self {
            VectorTarget::Avx2 => "avx2",
            VectorTarget::Avx512 => "avx512",
            VectorTarget::Neon => "neon",
        }
    }

    /// The target called `name`.
    pub fn parse(name: &str) -> Option<VectorTarget> {
        VectorTarget::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The LLVM target triple the module carries.
    pub fn triple(self) -> &'static str {
        match self {
            VectorTarget::Avx2 | VectorTarget::Avx512 => "x86_64-unknown-linux-gnu",
            VectorTarget::Neon => "aarch64-unknown-linux-gnu",
        }
    }

    /// The `llc-19` flags that select the instruction set (besides `-O2
    /// -filetype=obj`). Position-independent code: `@pllvm_kernels` holds
    /// addresses, which a PIE link (gcc's default) would otherwise relocate in a
    /// read-only section (`DT_TEXTREL`).
    pub fn llc_flags(self) -> &'static [&'static str] {
        match self {
            VectorTarget::Avx2 => &[
                "-mtriple=x86_64-unknown-linux-gnu",
                "-mcpu=x86-64-v3",
                "-relocation-model=pic",
            ],
            VectorTarget::Avx512 => &[
                "-mtriple=x86_64-unknown-linux-gnu",
                "-mcpu=x86-64-v4",
                "-relocation-model=pic",
            ],
            VectorTarget::Neon => &["-mtriple=aarch64-linux-gnu", "-relocation-model=pic"],
        }
    }

    /// The default W: twice the native number of 32-bit lanes, so that LLVM's
    /// legalization interleaves two register groups (docs/native.md): 16 on AVX2, 32 on
    /// AVX-512, 8 on NEON. Measured (`cargo bench -p pllvm-codegen --bench
    /// native_speed`, BENCHMARKS.md, 2026-11-26, with the body for full chunks):
    /// AVX2 Mandelbrot 16.0 ms at W = 16 against 16.4 ms at W = 8, binary search
    /// 17.9 against 24.1 ms; AVX-512 Mandelbrot 10.2 ms at W = 32 against 10.1 ms
    /// at W = 16, binary search 18.3 against 24.7 ms.
    pub fn default_width(self) -> usize {
        match self {
            VectorTarget::Avx2 => 16,
            VectorTarget::Avx512 => 32,
            VectorTarget::Neon => 8,
        }
    }

    /// The default representation of varying `i1` values, chosen by measurement
    /// (`cargo bench -p pllvm-codegen --bench native_speed`, BENCHMARKS.md,
    /// 2026-11-26, AMD EPYC, default W, second round). AVX2: `<W x i32>` lanes
    /// of all-ones or zero (Mandelbrot 16.0 ms against 16.6 ms with `<W x i1>`,
    /// binary search 17.9 ms against 20.0 ms): a `<16 x i1>` is legalized as
    /// bytes and widened again at every blend, while an `<W x i32>` mask is what
    /// `vblendvps` and `vpmaskmov` read, through its sign bit. AVX-512:
    /// `<W x i1>`, the mask registers (Mandelbrot 10.2 ms against 10.8 ms, 10.1
    /// against 12.6 ms at W = 16). A kernel whose lanes are mostly 64 bits
    /// wide takes the other one on both ([`VectorTarget::default_mask_for`]).
    /// NEON has no mask registers and keeps `<W x i32>` (under qemu its times
    /// say nothing about the hardware).
    pub fn default_mask(self) -> MaskRepr {
        match self {
            VectorTarget::Avx512 => MaskRepr::I1,
            VectorTarget::Avx2 | VectorTarget::Neon => MaskRepr::I32,
        }
    }

    /// The default mask representation for one kernel: [`Self::default_mask`],
    /// turned the other way round on AVX2 and AVX-512 for a kernel whose
    /// varying values are mostly 64 bits wide (`i64`, `double`, pointers: more
    /// of them than of narrower non-`i1` values). On AVX2 such a kernel takes
    /// `<W x i1>`: a `<W x i32>` mask is packed from the 64-bit comparisons
    /// and widened again (`vpmovsxdq`) at every 64-bit blend, while LLVM keeps
    /// an `<W x i1>` in the lanes of the comparison that made it. On AVX-512 it
    /// takes `<W x i32>`: at W = 32 a comparison of `<32 x i64>` yields four
    /// 8-bit mask registers that a `<W x i1>` mask joins (`kunpck`) and splits
    /// again (`kshiftr`) around every 8-lane operation, on the loop's chain.
    /// Measured (BENCHMARKS.md, "Native SIMD code", fifth round): the binary
    /// search of `corpus/kernels/` (`i64` bounds, `double` table) runs 16.1
    /// against 17.3 ms on AVX2 and 16.1 against 18.0 ms on AVX-512 (the same
    /// direction in every round), while Mandelbrot (`float`, `i32`) keeps
    /// `<W x i32>` on AVX2 (9.4 against 14.4 ms) and `<W x i1>` on AVX-512
    /// (6.6 against 9.5 ms). NEON keeps `<W x i32>`.
    pub fn default_mask_for(
        self,
        body: &Body,
        types: &TypeTable,
        uniformity: &Uniformity,
    ) -> MaskRepr {
        if self == VectorTarget::Neon {
            return self.default_mask();
        }
        let (mut wide, mut narrow) = (0usize, 0usize);
        for (_, data) in body.insts.iter() {
            let Some(result) = data.result else { continue };
            if !uniformity.value(result).is_varying() {
                continue;
            }
            match types.get(body.values[result].ty) {
                TypeData::Int(1) => {}
                TypeData::Int(64) | TypeData::F64 | TypeData::Ptr(_) => wide += 1,
                TypeData::Int(_) | TypeData::F32 | TypeData::F16 | TypeData::BF16 => narrow += 1,
                _ => {}
            }
        }
        match (self.default_mask(), wide > narrow) {
            (mask, false) => mask,
            (MaskRepr::I1, true) => MaskRepr::I32,
            (MaskRepr::I32, true) => MaskRepr::I1,
        }
    }
}

/// How a varying `i1` value (a comparison, a block predicate, `mask()`) is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MaskRepr {
    /// `<W x i1>`, the type LLVM's masked intrinsics take.
    I1,
    /// `<W x i32>`, each lane 0 or -1; turned into `<W x i1>` where an
    /// instruction needs one (`icmp ne`).
    I32,
}

/// The comment that ends a masked load or store the `sa` analysis proved
/// contiguous (lane l's address `base + l · size`): the reader of the IR, and the
/// campaigns that count the contiguous path, find it by this text.
pub const CONTIGUOUS: &str = "; contiguous (sa: stride 1)";

/// The pass name widening errors carry.
pub const PASS: &str = "widen";

/// The `declare` lines a module needs, by callee name (shared by the kernels of a
/// batch; two different signatures for one name are refused).
#[derive(Clone, Debug, Default)]
pub struct Declarations {
    lines: BTreeMap<String, String>,
}

impl Declarations {
    /// The `declare` lines, by callee name.
    pub(super) fn lines(&self) -> impl Iterator<Item = &String> {
        self.lines.values()
    }

    /// Records `declare RET @name(ARGS)`; an existing different line for the same
    /// name is an error (returned as its message).
    pub fn add(&mut self, name: &str, line: String) -> Result<(), String> {
        match self.lines.get(name) {
            Some(old) if *old != line => Err(format!(
                "@{name} is called with two signatures in one batch: `{old}` and `{line}`"
            )),
            Some(_) => Ok(()),
            None => {
                self.lines.insert(name.to_string(), line);
                Ok(())
            }
        }
    }
}
