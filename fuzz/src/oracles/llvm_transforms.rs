//! `llvm-transforms`: LLVM's own GPU control-flow transforms checked by execution
//! (docs/fuzzing.md, "LLVM's control-flow transforms"). The case's module goes to
//! `opt-22` as `pllvm_analysis::opt_uniformity::opt_input` lowers it for AMDGPU
//! (`-mtriple=amdgcn--`: the uniform parameters `inreg`, the thread id
//! `llvm.amdgcn.workitem.id.x`, allocas in `addrspace(5)`), one [`Pipeline`] of
//! passes runs on it, and the module opt prints is read back by pllvm's parser
//! and verifier. The output, run under OBLIVIOUS, must refine the original under
//! FREEZING lane by lane and global element by element, on every greedy schedule
//! when the exploration finishes and on scheduler runs otherwise: exactly the
//! check of pllvm's own transforms (`transforms`, `pllvm_interp::equiv`).
//!
//! # Why OBLIVIOUS on the output
//! The structurizer's output is what the AMDGPU backend turns into exec-masked
//! code: every branch it keeps may be divergent, and a lane masked off while its
//! wave runs a block runs that block passively, as under OBLIVIOUS (thesis
//! §3.6.1, §4.5). A pass whose output is only right when a passive lane keeps its
//! values (FREEZING) leaves the register allocator to keep them (exec-masked
//! writes do keep a VGPR's inactive lanes, but only while the value stays in that
//! register). A difference is therefore classified: `differs under FR` when the
//! output run under FREEZING on the same schedule already differs (the pass
//! changed what a lane computes: a bug by any reading), `differs under OBL only`
//! when it is a passive lane's value that is lost (a reading of what the pass
//! promises, as Fig. 3.21 is for a naive vectorizer).
//!
//! # Preconditions, skipped by design
//! `structurizecfg` assumes what the AMDGPU pipeline runs before it: no `switch`
//! (`lower-switch`) and a reducible CFG (`fix-irreducible`). Given a `switch` it
//! emits `br i1 undef`, given an irreducible cycle it drops the cycle; such
//! inputs are skipped with that reason, not reported. `amdgpu-structurizer` is
//! the backend's order (`lower-switch`, `amdgpu-unify-divergent-exit-nodes`,
//! `fix-irreducible`, `unify-loop-exits`, `structurizecfg`) and takes any input.
//! `llvm.amdgcn.if/else/if.break/loop/end.cf`, which `-si-annotate-control-flow`
//! emits, have no meaning in pllvm yet, so that pass is not a pipeline here.

use super::case::Case;
use super::oracle::{Failure, Host, Oracle, Verdict};
use crate::GenConfig;
use pllvm_analysis::opt_uniformity::{opt_input, run_opt_with};
use pllvm_interp::RunConfig;
use pllvm_interp::equiv::{Baseline, Coverage, EquivConfig};
use pllvm_interp::explore::Bounds;
use pllvm_semantics::ir::{Module, Terminator};
use pllvm_semantics::rules::Interp;

/// The triple opt transforms for: AMDGPU (whose uniformity analysis the
/// structurizer reads; without a GPU triple every branch is uniform to it).
pub const TRIPLE: &str = "amdgcn--";

/// The `opt` this oracle runs.
pub const OPT: &str = "opt-22";

/// One pass pipeline of opt, a variant of the oracle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pipeline {
    /// The short name (`structurizecfg`), as `check-llvm-pass --passes` takes it.
    pub name: &'static str,
    /// The oracle's name (`llvm-transforms.structurizecfg`).
    pub oracle: &'static str,
    /// The text of opt's `-passes=`.
    pub passes: &'static str,
    /// Whether the pipeline needs a reducible CFG without `switch` (what the
    /// backend's earlier passes guarantee `structurizecfg`).
    pub needs_structured_input: bool,
}

