//! Differential execution (docs/native.md): the interpreter against native code, lane
//! by lane. The reference is the ORIGINAL program under FREEZING (what users
//! care about; default) or the transformed one under OBLIVIOUS (what the native
//! code was compiled from, thesis §4.5). A run is compared only when the
//! interpreter's outcome is `returned`; then every lane's return value and every
//! byte of every global are compared: ⊤ lanes and bytes are skipped, a NaN equals
//! any NaN, everything else is compared bit for bit, and pointers into globals
//! are compared as (global, offset) through the runner's `base` lines.

use crate::inputs::{global_of, run_input};
use pllvm_codegen::error::Site;
use pllvm_codegen::kernel::Kernel;
use pllvm_codegen::native::protocol::{Outputs, RunInput, Status};
use pllvm_codegen::native::{NativeError, Program};
use pllvm_interp::{Machine, Outcome, RunConfig};
use pllvm_semantics::entity::EntityRef;
use pllvm_semantics::ir::{Block, FuncId, InstKind, Module};
use pllvm_semantics::memory::Byte;
use pllvm_semantics::rules::Interp;
use pllvm_semantics::theta::{self, Builtin};
use pllvm_semantics::types::TypeData;
use pllvm_semantics::value::{Pointer, Val};
use std::time::{Duration, Instant};

/// Which interpreter run the native code is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Reference {
    /// The original program under FREEZING (the default).
    #[default]
    OriginalFreezing,
    /// The transformed program under OBLIVIOUS.
    TransformedOblivious,
}

impl Reference {
    /// `original-fr` / `transformed-obl`.
    pub fn name(self) -> &'static str {
        match self {
            Reference::OriginalFreezing => "original-fr",
            Reference::TransformedOblivious => "transformed-obl",
        }
    }
}

/// One kernel of a differential batch.
#[derive(Clone, Debug)]
pub struct DiffCase<'m> {
    /// The compiled kernel (a function of the transformed module).
    pub kernel: Kernel<'m>,
    /// The program before the transforms (the same globals, the same function name).
    pub original: &'m Module,
    /// The function in `original`.
    pub original_function: FuncId,
    /// The run inputs: `threads` is the number of threads n.
    pub config: RunConfig,
}

/// The scalar a native word is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expected {
    /// ⊤, or a pointer into an object that is no global: not compared.
    Skip,
    /// An integer of this width.
    Int(u64, u32),
    /// A float's bits.
    F32(u32),
    /// A double's bits.
    F64(u64),
    /// A pointer: (global, offset), or a plain address.
    Ptr(Option<usize>, u64),
}

/// Where the native run went another way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    /// A lane returned another value.
    Ret {
        /// The thread.
        lane: usize,
        /// The interpreter's value.
        expected: String,
        /// The native value.
        native: String,
        /// The terminator that returned it in the reference program.
        site: Option<Site>,
        /// That terminator's block name.
        block: Option<String>,
    },
    /// A byte of a global differs.
    Global {
        /// `@name`.
        name: String,
        /// The byte's offset.
        offset: u64,
        /// The interpreter's byte.
        expected: u8,
        /// The native byte.
        native: u8,
    },
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Difference::Ret {
                lane,
                expected,
                native,
                block,
                ..
            } => {
                write!(
                    f,
                    "lane {lane} returns {native} natively, the interpreter {expected}"
                )?;
                if let Some(b) = block {
                    write!(f, " (ret in %{b})")?;
                }
                Ok(())
            }
            Difference::Global {
                name,
                offset,
                expected,
                native,
            } => write!(
                f,
                "{name} byte {offset} is 0x{native:02x} natively, the interpreter 0x{expected:02x}"
            ),
        }
    }
}

/// The verdict on one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every compared lane and byte agrees.
    Agree {
        /// Lanes whose return values were compared (⊤ lanes skipped).
        lanes: usize,
        /// Global bytes compared.
        bytes: usize,
    },
    /// The first difference.
    Differ(Difference),
    /// The native run did not return (a signal, the alarm, an exit code).
    NativeFailed(Status),
    /// Not compared: the interpreter's outcome was not `returned`, with it.
    Skipped(String),
    /// The case cannot run: its inputs do not fit the program, or its thread
    /// count needs chunks the program's horizontal builtins forbid.
    Refused(String),
    /// Not compared: the deadline of [`diff_batch_until`] passed first, while
    /// the interpreter ran the case or before the native runs ended (which).
    CutOff(String),
}

