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
//! Every `; run:` of the file is then executed by [`observe_run`], which watches each
//! dynamic instance: the lanes that execute an instruction (the control mask for
//! a phi, every lane for `total` and `mask()`, the activation otherwise, and of
//! those only lanes whose definition mask is set (γ', §6.2), as
//! `pllvm_interp::observe` does) must agree on its value, the active lanes of a
//! terminator must take one successor, and the lanes' private copies of a stack
//! object created together must hold equal contents, wherever an analysis says
//! `uniform`. Pointers into stack objects are compared up to the object: the
//! copies one `alloca` made in one step are one abstract object (Fig. 6.11).
//! Every sa-shape `sa` gives an integer or pointer value is checked on every dynamic
//! instance too ([`stride_violations`]): the executing lanes are in γ_sa of it
//! (Fig. 10.4, read modulo 2^N, [`SaShape::admits`]).

use pllvm_analysis::result::{AnalysisError, AnalysisKind, InitShapes, Uniformity};
use pllvm_analysis::sa_shape::SaShape;
use pllvm_analysis::shape::Shape;
use pllvm_analysis::stride::sa_bits;
use pllvm_analysis::uniformity::analyze_for_width;
use pllvm_interp::observe::{CopyGroups, DivergenceRecord, Observed};
use pllvm_interp::{Machine, Outcome, RunConfig};
use pllvm_semantics::diag::{LineIndex, SourceMap};
use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::{Block, Body, FuncId, Inst, InstKind, Module};
use pllvm_semantics::rules::step::BlockStep;
use pllvm_semantics::value::Val;
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

/// The claims of `r` that `obs` refutes, as readable names.
pub fn unsound_claims(r: &Uniformity, body: &Body, obs: &Observation) -> Vec<String> {
    let mut out = Vec::new();
    for &b in &body.layout {
        let data = &body.blocks[b];
        for &i in data.phis.iter().chain(&data.body) {
            if let Some(v) = body.insts[i].result
                && r.values[v].is_uniform()
                && obs.insts[i].diverged
            {
                out.push(format!(
                    "%{} (in {})",
                    body.value_name(v).unwrap_or("?"),
                    data.name
                ));
            }
            if matches!(body.insts[i].kind, InstKind::Alloca { .. })
                && r.allocas.get(&i).is_some_and(|s| s.is_uniform())
                && obs.objects[i]
            {
                out.push(format!(
                    "the stack object of %{} (in {})",
                    body.insts[i]
                        .result
                        .and_then(|v| body.value_name(v))
                        .unwrap_or("?"),
                    data.name
                ));
            }
        }
        if r.terminators[b].is_uniform() && obs.branches[b] {
            out.push(format!("the terminator of {}", data.name));
        }
        if r.activation[b].is_uniform() && obs.activation[b] {
            out.push(format!("the activation of {}", data.name));
        }
    }
    out
}

/// What lanes were seen to do in one run.
#[derive(Clone, Debug)]
pub struct Observation {
    /// Per instruction with a result: whether the executing lanes of one instance
    /// disagreed (pointers into stack objects compared up to the object).
    pub insts: SecondaryMap<Inst, ObservedInst>,
    /// Per block: whether the active lanes of one execution took different
    /// successors.
    pub branches: SecondaryMap<Block, bool>,
    /// Per block: whether it once executed with some but not all lanes of the
    /// thread array active.
    pub activation: SecondaryMap<Block, bool>,
    /// Per `alloca`: whether the copies made together once held different contents.
    pub objects: SecondaryMap<Inst, bool>,
    /// How the run ended.
    pub outcome: Outcome,
}

/// One static instruction's observation (the interpreter's observer's).
pub type ObservedInst = Observed;

/// Runs `config` on `module` block by block (its schedule, or the earliest
/// pending block) and records what the lanes did: the interpreter's own observer
/// ([`DivergenceRecord`], `pllvm_interp::observe`) with stack-object tracking on.
pub fn observe_run(module: &Module, config: &RunConfig) -> Result<Observation, String> {
    observe_run_with(module, config, &mut |_, _| {})
}

