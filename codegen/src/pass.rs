//! What every transform pass gets: which pass runs ([`Pass`]), the pipeline's
//! [`Options`] (with the option types of the passes that read them: BOSCC's
//! [`Policy`], the divergent loop transform's [`LiveOuts`] and test-only
//! [`Fault`]) and the [`PassContext`] that hands them over with the analysis on
//! demand.
//!
//! The passes import this module and [`crate::pipeline`] imports the passes, so
//! the pipeline sits on top and no pass imports it back (codegen's module graph
//! has no cycle). The option types are re-exported where they were declared
//! (`boscc::Policy`, `dlt::LiveOuts`, `dlt::Fault`).

use crate::error::TransformError;
use crate::uniform;
use pllvm_analysis::result::{AnalysisKind, Uniformity};
use pllvm_semantics::ir::{FuncId, Module};

/// One transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pass {
    /// `sdiv` / `srem` by a power of two of a dividend known non-negative
    /// where it runs become `ashr` / `and` ([`crate::nonneg_div`]); first in a
    /// pipeline, while the branches it reads are there.
    NonnegDiv,
    /// The divergent loop transform (thesis §9.1): every loop becomes uniform.
    Dlt,
    /// The BOSCC gadget (thesis §9.2), inserted before partial linearization.
    Boscc,
    /// Partial linearization (thesis Ch. 8, Listing 8; loops §8.3; phis §8.4).
    Pl,
    /// The reconverging-CFG transform (the poster's OpenTree with flow blocks),
    /// for any CFG, irreducible ones included.
    Reconverge,
    /// Full if-conversion: every branch that is not a loop's own becomes data
    /// flow (the naive baseline of Ch. 8).
    IfConv,
}

impl Pass {
    /// Every pass.
    pub const ALL: [Pass; 6] = [
        Pass::NonnegDiv,
        Pass::Dlt,
        Pass::Boscc,
        Pass::Pl,
        Pass::Reconverge,
        Pass::IfConv,
    ];

    /// The name `--pass` takes.
    pub fn name(self) -> &'static str {
        match self {
            Pass::NonnegDiv => "nonneg-div",
            Pass::Dlt => "dlt",
            Pass::Boscc => "boscc",
            Pass::Pl => "pl",
            Pass::Reconverge => "reconverge",
            Pass::IfConv => "ifconv",
        }
    }

    /// Whether the program after this pass, run under OBLIVIOUS, must refine
    /// the original under FREEZING (the stage-wise property, docs/transforms.md "How correctness is checked"). Not
    /// so for `nonneg-div`: it rewrites single commands and leaves divergent
    /// loops as they are, which OBLIVIOUS breaks (Fig. 3.21); its output refines
    /// the original under FREEZING, and each stage after it in a route is
    /// checked against the original, so a wrong rewrite shows there.
    pub fn refines_under_oblivious(self) -> bool {
        self != Pass::NonnegDiv
    }

    /// The pass called `name`.
    pub fn parse(name: &str) -> Option<Pass> {
        Pass::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// What a pipeline needs besides the program.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The analysis deciding what is uniform.
    pub analysis: AnalysisKind,
    /// Parameters (by name or number) that are uniform; the others are varying.
    pub uniform_args: Vec<String>,
    /// Where BOSCC gadgets go.
    pub boscc: Policy,
    /// How the divergent loop transform keeps live-out values.
    pub live_outs: LiveOuts,
    /// Test only: a deliberate defect of the divergent loop transform, which the
    /// stage-wise equivalence checks must catch (docs/transforms.md "How
    /// correctness is checked"). `None` everywhere else.
    #[doc(hidden)]
    pub fault: Option<Fault>,
}

/// What a pass gets: the options, and the analysis on demand.
pub struct PassContext<'o> {
    /// The pipeline's options.
    pub options: &'o Options,
    /// The pass running (for error messages).
    pub pass: Pass,
}

impl PassContext<'_> {
    /// The chosen analysis on `func` of `module`.
    pub fn analyze(&self, module: &Module, func: FuncId) -> Result<Uniformity, TransformError> {
        uniform::analyze(
            module,
            func,
            self.options.analysis,
            &self.options.uniform_args,
            self.pass.name(),
        )
    }
}