impl Verdict {
    /// Whether the native run agrees (or was not compared).
    pub fn is_ok(&self) -> bool {
        matches!(self, Verdict::Agree { .. } | Verdict::Skipped(_))
    }
}

/// Whether `func` of `module` uses a horizontal builtin of Fig. 4.15 or
/// `mask()`: such a program's chunks are thread arrays of their own, so its runs
/// with more threads than W cannot be compared with one interpreter run.
pub fn uses_horizontal(module: &Module, func: FuncId) -> bool {
    let Some(body) = &module.functions[func].body else {
        return false;
    };
    body.insts.values().any(|inst| match &inst.kind {
        InstKind::Mask => true,
        InstKind::Call { callee, .. } => theta::resolve(&module.functions[*callee].name)
            .is_some_and(|b| theta::is_horizontal(b) || b == Builtin::Ballot),
        _ => false,
    })
}

/// The interpreter's run, reduced to what is compared.
struct Observed {
    ret: Vec<Expected>,
    returned_in: Vec<Option<Block>>,
    globals: Vec<Vec<Option<ByteExpect>>>,
}

/// One expected global byte.
#[derive(Clone, Copy, Debug)]
enum ByteExpect {
    Data(u8),
    /// Byte `index` of a pointer to (global, offset).
    PtrFrag(usize, u64, u8),
}

fn expected_of(machine: &Machine<'_>, v: &Val, ret_ty: &TypeData) -> Expected {
    match (v, ret_ty) {
        (Val::Int(b), TypeData::Int(w)) if *w <= 64 => Expected::Int(*b as u64, *w),
        (Val::F32(b), _) => Expected::F32(*b),
        (Val::F64(b), _) => Expected::F64(*b),
        (
            Val::Ptr(Pointer {
                object: None,
                offset,
            }),
            _,
        ) => Expected::Ptr(None, *offset),
        (
            Val::Ptr(Pointer {
                object: Some(o),
                offset,
            }),
            _,
        ) => match global_of(machine, *o) {
            Some(g) => Expected::Ptr(Some(g.index()), *offset),
            None => Expected::Skip,
        },
        _ => Expected::Skip,
    }
}

/// Runs the interpreter on `module`'s function `func` with `config` under
/// `interp` (the greedy lowest-index scheduler, Ch. 5) and keeps what is compared;
/// `Err` for a run that cannot start, `Ok(Err(outcome))` for one that did not return.
fn interpret(
    module: &Module,
    func: FuncId,
    config: &RunConfig,
    interp: Interp,
    deadline: Option<Instant>,
) -> Result<Result<Observed, String>, String> {
    let mut config = config.clone();
    config.interp = interp;
    config.function = Some(module.functions[func].name.clone());
    config.observe = false;
    let mut machine = Machine::new(module, &config).map_err(|e| e.to_string())?;
    machine.record_trace = false;
    machine.deadline = deadline;
    let outcome = machine.run_to_end().map_err(|e| e.to_string())?;
    if outcome != Outcome::Returned {
        return Ok(Err(outcome.to_string()));
    }
    let ret_ty = module.types.get(module.functions[func].ret_ty).clone();
    let ret = machine
        .results()
        .iter()
        .map(|r| {
            r.as_ref()
                .map_or(Expected::Skip, |v| expected_of(&machine, v, &ret_ty))
        })
        .collect();
    let mut globals = Vec::new();
    for (g, data) in module.globals.iter() {
        let size = module.types.size_of(data.ty);
        let bytes = machine
            .global_pointer(g)
            .and_then(|p| machine.state.mem.read_bytes(p, size).ok())
            .unwrap_or_default();
        globals.push(
            bytes
                .iter()
                .map(|b| match b {
                    Byte::Uninit => None,
                    Byte::Data(d) => Some(ByteExpect::Data(*d)),
                    Byte::PtrFrag {
                        ptr:
                            Pointer {
                                object: None,
                                offset,
                            },
                        index,
                    } => Some(ByteExpect::Data((offset >> (8 * u64::from(*index))) as u8)),
                    Byte::PtrFrag {
                        ptr:
                            Pointer {
                                object: Some(o),
                                offset,
                            },
                        index,
                    } => global_of(&machine, *o)
                        .map(|g| ByteExpect::PtrFrag(g.index(), *offset, *index)),
                })
                .collect(),
        );
    }
    Ok(Ok(Observed {
        ret,
        returned_in: machine.state.incoming.clone(),
        globals,
    }))
}