/// One executing lane's value, as the stride check reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaneValue {
    /// ⊤.
    Undef,
    /// An integer's bit pattern (up to 128 bits), or a pointer's address.
    Int(u128),
    /// A pointer into a stack object: the object's class (its `alloca` and the
    /// step that made the lanes' copies, Fig. 6.11) and the offset.
    Stack {
        /// The `alloca` and the step.
        class: (Inst, u64),
        /// The byte offset.
        offset: u64,
    },
    /// Anything else (floats, wide integers).
    Other,
}

/// The violations of `r`'s stride-alignment claims (`r.strides`, thesis Fig. 10.4)
/// in one run of `config`: for each dynamic instance of an integer or pointer
/// value, its executing lanes must be in γ_sa of the claim, read modulo 2^N
/// ([`SaShape::admits`]); pointers into stack objects count up to the object (the
/// lanes' copies made together are one object, and their offsets follow the shape).
pub fn stride_violations(
    module: &Module,
    r: &Uniformity,
    config: &RunConfig,
) -> Result<Vec<String>, String> {
    stride_violations_from(module, r, config, 0)
}

/// [`stride_violations`] in a thread array whose lane 0 has thread id
/// `first_thread` (one chunk of a larger thread array, as the native backend
/// runs it: the claims of `sa` for [`pllvm_analysis::stride::ThreadIds::Chunk`]).
pub fn stride_violations_from(
    module: &Module,
    r: &Uniformity,
    config: &RunConfig,
    first_thread: u64,
) -> Result<Vec<String>, String> {
    let body = module.functions[r.func]
        .body
        .as_ref()
        .ok_or("the analysed function has no body")?;
    let mut bad: BTreeMap<Inst, String> = BTreeMap::new();
    let mut hook = |i: Inst, lanes: &[(usize, LaneValue)]| {
        if bad.contains_key(&i) {
            return;
        }
        let Some(v) = body.insts[i].result else {
            return;
        };
        let (Some(&claim), Some(bits)) = (r.strides.get(&v), sa_bits(module, body, v)) else {
            return;
        };
        let stack_class = lanes.iter().find_map(|(_, l)| match l {
            LaneValue::Stack { class, .. } => Some(*class),
            _ => None,
        });
        let mut ints: Vec<(usize, Option<u128>)> = Vec::with_capacity(lanes.len());
        let mut mixed = false;
        for (lane, l) in lanes {
            let value = match (l, stack_class) {
                (LaneValue::Undef, _) => None,
                (LaneValue::Int(x), None) => Some(*x),
                (LaneValue::Stack { class, offset }, Some(c)) if *class == c => {
                    Some(u128::from(*offset))
                }
                _ => {
                    mixed = true;
                    None
                }
            };
            ints.push((*lane, value));
        }
        // Lanes pointing into different objects, or some into the stack and some
        // not, are in no strided shape; a varying one only speaks of each lane.
        let holds = if mixed {
            matches!(claim, SaShape::Varying { .. })
                && lanes.iter().all(|(_, l)| match l {
                    LaneValue::Int(x) => claim.admits(bits, &[(0, Some(*x))]),
                    LaneValue::Stack { offset, .. } => {
                        claim.admits(bits, &[(0, Some(u128::from(*offset)))])
                    }
                    _ => true,
                })
        } else {
            claim.admits(bits, &ints)
        };
        if !holds {
            let shown: Vec<String> = lanes
                .iter()
                .map(|(t, l)| match l {
                    LaneValue::Undef => format!("{t}: ⊤"),
                    LaneValue::Int(x) => format!("{t}: {x}"),
                    LaneValue::Stack { offset, .. } => format!("{t}: stack+{offset}"),
                    LaneValue::Other => format!("{t}: ?"),
                })
                .collect();
            bad.insert(
                i,
                format!(
                    "calls %{} {claim}, but one instance had lanes [{}]",
                    body.value_name(v).unwrap_or("?"),
                    shown.join(", ")
                ),
            );
        }
    };
    observe_run_from(module, config, first_thread, &mut hook)?;
    Ok(bad.into_values().collect())
}

/// What [`observe_run_with`] calls with each dynamic instance: the instruction
/// and its executing lanes' values.
pub type InstanceHook<'a> = dyn FnMut(Inst, &[(usize, LaneValue)]) + 'a;

