//! Divergence-analysis expectations of corpus files, and the dynamic observation
//! that every `uniform` claim is checked against.
//!
//! ```text
//! ; analyze: --uniform-args n            (inputs: InitShapes, Listing 1)
//!   %x = phi i32 [0, %B], [1, %C]        ; expect: varying
//!   %y = add i32 %n, 1                   ; expect[thesis]: uniform ; expect[popl]: uniform
//!   br i1 %c, label %B, label %C         ; expect: varying        (the terminator)
//! B:                                     ; expect: varying        (the block's activation)
//! ```
//! A trailing `; expect: S` applies to every analysis that
//! [takes unnamed expectations](AnalysisKind::takes_unnamed_expectations) (`thesis`,
//! `popl`), `; expect[NAME]: S` to the analysis `NAME` only (analyses that assume
//! reducible control flow skip irreducible functions unless an expectation names
//! them); `S` is `uniform` or `varying` (or `bottom`). On an
//! `alloca` line the shape is the stack object's (§6.6). Lines carrying `; error:`
//! belong to verifier files and are left alone.
//!
//! For `sa` (thesis Ch. 10) an expectation may name a stride-alignment shape:
//! `; expect[sa]: stride 4 align 16`, `; expect[sa]: uniform align 8`,
//! `; expect[sa]: varying align 4` (compared with the sa-shape exactly), while
//! `uniform` / `varying` alone compare the basic shape; `; analyze: --width W`
//! analyses `sa` for at most W lanes (Fig. 10.12), and every run of the file must
//! then use at most W threads.
//!
//! Every `; run:` of the file is then executed by the interpreter's soundness
//! checker ([`pllvm_interp::soundness`]): [`observe_run`] records what the lanes of
//! each dynamic instance did, [`unsound_claims`] names every `uniform` claim the
//! run refutes, and [`stride_violations`] every sa-shape it refutes.

use pllvm_analysis::result::{AnalysisError, AnalysisKind, InitShapes, Uniformity};
use pllvm_analysis::sa_shape::SaShape;
use pllvm_analysis::shape::Shape;
use pllvm_analysis::uniformity::analyze_for_width;
use pllvm_interp::RunConfig;
use pllvm_interp::soundness::{observe_run, stride_violations, unsound_claims};
use pllvm_semantics::diag::{LineIndex, SourceMap};
use pllvm_semantics::ir::{Block, Body, FuncId, Inst, Module};
use std::collections::BTreeMap;

/// One `; expect[...]:` on a program line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeExpect {
    /// 1-based line.
    pub line: usize,
    /// The analysis it is for (`None`: all).
    pub analysis: Option<AnalysisKind>,
    /// The expected shape.
    pub shape: Shape,
    /// `; expect[sa]: stride S align A` and the like: the expected sa-shape
    /// (thesis Fig. 10.4), compared exactly.
    pub sa: Option<SaShape>,
}

/// The analysis directives of a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnalysisDirectives {
    /// Parameters named by `; analyze: --uniform-args a,b`.
    pub uniform_args: Vec<String>,
    /// `--function NAME` of the `; analyze:` line.
    pub function: Option<String>,
    /// Whether the file has an `; analyze:` line.
    pub has_analyze_line: bool,
    /// `--width W` of the `; analyze:` line: `sa` assumes at most W lanes.
    pub width: Option<u32>,
    /// The expectations, in line order.
    pub expects: Vec<ShapeExpect>,
}

impl AnalysisDirectives {
    /// Whether the file asks for anything.
    pub fn is_empty(&self) -> bool {
        self.expects.is_empty() && !self.has_analyze_line
    }
}