/// Compares the native outputs with the interpreter's run.
fn compare(
    reference: &Observed,
    outputs: &Outputs,
    module: &Module,
    func: FuncId,
    void: bool,
) -> Verdict {
    let mut lanes = 0;
    if !void {
        for (lane, expected) in reference.ret.iter().enumerate() {
            let Some(&word) = outputs.ret.get(lane) else {
                return Verdict::Differ(Difference::Ret {
                    lane,
                    expected: show(*expected),
                    native: "nothing".into(),
                    site: None,
                    block: None,
                });
            };
            let agree = match *expected {
                Expected::Skip => continue,
                Expected::Int(b, w) => mask(word, w) == b,
                Expected::F32(b) => {
                    let native = word as u32;
                    native == b || (f32::from_bits(native).is_nan() && f32::from_bits(b).is_nan())
                }
                Expected::F64(b) => {
                    word == b || (f64::from_bits(word).is_nan() && f64::from_bits(b).is_nan())
                }
                Expected::Ptr(None, address) => word == address,
                Expected::Ptr(Some(g), offset) => outputs
                    .bases
                    .get(g)
                    .is_some_and(|base| base.wrapping_add(offset) == word),
            };
            lanes += 1;
            if !agree {
                let block = reference.returned_in.get(lane).copied().flatten();
                let body = module.functions[func].body.as_ref();
                return Verdict::Differ(Difference::Ret {
                    lane,
                    expected: show(*expected),
                    native: show_native(*expected, word, &outputs.bases),
                    site: block.map(|b| Site::Terminator(func, b)),
                    block: block.and_then(|b| body.map(|body| body.blocks[b].name.clone())),
                });
            }
        }
    }
    let mut bytes = 0;
    for (g, (expected, data)) in reference
        .globals
        .iter()
        .zip(module.globals.values())
        .enumerate()
    {
        let native = outputs.globals.get(g).map_or(&[][..], Vec::as_slice);
        for (offset, e) in expected.iter().enumerate() {
            let want = match e {
                None => continue,
                Some(ByteExpect::Data(d)) => *d,
                Some(ByteExpect::PtrFrag(target, off, index)) => {
                    let Some(base) = outputs.bases.get(*target) else {
                        continue;
                    };
                    (base.wrapping_add(*off) >> (8 * u64::from(*index))) as u8
                }
            };
            bytes += 1;
            let got = native.get(offset).copied();
            if got != Some(want) {
                return Verdict::Differ(Difference::Global {
                    name: format!("@{}", data.name),
                    offset: offset as u64,
                    expected: want,
                    native: got.unwrap_or(0),
                });
            }
        }
    }
    Verdict::Agree { lanes, bytes }
}

fn mask(word: u64, w: u32) -> u64 {
    if w >= 64 {
        word
    } else {
        word & ((1u64 << w) - 1)
    }
}

fn show(e: Expected) -> String {
    match e {
        Expected::Skip => "⊤".into(),
        Expected::Int(b, w) => signed(b, w).to_string(),
        Expected::F32(b) => format!("{:?}", f32::from_bits(b)),
        Expected::F64(b) => format!("{:?}", f64::from_bits(b)),
        Expected::Ptr(None, a) => format!("0x{a:x}"),
        Expected::Ptr(Some(g), off) => format!("global #{g}+{off}"),
    }
}

fn signed(b: u64, w: u32) -> i64 {
    if w >= 64 {
        b as i64
    } else {
        ((b << (64 - w)) as i64) >> (64 - w)
    }
}

fn show_native(e: Expected, word: u64, bases: &[u64]) -> String {
    match e {
        Expected::Int(_, w) => signed(mask(word, w), w).to_string(),
        Expected::F32(_) => format!("{:?}", f32::from_bits(word as u32)),
        Expected::F64(_) => format!("{:?}", f64::from_bits(word)),
        Expected::Skip | Expected::Ptr(..) => {
            let inside = bases
                .iter()
                .enumerate()
                .filter(|&(_, &b)| b <= word)
                .max_by_key(|&(_, &b)| b);
            match inside {
                Some((g, b)) if word - b < 1 << 20 => format!("global #{g}+{}", word - b),
                _ => format!("0x{word:x}"),
            }
        }
    }
}