/// The pipelines, in the order `--oracle` lists them.
pub const PIPELINES: [Pipeline; 7] = [
    Pipeline {
        name: "structurizecfg",
        oracle: "llvm-transforms.structurizecfg",
        passes: "structurizecfg",
        needs_structured_input: true,
    },
    Pipeline {
        name: "structurizecfg-skip-uniform",
        oracle: "llvm-transforms.structurizecfg-skip-uniform",
        passes: "structurizecfg<skip-uniform-regions>",
        needs_structured_input: true,
    },
    Pipeline {
        name: "fix-irreducible",
        oracle: "llvm-transforms.fix-irreducible",
        passes: "fix-irreducible",
        needs_structured_input: false,
    },
    Pipeline {
        name: "unify-loop-exits",
        oracle: "llvm-transforms.unify-loop-exits",
        passes: "unify-loop-exits",
        needs_structured_input: false,
    },
    Pipeline {
        name: "lower-switch",
        oracle: "llvm-transforms.lower-switch",
        passes: "lower-switch",
        needs_structured_input: false,
    },
    Pipeline {
        name: "amdgpu-unify-divergent-exit-nodes",
        oracle: "llvm-transforms.amdgpu-unify-divergent-exit-nodes",
        passes: "amdgpu-unify-divergent-exit-nodes",
        needs_structured_input: false,
    },
    Pipeline {
        name: "amdgpu-structurizer",
        oracle: "llvm-transforms.amdgpu-structurizer",
        passes: "lower-switch,amdgpu-unify-divergent-exit-nodes,fix-irreducible,unify-loop-exits,structurizecfg",
        needs_structured_input: false,
    },
];

/// The pipeline named `name` (its short or its oracle name).
pub fn pipeline(name: &str) -> Option<&'static Pipeline> {
    PIPELINES
        .iter()
        .find(|p| p.name == name || p.oracle == name)
}

/// The exact command line of a pipeline, for reports: `opt-22 -mtriple=amdgcn--
/// -passes='P' -S in.ll -o out.ll`.
pub fn opt_command(passes: &str) -> String {
    format!("{OPT} -mtriple={TRIPLE} -passes='{passes}' -S in.ll -o out.ll")
}

/// Why `module`'s function `func` is not an input `pipeline` is meant for
/// (`None`: it is). See the module doc, "Preconditions".
pub fn precondition(
    module: &Module,
    func: pllvm_semantics::ir::FuncId,
    pipeline: &Pipeline,
) -> Option<String> {
    if !pipeline.needs_structured_input {
        return None;
    }
    let body = module.functions[func].body.as_ref()?;
    if body
        .layout
        .iter()
        .any(|&b| matches!(body.blocks[b].term, Terminator::Switch { .. }))
    {
        return Some(format!(
            "{}: a switch (the pass assumes lower-switch ran)",
            pipeline.name
        ));
    }
    if !pllvm_semantics::cfg::Cfg::new(body).is_reducible() {
        return Some(format!(
            "{}: an irreducible cycle (the pass assumes fix-irreducible ran)",
            pipeline.name
        ));
    }
    None
}

/// Runs `opt` on `input` with `-passes=passes` for [`TRIPLE`] and returns the
/// module it prints, or why it failed.
pub fn run_opt_passes(opt: &str, input: &str, passes: &str) -> Result<String, String> {
    let args = [
        &format!("-mtriple={TRIPLE}"),
        &format!("-passes={passes}"),
        "-S",
        "-",
        "-o",
        "-",
    ];
    let (stdout, _) = run_opt_with(opt, &args, input)?;
    String::from_utf8(stdout).map_err(|e| format!("{opt} printed no UTF-8: {e}"))
}