/// Reads the analysis directives of `src`.
pub fn parse(src: &str) -> Result<AnalysisDirectives, String> {
    let mut d = AnalysisDirectives::default();
    for (n, line) in src.lines().enumerate() {
        let number = n + 1;
        let trimmed = line.trim_start();
        if line.contains("; error:") {
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("; analyze:") {
            d.has_analyze_line = true;
            let words: Vec<&str> = rest.split_whitespace().collect();
            let mut k = 0;
            while k < words.len() {
                match words[k] {
                    "--uniform-args" => {
                        k += 1;
                        let list = words
                            .get(k)
                            .ok_or_else(|| format!("line {number}: --uniform-args needs a list"))?;
                        d.uniform_args
                            .extend(list.split(',').map(|s| s.trim().to_string()));
                    }
                    "--function" => {
                        k += 1;
                        d.function = Some(
                            words
                                .get(k)
                                .ok_or_else(|| format!("line {number}: --function needs a name"))?
                                .to_string(),
                        );
                    }
                    "--width" => {
                        k += 1;
                        d.width = Some(
                            words
                                .get(k)
                                .and_then(|w| w.parse().ok())
                                .filter(|&w| w > 0)
                                .ok_or_else(|| format!("line {number}: --width needs a number"))?,
                        );
                    }
                    other => {
                        return Err(format!("line {number}: unknown analyze option '{other}'"));
                    }
                }
                k += 1;
            }
            continue;
        }
        if trimmed.starts_with(';') {
            continue;
        }
        // Trailing comments: every `; expect...:` on the line.
        let mut rest = line;
        while let Some(pos) = rest.find("; expect") {
            let after = &rest[pos + "; expect".len()..];
            let (analysis, after) = if let Some(a) = after.strip_prefix('[') {
                let (name, tail) = a
                    .split_once(']')
                    .ok_or_else(|| format!("line {number}: expect[ without ]"))?;
                let kind = AnalysisKind::parse(name.trim())
                    .ok_or_else(|| format!("line {number}: no analysis called '{name}'"))?;
                (Some(kind), tail)
            } else {
                (None, after)
            };
            let after = after
                .strip_prefix(':')
                .ok_or_else(|| format!("line {number}: expected ':' after expect"))?;
            let end = after.find(';').unwrap_or(after.len());
            let word = after[..end].trim();
            let (shape, sa) = match Shape::parse(word) {
                Some(shape) => (shape, None),
                None => match SaShape::parse(word) {
                    Some(sa) if analysis == Some(AnalysisKind::Sa) => (sa.to_basic(), Some(sa)),
                    _ => {
                        return Err(format!(
                            "line {number}: '{word}' is not a shape (uniform, varying, bottom; for sa also stride S align A)"
                        ));
                    }
                },
            };
            d.expects.push(ShapeExpect {
                line: number,
                analysis,
                shape,
                sa,
            });
            rest = &after[end..];
        }
    }
    Ok(d)
}

/// What a program line holds, for the expectations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEntity {
    /// A phi or command.
    Inst(Inst),
    /// A block's terminator.
    Term(Block),
    /// A block's label (its activation).
    Label(Block),
}

/// The entity on each 1-based line of `func`.
pub fn line_entities(
    src: &str,
    body: &Body,
    spans: &SourceMap,
    func: FuncId,
) -> BTreeMap<usize, LineEntity> {
    let index = LineIndex::new(src);
    let fs = spans.function(func);
    let line_of = |lo: u32| index.line_col(src, lo).0;
    let mut out = BTreeMap::new();
    for &b in &body.layout {
        let data = &body.blocks[b];
        let sp = fs.blocks.get(b);
        if sp.hi > sp.lo {
            out.insert(line_of(sp.lo), LineEntity::Label(b));
        }
        for &i in data.phis.iter().chain(&data.body) {
            let sp = fs.insts.get(i);
            if sp.hi > sp.lo {
                out.insert(line_of(sp.lo), LineEntity::Inst(i));
            }
        }
        let sp = fs.terms.get(b);
        if sp.hi > sp.lo {
            out.insert(line_of(sp.lo), LineEntity::Term(b));
        }
    }
    out
}

