//! The transform pipeline: a list of passes (`--pass dlt,boscc,pl`), each run on
//! the output of the one before, with the divergence analysis recomputed on every
//! intermediate program (docs/design/style.md §2: no caching across transforms). Every stage is
//! kept, so a checker can compare the program after each pass with the original
//! (the stage-wise equivalence, docs/transforms.md "How correctness is checked":
//! FR(original) = OBL(after each stage)).

use crate::error::{Site, TransformError};
pub use crate::pass::{Options, Pass, PassContext};

use crate::{boscc, dlt, ifconv, linearize, nonneg_div, reconverge};
use pllvm_analysis::result::AnalysisKind;
use pllvm_semantics::ir::{FuncId, Module};

/// The passes `pllvm compile` and `diff-exec` run by default before widening:
/// every branch left is uniform or a BOSCC test, with the divisions of known
/// non-negative dividends made shifts first.
pub const NATIVE_PASSES: &str = "nonneg-div,dlt,boscc,pl";

/// [`NATIVE_PASSES`] as passes.
pub fn native_passes() -> Vec<Pass> {
    vec![Pass::NonnegDiv, Pass::Dlt, Pass::Boscc, Pass::Pl]
}

/// Parses `dlt,boscc,pl`, checking the order the passes need.
pub fn parse_passes(spec: &str) -> Result<Vec<Pass>, String> {
    let mut passes = Vec::new();
    for word in spec.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        let pass = Pass::parse(word).ok_or_else(|| {
            format!(
                "unknown pass `{word}` (expected a comma-separated list of {})",
                Pass::ALL.map(Pass::name).join(", ")
            )
        })?;
        if passes.contains(&pass) {
            return Err(format!("pass `{word}` is given twice"));
        }
        passes.push(pass);
    }
    if passes.is_empty() {
        return Err("no pass given (expected e.g. dlt,pl or reconverge)".into());
    }
    let at = |p: Pass| passes.iter().position(|&q| q == p);
    if let (Some(b), Some(p)) = (at(Pass::Boscc), at(Pass::Pl))
        && b > p
    {
        return Err(
            "boscc inserts its gadgets before partial linearization folds them (thesis §9.2): write dlt,boscc,pl".into(),
        );
    }
    if let (Some(d), Some(p)) = (at(Pass::Dlt), at(Pass::Pl))
        && d > p
    {
        return Err(
            "dlt must run before pl (partial linearization needs uniform loops, thesis §8.3)"
                .into(),
        );
    }
    if at(Pass::NonnegDiv).is_some_and(|k| k > 0) {
        return Err(
            "nonneg-div reads the branches the other transforms replace by masks: give it first (nonneg-div,dlt,boscc,pl)".into(),
        );
    }
    let routes = passes.iter().filter(|&&p| p != Pass::NonnegDiv).count();
    for standalone in [Pass::Reconverge, Pass::IfConv] {
        if at(standalone).is_some() && routes > 1 {
            return Err(format!(
                "{} is a whole route of its own (it runs its loop transform itself): give it alone (after nonneg-div at most)",
                standalone.name()
            ));
        }
    }
    Ok(passes)
}

/// A pipeline as a corpus file's `; transform NAME:` line writes it: `--pass
/// dlt,pl` (required), `--analysis best|thesis|popl|llvm|sa`, `--uniform-args
/// a,b`, `--boscc POLICY`, `--live-outs held|tracked`, `--function NAME`. Returns the passes, the options and
/// the function name (if given).
pub fn parse_pipeline(text: &str) -> Result<(Vec<Pass>, Options, Option<String>), String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut passes = None;
    let mut options = Options::default();
    let mut function = None;
    let mut k = 0;
    while k < words.len() {
        let flag = words[k];
        let value = words
            .get(k + 1)
            .copied()
            .ok_or_else(|| format!("{flag} needs a value"))?;
        match flag {
            "--pass" => passes = Some(parse_passes(value)?),
            "--analysis" => {
                options.analysis = AnalysisKind::parse(value).ok_or_else(|| {
                    format!("--analysis: '{value}' is not best, thesis, popl, llvm or sa")
                })?
            }
            "--uniform-args" => {
                options.uniform_args = value.split(',').map(|a| a.trim().to_string()).collect()
            }
            "--boscc" => options.boscc = boscc::Policy::parse(value)?,
            "--live-outs" => {
                options.live_outs = crate::dlt::LiveOuts::parse(value)
                    .ok_or_else(|| format!("--live-outs: '{value}' is not held or tracked"))?
            }
            "--function" => function = Some(value.trim_start_matches('@').to_string()),
            other => return Err(format!("unknown transform option '{other}'")),
        }
        k += 2;
    }
    let passes = passes.ok_or("a transform needs --pass (e.g. --pass dlt,pl)")?;
    Ok((passes, options, function))
}

/// The program after one pass, with what the pass did.
#[derive(Clone, Debug)]
pub struct Stage {
    /// The pass.
    pub pass: Pass,
    /// The whole module after it.
    pub module: Module,
    /// One line per decision (a loop transformed, a branch kept, a gadget placed).
    pub notes: Vec<String>,
}

/// Runs `passes` on `func` of `module` in order; returns every stage.
pub fn run_passes(
    module: &Module,
    func: FuncId,
    passes: &[Pass],
    options: &Options,
) -> Result<Vec<Stage>, TransformError> {
    if module.functions[func].body.is_none() {
        return Err(TransformError::new(
            "transform",
            Site::Function(func),
            format!(
                "@{} is only declared: there is no body to transform",
                module.functions[func].name
            ),
        ));
    }
    let mut stages: Vec<Stage> = Vec::new();
    for &pass in passes {
        let input = stages.last().map_or(module, |s| &s.module);
        let cx = PassContext { options, pass };
        let (out, notes) = run_pass(input, func, &cx)?;
        stages.push(Stage {
            pass,
            module: out,
            notes,
        });
    }
    Ok(stages)
}

/// One pass on `func` of `module`.
pub fn run_pass(
    module: &Module,
    func: FuncId,
    cx: &PassContext<'_>,
) -> Result<(Module, Vec<String>), TransformError> {
    match cx.pass {
        Pass::NonnegDiv => nonneg_div::nonneg_div(module, func, cx),
        Pass::Dlt => dlt::divergent_loop_transform(module, func, cx),
        Pass::Boscc => boscc::insert_gadgets(module, func, cx),
        Pass::Pl => linearize::partial_linearization(module, func, cx),
        Pass::Reconverge => reconverge::reconverge(module, func, cx),
        Pass::IfConv => ifconv::if_convert(module, func, cx),
    }
}