/// Runs every case on the interpreter (the `reference`) and natively in one run
/// of `program` (built from the cases' kernels in order, chunks of `width`),
/// and returns one verdict per case. `kernel_timeout` bounds each kernel (the
/// runner's alarm), `wall` the whole native run.
pub fn diff_batch(
    program: &Program,
    cases: &[DiffCase<'_>],
    width: usize,
    reference: Reference,
    kernel_timeout: u32,
    wall: Duration,
) -> Result<Vec<Verdict>, NativeError> {
    diff_batch_until(program, cases, width, reference, kernel_timeout, wall, None)
}

/// [`diff_batch`] that ends at `deadline` (`pllvm diff-exec --time`, docs/cli.md
/// "Time and progress") with what it compared: an interpreter run still going
/// then ends, and its case, and every case when the native runs have not ended
/// by then, is [`Verdict::CutOff`] (the native runner is stopped as at `wall`).
pub fn diff_batch_until(
    program: &Program,
    cases: &[DiffCase<'_>],
    width: usize,
    reference: Reference,
    kernel_timeout: u32,
    wall: Duration,
    deadline: Option<Instant>,
) -> Result<Vec<Verdict>, NativeError> {
    let time_limit = Outcome::Limit(pllvm_interp::machine::TIME_LIMIT.to_string()).to_string();
    let mut verdicts: Vec<Option<Verdict>> = vec![None; cases.len()];
    let mut references = Vec::new();
    let mut inputs: Vec<RunInput> = Vec::new();
    for (k, case) in cases.iter().enumerate() {
        let n = case.config.threads;
        if n > width && uses_horizontal(case.original, case.original_function) {
            verdicts[k] = Some(Verdict::Refused(format!(
                "{n} threads run in chunks of {width}, but the program uses a horizontal builtin or mask(), which range over one chunk only: give at most {width} threads or --width {n}"
            )));
            continue;
        }
        let (module, func, interp) = match reference {
            Reference::OriginalFreezing => {
                (case.original, case.original_function, Interp::Freezing)
            }
            Reference::TransformedOblivious => {
                (case.kernel.module, case.kernel.function, Interp::Oblivious)
            }
        };
        let prepared =
            interpret(module, func, &case.config, interp, deadline).and_then(|run| match run {
                Err(outcome) => Ok(Err(outcome)),
                Ok(r) => {
                    let mut config = case.config.clone();
                    config.function = Some(
                        case.kernel.module.functions[case.kernel.function]
                            .name
                            .clone(),
                    );
                    config.observe = false;
                    let machine =
                        Machine::new(case.kernel.module, &config).map_err(|e| e.to_string())?;
                    Ok(Ok((r, run_input(k, &machine)?)))
                }
            });
        match prepared {
            Err(why) => verdicts[k] = Some(Verdict::Refused(why)),
            Ok(Err(outcome)) if deadline.is_some() && outcome == time_limit => {
                verdicts[k] = Some(Verdict::CutOff(format!(
                    "the interpreter's run ended: {outcome}"
                )));
            }
            Ok(Err(outcome)) => verdicts[k] = Some(Verdict::Skipped(outcome)),
            Ok(Ok((r, input))) => {
                inputs.push(input);
                references.push((k, r, module, func));
            }
        }
    }
    // The native runs end by the deadline too: what is left of it bounds them.
    let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
    let wall = left.map_or(wall, |left| wall.min(left));
    let results = if inputs.is_empty() {
        Vec::new()
    } else {
        match program.run(&inputs, kernel_timeout, wall) {
            Err(NativeError::Timeout(_)) if left.is_some_and(|left| left <= wall) => {
                for (k, ..) in &references {
                    verdicts[*k] = Some(Verdict::CutOff(format!(
                        "the native runs had not ended: {}",
                        pllvm_interp::machine::TIME_LIMIT
                    )));
                }
                return Ok(verdicts
                    .into_iter()
                    .map(|v| v.unwrap_or_else(|| Verdict::Skipped("not run".into())))
                    .collect());
            }
            other => other?,
        }
    };
    for ((k, r, module, func), result) in references.into_iter().zip(results) {
        let case = &cases[k];
        let kfunc = &case.kernel.module.functions[case.kernel.function];
        let void = matches!(case.kernel.module.types.get(kfunc.ret_ty), TypeData::Void);
        verdicts[k] = Some(match result.status {
            Status::Ok(outputs) => compare(&r, &outputs, module, func, void),
            other => Verdict::NativeFailed(other),
        });
    }
    Ok(verdicts
        .into_iter()
        .map(|v| v.unwrap_or_else(|| Verdict::Skipped("not run".into())))
        .collect())
}