/// The shape `r` gives `entity`.
pub fn shape_of(r: &Uniformity, body: &Body, entity: LineEntity) -> Shape {
    match entity {
        LineEntity::Inst(i) => r.inst(body, i),
        LineEntity::Term(b) => r.terminators[b],
        LineEntity::Label(b) => r.activation[b],
    }
}

/// Checks the analysis expectations of one verified file and the dynamic agreement
/// of every `uniform` claim with each run in `runs`. Returns failure messages.
pub fn check(
    name: &str,
    src: &str,
    module: &Module,
    spans: &SourceMap,
    runs: &[(String, RunConfig)],
) -> Vec<String> {
    let d = match parse(src) {
        Ok(d) => d,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    if d.is_empty() {
        return Vec::new();
    }
    let func = match &d.function {
        Some(f) => module.function_by_name(f.trim_start_matches('@')),
        None => module.first_definition(),
    };
    let Some(func) = func else {
        return vec![format!("{name}: no function to analyse")];
    };
    let Some(body) = module.functions[func].body.as_ref() else {
        return vec![format!("{name}: the analysed function has no body")];
    };
    let init = match InitShapes::for_function(module, func, &d.uniform_args) {
        Ok(i) => i,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    let mut failures = Vec::new();
    let mut results = Vec::new();
    for kind in AnalysisKind::ALL {
        match analyze_for_width(module, func, kind, &init, d.width) {
            Ok(r) => results.push(r),
            // An analysis that assumes reducible control flow is skipped on an
            // irreducible function, unless an expectation names it.
            Err(AnalysisError::Irreducible(_))
                if !d.expects.iter().any(|e| e.analysis == Some(kind)) => {}
            Err(e) => failures.push(format!("{name}: {kind}: {e}")),
        }
    }
    let entities = line_entities(src, body, spans, func);
    for e in &d.expects {
        let Some(&entity) = entities.get(&e.line) else {
            failures.push(format!(
                "{name}:{}: expectation on a line without an instruction, terminator or label",
                e.line
            ));
            continue;
        };
        for r in &results {
            if e.analysis.is_some_and(|a| a != r.analysis)
                || (e.analysis.is_none() && !r.analysis.takes_unnamed_expectations())
            {
                continue;
            }
            if let Some(expected) = e.sa {
                let got = match entity {
                    LineEntity::Inst(i) => body.insts[i].result.and_then(|v| r.strides.get(&v)),
                    _ => None,
                };
                if got != Some(&expected) {
                    failures.push(format!(
                        "{name}:{}: {} says {}, expected {expected}",
                        e.line,
                        r.analysis,
                        got.map_or("no stride-alignment shape".to_string(), |s| s.word())
                    ));
                }
                continue;
            }
            let got = shape_of(r, body, entity);
            if got != e.shape {
                failures.push(format!(
                    "{name}:{}: {} says {got}, expected {}",
                    e.line, r.analysis, e.shape
                ));
            }
        }
    }
    for (run_name, config) in runs {
        let mut config = config.clone();
        config.function = Some(module.functions[func].name.clone());
        if let Some(w) = d.width
            && config.threads > w as usize
        {
            failures.push(format!(
                "{name}: run '{run_name}' has {} threads, more than --width {w}",
                config.threads
            ));
            continue;
        }
        for r in results.iter().filter(|r| !r.strides.is_empty()) {
            match stride_violations(module, r, &config) {
                Ok(v) => failures.extend(
                    v.into_iter()
                        .map(|v| format!("{name}: run '{run_name}': {} {v}", r.analysis)),
                ),
                Err(e) => failures.push(format!("{name}: run '{run_name}': {e}")),
            }
        }
        let obs = match observe_run(module, &config) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{name}: run '{run_name}': {e}"));
                continue;
            }
        };
        for r in &results {
            for v in unsound_claims(r, body, &obs) {
                failures.push(format!(
                    "{name}: run '{run_name}': {} calls {v} uniform, but its lanes disagreed",
                    r.analysis
                ));
            }
        }
    }
    failures
}