/// Reads opt's output back: parsed and verified by pllvm, or every error with
/// the output's line.
pub fn read_back(text: &str) -> Result<Module, String> {
    let (module, spans) = pllvm_semantics::text::parse_module(text).map_err(|errors| {
        errors
            .iter()
            .map(|e| pllvm_semantics::diag::render_all(&[e.to_diagnostic()], "opt-output", text))
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    let report = pllvm_semantics::verify::verify_module(&module, &spans);
    if !report.errors.is_empty() {
        return Err(pllvm_semantics::diag::render_all(
            &report.errors,
            "opt-output",
            text,
        ));
    }
    Ok(module)
}

/// The deliberately broken pipeline of docs/fuzzing.md, "Seeded bugs": in the
/// first block named `Flow...` (a block the structurizer adds) that ends in a
/// conditional branch on a value, the two targets are swapped, so that the flow
/// of a structurized region goes the other way. Phis stay well-formed (the
/// block's successors are the same set). Returns `text` unchanged when no such
/// block exists.
pub fn retarget_flow_edge(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_flow = false;
    let mut done = false;
    for line in text.lines() {
        let mut line = line.to_string();
        if !line.starts_with(' ') && !line.is_empty() {
            in_flow = line.starts_with("Flow") && line.contains(':');
        }
        if in_flow
            && !done
            && let Some(rest) = line.trim_start().strip_prefix("br i1 %")
            && let Some((cond, targets)) = rest.split_once(", label ")
            && let Some((a, b)) = targets.split_once(", label ")
        {
            line = format!("  br i1 %{cond}, label {b}, label {a}");
            done = true;
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Whether the seeded bug `retarget` is switched on (`PLLVM_SEEDED_BUG`, only
/// in builds with the `seeded-bugs` feature).
fn seeded_retarget() -> bool {
    #[cfg(feature = "seeded-bugs")]
    {
        static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *ON.get_or_init(|| {
            std::env::var("PLLVM_SEEDED_BUG")
                .unwrap_or_default()
                .split(',')
                .any(|b| b.trim() == "retarget")
        })
    }
    #[cfg(not(feature = "seeded-bugs"))]
    {
        false
    }
}

/// The equivalence check's configuration for a fuzzing case: the bounds of the
/// `transforms` oracle.
pub fn equiv_config(run: RunConfig) -> EquivConfig {
    let mut run = run;
    run.observe = false;
    run.max_steps = 50_000;
    EquivConfig {
        run,
        coverage: Coverage::Auto,
        bounds: Bounds {
            max_states: 5_000,
            max_steps: 2_000,
            ..Bounds::default()
        },
        random_runs: 4,
        deadline: None,
    }
}

/// What checking one module with one pipeline concluded.
#[derive(Clone, Debug, PartialEq)]
pub enum PassCheck {
    /// opt failed on the input.
    OptFails(String),
    /// opt's output does not parse or verify in pllvm.
    Unreadable(String),
    /// The output under OBLIVIOUS refines the original (the report's summary).
    Refines(String),
    /// The output under FREEZING already differs from the original: the pass
    /// changed what a lane computes.
    DiffersUnderFr(String),
    /// The output under OBLIVIOUS differs, under FREEZING it refines the
    /// original: a passive lane's value is lost.
    ObliviousOnly {
        /// The difference under OBLIVIOUS.
        difference: String,
        /// The difference of the input itself under OBLIVIOUS, when it has one
        /// (a divergent loop's live-out, thesis Fig. 3.21: the pass kept what
        /// was there; `None`: the pass brought the difference in).
        input: Option<String>,
    },
    /// The check was not decided (a deadline).
    Undecided(String),
}

/// The original program's side of a check, found once for every pipeline: its
/// outcomes under FREEZING, and (when asked) whether it refines itself run
/// under OBLIVIOUS.
pub struct Original<'m> {
    /// The program.
    pub module: &'m Module,
    /// Its outcomes under FREEZING.
    pub baseline: Baseline,
    /// The check's configuration.
    pub config: &'m EquivConfig,
    naive: std::cell::OnceCell<Option<String>>,
}

impl<'m> Original<'m> {
    /// The original's outcomes under FREEZING on `config`'s inputs (or why it
    /// cannot be run there).
    pub fn new(module: &'m Module, config: &'m EquivConfig) -> Result<Original<'m>, String> {
        let baseline = Baseline::of(module, config).map_err(|d| d.to_string())?;
        Ok(Original {
            module,
            baseline,
            config,
            naive: std::cell::OnceCell::new(),
        })
    }

    /// How the original itself run under OBLIVIOUS differs from it under
    /// FREEZING (`None`: it does not), found once.
    pub fn naive_difference(&self) -> Option<String> {
        self.naive
            .get_or_init(|| match self.baseline.check(self.module, self.config) {
                Ok(_) => None,
                Err(d) => Some(d.to_string()),
            })
            .clone()
    }

    /// Checks `output` (a module read back from opt) against the original:
    /// under OBLIVIOUS, and on a difference under FREEZING and the input under
    /// OBLIVIOUS, to classify it (see the module doc).
    pub fn check_output(&self, output: &Module) -> PassCheck {
        let obl = match self.baseline.check(output, self.config) {
            Ok(report) => return PassCheck::Refines(report.summary()),
            Err(d) if d.kind.is_cut_off() => return PassCheck::Undecided(d.to_string()),
            Err(d) => d.to_string(),
        };
        match self
            .baseline
            .check_under(output, self.config, Interp::Freezing)
        {
            Err(d) if d.kind.is_cut_off() => PassCheck::Undecided(d.to_string()),
            Err(d) => PassCheck::DiffersUnderFr(d.to_string()),
            Ok(_) => PassCheck::ObliviousOnly {
                difference: obl,
                input: self.naive_difference(),
            },
        }
    }
}

/// The text opt is given, its output, and the check of the output.
pub struct Checked {
    /// The LLVM IR given to opt.
    pub input: String,
    /// What opt printed (after the seeded fault, if on).
    pub output: Option<String>,
    /// The verdict.
    pub check: PassCheck,
}

/// Exports the original's function `func` (`uniform`: the parameters opt may
/// call uniform, `inreg`), runs `passes` on it with `opt` and checks the
/// output (see the module doc).
pub fn check_with_opt(
    original: &Original<'_>,
    func: pllvm_semantics::ir::FuncId,
    uniform: &[bool],
    opt: &str,
    passes: &str,
) -> Checked {
    let input = opt_input(original.module, func, uniform);
    let output = match run_opt_passes(opt, &input, passes) {
        Ok(o) => o,
        Err(e) => {
            return Checked {
                input,
                output: None,
                check: PassCheck::OptFails(e),
            };
        }
    };
    let output = if seeded_retarget() {
        retarget_flow_edge(&output)
    } else {
        output
    };
    let check = match read_back(&output) {
        Ok(module) => original.check_output(&module),
        Err(e) => PassCheck::Unreadable(e),
    };
    Checked {
        input,
        output: Some(output),
        check,
    }
}

/// The `llvm-transforms` oracle: one pipeline, or every one in turn.
pub struct LlvmTransforms {
    /// The pipeline; `None`: all of [`PIPELINES`].
    pub pipeline: Option<&'static Pipeline>,
}

/// The name of the oracle that runs every pipeline.
pub const ALL: &str = "llvm-transforms";

/// Every variant: all pipelines first, then one oracle per pipeline.
pub fn variants() -> Vec<LlvmTransforms> {
    std::iter::once(LlvmTransforms { pipeline: None })
        .chain(
            PIPELINES
                .iter()
                .map(|p| LlvmTransforms { pipeline: Some(p) }),
        )
        .collect()
}

/// The programs: what a GPU front end emits (the `llvm` oracle's), aimed at
/// what the passes rewrite: loops with several exits (breaks) and nested loops
/// from the generator's full menu, `switch`es and irreducible cycles (in one
/// program of three) unless the pipeline assumes they were removed before it
/// (`structured`: [`Pipeline::needs_structured_input`]).
pub fn gen_config(irreducible: bool, structured: bool) -> GenConfig {
    GenConfig {
        horizontal: false,
        switches: !structured,
        ..super::transforms::spmd_config(irreducible && !structured)
    }
}

impl LlvmTransforms {
    /// Whether the programs must be free of `switch` and irreducible cycles
    /// (a pipeline that assumes so; the oracle of all pipelines takes both).
    fn structured(&self) -> bool {
        self.pipeline.is_some_and(|p| p.needs_structured_input)
    }

    /// Checks `case` with one pipeline against the original's side `original`.
    fn check_pipeline(&self, case: &Case, original: &Original<'_>, pipeline: &Pipeline) -> Verdict {
        if let Some(why) = precondition(case.module(), case.func(), pipeline) {
            return Verdict::Skip(why);
        }
        let uniform: Vec<bool> = case
            .program
            .init_shapes()
            .params
            .iter()
            .map(|s| s.is_uniform())
            .collect();
        let checked = check_with_opt(original, case.func(), &uniform, OPT, pipeline.passes);
        let name = pipeline.name;
        let opt = opt_command(pipeline.passes);
        match checked.check {
            PassCheck::OptFails(e) => Verdict::fail(format!("{name}: opt fails"), e),
            PassCheck::Unreadable(e) => {
                Verdict::fail(format!("{name}: output unreadable by pllvm"), e)
            }
            PassCheck::Refines(_) => Verdict::Pass,
            PassCheck::Undecided(why) => Verdict::Skip(format!("{name}: undecided: {why}")),
            PassCheck::DiffersUnderFr(d) => Verdict::fail(
                format!("{name}: differs under FR"),
                format!(
                    "{d}\nthe output run under FR differs too: the pass changed what a lane computes\nopt: {opt}"
                ),
            ),
            PassCheck::ObliviousOnly {
                difference,
                input: None,
            } => Verdict::fail(
                format!("{name}: differs under OBL only"),
                format!(
                    "{difference}\nunder FR the output refines the input, and the input under OBL refines itself: the pass lost a passive lane's value\nopt: {opt}"
                ),
            ),
            PassCheck::ObliviousOnly { input: Some(_), .. } => Verdict::Skip(format!(
                "{name}: the input already differs under OBL (a divergent loop's live-out, Fig. 3.21); under FR the output refines it"
            )),
        }
    }
}

impl Oracle for LlvmTransforms {
    fn name(&self) -> &'static str {
        self.pipeline.map_or(ALL, |p| p.oracle)
    }

    fn in_default_campaign(&self) -> bool {
        self.pipeline.is_none()
    }

    fn available(&self, host: &Host) -> Result<(), String> {
        if host.opt22 {
            Ok(())
        } else {
            Err("opt-22 does not run (Debian: apt-get install llvm-22)".into())
        }
    }

    fn gen_config(&self) -> GenConfig {
        gen_config(false, self.structured())
    }

    fn case(&self, seed: u64) -> Case {
        Case::generate(
            seed,
            &gen_config(seed % 3 == 2, self.structured()),
            self.width(seed),
        )
    }

    fn report(&self, case: &Case, failure: &Failure, file: &str) -> Vec<String> {
        let Some(p) = PIPELINES
            .iter()
            .find(|p| failure.kind.starts_with(&format!("{}:", p.name)))
        else {
            return Vec::new();
        };
        let uniform: Vec<&str> = case
            .program
            .args
            .iter()
            .filter(|a| matches!(a.kind, crate::ArgKind::Uniform))
            .map(|a| a.name.as_str())
            .collect();
        let uniform = if uniform.is_empty() {
            String::new()
        } else {
            format!(" --uniform-args {}", uniform.join(","))
        };
        let run = case.run_line().replace(" --interp fr", "");
        let what = if failure.kind.ends_with("differs under FR") {
            "changes what a work-item computes"
        } else if failure.kind.ends_with("differs under OBL only") {
            "loses the value of a work-item that is masked off while others still run (the output is right only if inactive lanes keep their registers)"
        } else {
            "fails"
        };
        vec![
            format!(
                "check it: pllvm check-llvm-pass {file} --passes {}{uniform} {run} --emit-input in.ll --emit out.ll",
                p.name
            ),
            format!(
                "traces: pllvm run {file} {run} --trace table (FR, the reference); \
                 pllvm run out.ll {run} --interp obl --trace table --values (the output, OBL)"
            ),
            format!(
                "report: `opt-22 -mtriple={TRIPLE} -passes='{}'` {what} on the attached kernel \
                 ({} instructions in {} blocks, in.ll: the kernel as pllvm exports it for AMDGPU, \
                 its uniform parameters `inreg`). Run with {} work-items on the inputs `{run}`, \
                 the output (out.ll) executed as a wave (lanes masked off on divergent branches, \
                 pllvm's OBLIVIOUS interpretation) gives: {}. The input run lane by lane \
                 (FREEZING) is the reference; both schedules are in the message. Reproduce with \
                 `pllvm check-llvm-pass` above (pllvm, the executable semantics of P-LLVM).",
                p.passes,
                case.instructions(),
                case.blocks(),
                case.width,
                failure.detail.lines().next().unwrap_or("")
            ),
        ]
    }

    fn check(&self, case: &Case) -> Verdict {
        if case.module().functions[case.func()].body.is_none() {
            return Verdict::Skip("no body".into());
        }
        let config = equiv_config(case.run_config(Interp::Freezing));
        let original = match Original::new(case.module(), &config) {
            Ok(o) => o,
            Err(e) => return Verdict::Skip(format!("the original: {e}")),
        };
        match self.pipeline {
            Some(p) => self.check_pipeline(case, &original, p),
            None => {
                let mut skips = Vec::new();
                for p in &PIPELINES {
                    match self.check_pipeline(case, &original, p) {
                        Verdict::Pass => {}
                        Verdict::Skip(why) => skips.push(why),
                        fail @ Verdict::Fail(_) => return fail,
                    }
                }
                if skips.len() == PIPELINES.len() {
                    Verdict::Skip(skips.join("; "))
                } else {
                    Verdict::Pass
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeded_fault_swaps_the_first_flow_branch_only() {
        let text = "define i32 @f(i1 %c) {\nentry:\n  br i1 %c, label %a, label %Flow\nFlow:                 ; preds = %entry\n  br i1 %c, label %a, label %b\nFlow1:\n  br i1 %c, label %a, label %b\na:\n  ret i32 0\nb:\n  ret i32 1\n}\n";
        let out = retarget_flow_edge(text);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[2], "  br i1 %c, label %a, label %Flow");
        assert_eq!(lines[4], "  br i1 %c, label %b, label %a");
        assert_eq!(lines[6], "  br i1 %c, label %a, label %b");
    }

    #[test]
    fn pipelines_are_found_by_either_name() {
        for p in &PIPELINES {
            assert_eq!(pipeline(p.name), Some(p));
            assert_eq!(pipeline(p.oracle), Some(p));
            assert!(p.oracle.ends_with(p.name));
        }
        assert_eq!(pipeline("nope"), None);
    }
}