/// [`observe_run`], calling `on_instance` with every dynamic instance of an
/// instruction with a result: the executing lanes whose definition mask is set
/// and their values.
pub fn observe_run_with(
    module: &Module,
    config: &RunConfig,
    on_instance: &mut InstanceHook<'_>,
) -> Result<Observation, String> {
    observe_run_from(module, config, 0, on_instance)
}

/// [`observe_run_with`] in a thread array whose lane 0 has thread id
/// `first_thread` (lane τ's `thread_id` is `first_thread + τ`, as in a launch,
/// [`pllvm_semantics::theta::LaunchPosition`]).
pub fn observe_run_from(
    module: &Module,
    config: &RunConfig,
    first_thread: u64,
    on_instance: &mut InstanceHook<'_>,
) -> Result<Observation, String> {
    let mut m = Machine::new(module, config).map_err(|e| e.to_string())?;
    m.program.launch.first_local_id = first_thread;
    m.record_trace = false;
    // The observer is fed here (with the instance hook), not by the machine.
    m.observe = false;
    let body = m.program.body;
    let mut record = DivergenceRecord::new(body);
    record.track_objects = true;
    let mut outcome = Outcome::Returned;
    let schedule: Option<Vec<Block>> = match &config.schedule {
        Some(names) => Some(
            names
                .iter()
                .map(|n| {
                    body.block_by_name(n)
                        .ok_or_else(|| format!("bad schedule: no block named {n}"))
                })
                .collect::<Result<_, _>>()?,
        ),
        None => None,
    };
    let mut step_no: usize = 0;
    loop {
        let next = match &schedule {
            Some(s) => match s.get(step_no) {
                Some(&b) => b,
                None => {
                    outcome = if m.state.all_done() {
                        Outcome::Returned
                    } else {
                        Outcome::Incomplete
                    };
                    break;
                }
            },
            None => {
                if m.state.all_done() {
                    outcome = Outcome::Returned;
                    break;
                }
                match pllvm_interp::sched::earliest_pending(&m.program, &m.state) {
                    Some(b) => b,
                    None => {
                        outcome = Outcome::Incomplete;
                        break;
                    }
                }
            }
        };
        step_no += 1;
        if let Some(ended) = m.checked_step(next).map_err(|e| e.to_string())? {
            outcome = ended;
            break;
        }
        let Some(row) = m.trace.last() else { break };
        let step = BlockStep {
            scheduled: row.scheduled,
            cmask: row.cmask.clone(),
            pmask: row.pmask.clone(),
            active: row.active.clone(),
            succ: row.succ.clone(),
            written: None,
            rules: row.rules,
        };
        record.observe_with(
            body,
            &m.state.env,
            &m.state.mem,
            &step,
            &mut |i, lanes, groups| {
                let values: Vec<(usize, LaneValue)> = lanes
                    .iter()
                    .map(|(lane, val)| (*lane, lane_value(groups, val)))
                    .collect();
                on_instance(i, &values);
            },
        );
    }
    Ok(Observation {
        insts: record.insts.clone(),
        branches: observed_flags(body, |b| record.branches[b].diverged),
        activation: observed_flags(body, |b| record.activation[b]),
        objects: record.objects.clone(),
        outcome,
    })
}

/// A table of one flag per block of `body`.
fn observed_flags(body: &Body, flag: impl Fn(Block) -> bool) -> SecondaryMap<Block, bool> {
    let mut out = SecondaryMap::with_default(false);
    for &b in &body.layout {
        out[b] = flag(b);
    }
    out
}

/// A lane's value for the stride check.
fn lane_value(class: &CopyGroups, v: &Val) -> LaneValue {
    match v {
        Val::Undef => LaneValue::Undef,
        Val::Int(x) => LaneValue::Int(*x),
        Val::Ptr(p) => match p.object.and_then(|o| class.get(&o)) {
            Some(&c) => LaneValue::Stack {
                class: c,
                offset: p.offset,
            },
            None => LaneValue::Int(u128::from(p.address())),
        },
        _ => LaneValue::Other,
    }
}