/// Where gadgets go (`--boscc heuristic|all|none|BLOCK,...`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Policy {
    /// Gadgets at the eligible edges into a block `b` whose dominance region is
    /// worth skipping: a loop, a memory access (`load`, `store`, `alloca`) or a
    /// call other than a `@pllvm.*` builtin in it; or, outside loops, at least
    /// [`HEAVY_REGION`](crate::boscc::HEAVY_REGION) commands or `b` itself ending in a divergent branch
    /// (the else-if cascades of Fig. 9.6: a gadget on each `else` edge skips the
    /// rest of the cascade).
    ///
    /// Inside a loop (a divergent loop made uniform by `dlt` included) a region
    /// of arithmetic only gets no gadget: its `any` and branch run in every
    /// iteration, while the region is skipped in few of them (the branch that
    /// leaves a divergent loop is skipped at most once per loop), and the split
    /// loop body keeps more values live across blocks. Measured on
    /// `corpus/kernels/mandelbrot.ll` (BENCHMARKS.md, "Native SIMD code"):
    /// the two gadgets the cascade rule put in its loop made the widened code
    /// slower than none.
    #[default]
    Heuristic,
    /// Every eligible edge (one gadget per branch: the first eligible target).
    All,
    /// No gadget.
    None,
    /// A gadget at the edge into each named block (which must be eligible).
    Blocks(Vec<String>),
}

impl Policy {
    /// Reads `--boscc`: `heuristic`, `all`, `none`, or block names (`B,C` or
    /// `%B,%C`).
    pub fn parse(text: &str) -> Result<Policy, String> {
        match text.trim() {
            "heuristic" => Ok(Policy::Heuristic),
            "all" => Ok(Policy::All),
            "none" => Ok(Policy::None),
            "" => Err("--boscc needs heuristic, all, none or a list of blocks".into()),
            list => {
                let names: Vec<String> = list
                    .split(',')
                    .map(|n| n.trim().trim_start_matches('%').to_string())
                    .collect();
                if names.iter().any(String::is_empty) {
                    return Err(format!("--boscc '{list}': an empty block name"));
                }
                Ok(Policy::Blocks(names))
            }
        }
    }
}

/// A deliberate defect of the transform, for tests only: the stage-wise
/// equivalence checks (docs/transforms.md "How correctness is checked") must
/// catch it.
/// Never set by a front end.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The first live-out value gets no tracker that keeps it: its `.track` phi
    /// in `L` reads the raw value on the exit edges and `undef` on every other
    /// edge, so a lane that left in an earlier iteration reads `undef` after the
    /// loop (the lane that left early sees ⊤, as in the naive Fig. 3.21b).
    DropLiveOutTracker,
}

/// How the transform keeps the values a lane leaves the loop with (its
/// live-outs, §9.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LiveOuts {
    /// A live-out that is a header phi, or the value of its latch arms, is held
    /// by that header phi (`hold_plan`); the others get tracker pairs. One
    /// loop-carried value fewer per held live-out, but the phi's next value is
    /// then chosen per lane: a counter `%i` becomes `select(stays, %i + 1, %i)`,
    /// whose condition depends on the compare of `%i + 1`, so the compare and
    /// the mask logic sit on the counter's loop-carried dependence chain. The
    /// default, and the native choice where registers are few
    /// (`native::Target::live_outs`).
    #[default]
    Held,
    /// Every live-out gets a tracker pair, as §9.1 builds it (`%v.out`/`%v.track`):
    /// a counter is a plain `%i + 1`, and the per-lane choice moves to the
    /// tracker, off the counter's chain; one loop-carried value more per
    /// live-out.
    Tracked,
}

impl LiveOuts {
    /// `held` or `tracked`, as `--live-outs` spells it.
    pub fn parse(text: &str) -> Option<LiveOuts> {
        match text {
            "held" => Some(LiveOuts::Held),
            "tracked" => Some(LiveOuts::Tracked),
            _ => None,
        }
    }
}
