//! The scalar-lane C emitter: the second native oracle (docs/native.md). A batch of
//! transformed kernels becomes one C translation unit under the native ABI
//! (`docs/native.md`): per kernel a chunk function that runs one thread array of
//! `count ≤ W` lanes in plain C, an array of W per value and a loop over the lanes
//! per command, with no intrinsics and nothing shared with the widening route, so
//! that a disagreement between the two says which side is wrong.
//!
//! The C reproduces OBLIVIOUS (thesis §4.5) on the output of `dlt,boscc,pl`, where
//! every branch is uniform or a BOSCC branch on `any`. All lanes of a chunk follow
//! one program counter, so every lane that exists has its control mask set
//! (Def. 6) at every block the chunk runs: the activation (Def. 8) is the block
//! predicate (Def. 7) of the existing lanes, a phi takes the arm of the edge the
//! chunk came along in every lane ([evalphi]; the shadow operand of §4.8 is never
//! needed), a plain command runs in the active lanes and leaves 0 in the passive
//! ones ([W-CMD-INST], [UPD-ENV]: ⊤ there, and 0 is what pllvm's `freeze` picks),
//! a `total` command runs in every existing lane ([W-CMD-TOTAL]), `mask()` is the
//! activation ([W-CMD-MASK]), and the builtins of Fig. 4.15 range over the chunk's
//! lanes. A branch goes where its first active lane goes (lane 0's value when no
//! lane is active: any successor is then a legal schedule, [PC-ND-BRANCH]); if
//! another active lane goes elsewhere, the branch is divergent, which one
//! program counter cannot follow, and the process exits with [`DIVERGED_EXIT`].
//!
//! LLVM's poison cases are not C undefined behaviour here: shift amounts are
//! reduced modulo 64, division by zero and `INT_MIN / -1` give 0 (a passive or
//! missing lane never divides), `fptosi`/`fptoui` out of range give 0
//! (`scalar_c/prelude.c`). Built with `gcc -O1 -ffp-contract=off -fwrapv
//! -fno-strict-aliasing`, so float arithmetic is IEEE without contraction.
#![allow(
    rustdoc::broken_intra_doc_links,
    reason = "rule citations of the thesis, not links"
)]

mod expr;

use expr::{CType, Cx, c_type};

use crate::error::{Site, TransformError};
use crate::kernel::Kernel;
use pllvm_semantics::entity::EntityRef;
use pllvm_semantics::ir::{Block, InstKind, Terminator, Value};
use pllvm_semantics::types::TypeData;
use std::fmt::Write;

/// The exit code of a chunk whose active lanes disagree on a branch (a
/// divergent branch the transforms left): `PLLVM_DIVERGED_EXIT` of the prelude.
pub const DIVERGED_EXIT: i32 = 86;

pub use expr::PASS;

/// The widest chunk the C emitter accepts: a chunk's values live on the C stack,
/// W of each.
pub const MAX_C_WIDTH: usize = 1024;

/// The helpers every translation unit starts with (types of the ABI, the
/// poison-free integer and conversion helpers).
pub const PRELUDE: &str = include_str!("scalar_c/prelude.c");

/// Emits one C translation unit for `kernels`, each a chunk function of `width`
/// lanes, with the `pllvm_kernels` table and `pllvm_kernel_count` of the native
/// ABI (`docs/native.md`). Refuses, naming the construct, what it cannot express:
/// integer or aggregate values wider than 64 bits, calls outside the builtins and
/// the math library, an `alloca` with a varying count.
pub fn emit_c_batch(kernels: &[Kernel<'_>], width: usize) -> Result<String, TransformError> {
    let mut out = String::from(PRELUDE);
    out.push('\n');
    for (k, kernel) in kernels.iter().enumerate() {
        check_name(kernels, k)?;
        if width == 0 || width > MAX_C_WIDTH {
            return Err(TransformError::new(
                PASS,
                Site::Function(kernel.function),
                format!("a chunk of {width} lanes: the C route takes 1 to {MAX_C_WIDTH}"),
            ));
        }
        if let Some((site, what)) = kernel.unsupported_construct() {
            return Err(TransformError::new(PASS, site, what));
        }
        emit_kernel(&mut out, kernel, width)?;
    }
    out.push_str("const struct pllvm_kernel pllvm_kernels[] = {\n");
    for kernel in kernels {
        let _ = writeln!(
            out,
            "    {{ \"{0}\", {width}, pllvm_chunk_{0} }},",
            kernel.name
        );
    }
    if kernels.is_empty() {
        out.push_str("    { 0, 0, 0 },\n");
    }
    out.push_str("};\n");
    let _ = writeln!(
        out,
        "const uint64_t pllvm_kernel_count = {};",
        kernels.len()
    );
    Ok(out)
}

/// Kernel names are C identifiers' tails and table strings: `[A-Za-z0-9_]+`,
/// unique in the batch.
fn check_name(kernels: &[Kernel<'_>], k: usize) -> Result<(), TransformError> {
    let kernel = &kernels[k];
    let site = Site::Function(kernel.function);
    let name = kernel.name;
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(TransformError::new(
            PASS,
            site,
            format!("kernel name `{name}` is not [A-Za-z0-9_]+"),
        ));
    }
    if kernels[..k].iter().any(|other| other.name == name) {
        return Err(TransformError::new(
            PASS,
            site,
            format!("kernel name `{name}` is used twice in the batch"),
        ));
    }
    Ok(())
}

/// One chunk function.
fn emit_kernel(out: &mut String, kernel: &Kernel<'_>, width: usize) -> Result<(), TransformError> {
    let module = kernel.module;
    let func = kernel.function;
    let data = &module.functions[func];
    let body = data.body.as_ref().ok_or_else(|| {
        TransformError::new(
            PASS,
            Site::Function(func),
            format!(
                "@{} is only declared: there is no body to compile",
                data.name
            ),
        )
    })?;
    let cx = Cx {
        module,
        func,
        body,
        width,
    };
    let types = &module.types;
    let ret = match types.get(data.ret_ty) {
        TypeData::Void => None,
        _ => Some(c_type(types, data.ret_ty).ok_or_else(|| {
            TransformError::new(
                PASS,
                Site::Function(func),
                format!(
                    "@{} returns {}: the native ABI returns integers up to 64 bits, float, double or ptr",
                    data.name,
                    types.display(data.ret_ty)
                ),
            )
        })?),
    };
    let _ = writeln!(
        out,
        "/* @{} as chunk function of {width} lanes (OBLIVIOUS, thesis §4.5) */",
        data.name
    );
    let _ = writeln!(
        out,
        "static void pllvm_chunk_{}(uint64_t base, uint64_t count, const uint64_t *args, uint64_t n, uint64_t *ret, uint8_t *const *globals) {{",
        kernel.name
    );
    out.push_str("    const uint64_t L = count;\n    (void)args; (void)n; (void)ret; (void)globals; (void)base;\n");
    let _ = writeln!(out, "    uint8_t act[{width}] = {{0}};");
    out.push_str("    uint64_t sel = 0;\n    (void)sel;\n");
    // Globals: every `@g` is `globals[g]` (the ABI), read once at entry.
    for (g, _) in module.globals.iter() {
        let _ = writeln!(
            out,
            "    const uint64_t G{0} = pllvm_addr(globals[{0}]); (void)G{0};",
            g.index()
        );
    }
    // Parameters: word `args[p * n + base + l]` of every existing lane.
    for (k, param) in data.params.iter().enumerate() {
        let site = Site::Function(func);
        let ctype = c_type(types, param.ty).ok_or_else(|| {
            TransformError::new(
                PASS,
                site,
                format!(
                    "parameter {} of @{} has type {}: the native ABI passes integers up to 64 bits, float, double or ptr",
                    body.value_name(param.value)
                        .map_or(k.to_string(), |n| format!("%{n}")),
                    data.name,
                    types.display(param.ty)
                ),
            )
        })?;
        let word = format!("args[{k} * n + base + l]");
        let _ = writeln!(
            out,
            "    {} p{k}[{width}] = {{0}};\n    for (uint64_t l = 0; l < L; l++) p{k}[l] = {};",
            ctype.name(),
            expr::from_word(ctype, &word)
        );
    }
    // Every result gets an array of W, zero at entry (no C read of an
    // uninitialized object, and ⊤ reads as 0 as `freeze` has it).
    for &b in &body.layout {
        let block = &body.blocks[b];
        for &i in block.phis.iter().chain(&block.body) {
            let inst = &body.insts[i];
            let site = Site::Inst(func, i);
            if let Some(v) = inst.result {
                let ctype = cx.ctype_of(v, site)?;
                let name = body.value_name(v).unwrap_or("");
                let _ = writeln!(
                    out,
                    "    {} v{}[{width}] = {{0}}; /* %{} */",
                    ctype.name(),
                    v.index(),
                    sanitize_comment(name)
                );
                if inst.kind.is_phi() {
                    let _ = writeln!(out, "    {} t{}[{width}];", ctype.name(), v.index());
                }
            }
            if let InstKind::Alloca { ty, count, align } = &inst.kind {
                let size = expr::alloca_size(&cx, *ty, *count, site)?;
                let align = align.unwrap_or_else(|| types.align_of(*ty)).max(1);
                let slot = size.max(1).next_multiple_of(align);
                let _ = writeln!(
                    out,
                    "    _Alignas({align}) uint8_t a{}[{width}][{slot}];\n    memset(a{}, 0, sizeof a{});",
                    i.index(),
                    i.index(),
                    i.index()
                );
            }
        }
    }
    let entry = body.entry().ok_or_else(|| {
        TransformError::new(PASS, Site::Function(func), "the function has no blocks")
    })?;
    let _ = writeln!(out, "    goto B{};", entry.index());
    for &b in &body.layout {
        emit_block(out, &cx, b, ret)?;
    }
    out.push_str("}\n\n");
    Ok(())
}

/// A comment-safe spelling of an IR name.
fn sanitize_comment(name: &str) -> String {
    name.replace("*/", "*_/").replace(['\n', '\r'], " ")
}

/// One block: the activation, the commands, the terminator with the phi copies
/// of the edge it takes.
fn emit_block(
    out: &mut String,
    cx: &Cx<'_>,
    b: Block,
    ret: Option<CType>,
) -> Result<(), TransformError> {
    let block = &cx.body.blocks[b];
    let _ = writeln!(
        out,
        "B{}: /* {} */ ;",
        b.index(),
        sanitize_comment(&block.name)
    );
    // The activation (Def. 8): cmask is 1 in every existing lane (one program
    // counter), so it is the predicate. A predicate defined by a command of this
    // block is evaluated right after that command (the reading of bls_w_step);
    // the commands before it are total and see no activation.
    let defined_here = block
        .predicate
        .and_then(|p| cx.body.def_inst(p))
        .filter(|i| block.body.contains(i));
    match (block.predicate, defined_here) {
        (None, _) => out.push_str("    for (uint64_t l = 0; l < L; l++) act[l] = 1;\n"),
        (Some(_), Some(_)) => out.push_str("    for (uint64_t l = 0; l < L; l++) act[l] = 0;\n"),
        (Some(p), None) => set_activation(out, cx, p, Site::Block(cx.func, b))?,
    }
    for &i in &block.body {
        expr::command(out, cx, i)?;
        if let (Some(p), Some(def)) = (block.predicate, defined_here)
            && def == i
        {
            set_activation(out, cx, p, Site::Block(cx.func, b))?;
        }
    }
    terminator(out, cx, b, ret)
}

/// `act[l] = predicate in lane l` for the existing lanes.
fn set_activation(
    out: &mut String,
    cx: &Cx<'_>,
    p: Value,
    site: Site,
) -> Result<(), TransformError> {
    let _ = writeln!(
        out,
        "    for (uint64_t l = 0; l < L; l++) act[l] = (uint8_t)({} & 1);",
        cx.int_operand(p, site)?
    );
    Ok(())
}

/// The terminator: the lane that decides a uniform branch, the edge's phi
/// copies, the jump; `ret` writes the active lanes' words.
fn terminator(
    out: &mut String,
    cx: &Cx<'_>,
    b: Block,
    ret: Option<CType>,
) -> Result<(), TransformError> {
    let site = Site::Terminator(cx.func, b);
    let decide =
        "    sel = 0;\n    for (uint64_t l = 0; l < L; l++) if (act[l]) { sel = l; break; }\n";
    match &cx.body.blocks[b].term {
        Terminator::Br(to) => edge(out, cx, b, *to, "    "),
        Terminator::CondBr {
            cond,
            if_true,
            if_false,
        } => {
            out.push_str(decide);
            let lane = cx.int_operand(*cond, site)?;
            let c = lane.replace("[l]", "[sel]");
            // A branch is decided once for the chunk: active lanes that
            // disagree mean a divergent branch, which this route cannot run.
            let _ = writeln!(
                out,
                "    for (uint64_t l = 0; l < L; l++) if (act[l] && (({lane} ^ {c}) & 1)) pllvm_diverged();"
            );
            let _ = writeln!(out, "    if ({c} & 1) {{");
            edge(out, cx, b, *if_true, "        ")?;
            out.push_str("    } else {\n");
            edge(out, cx, b, *if_false, "        ")?;
            out.push_str("    }\n");
            Ok(())
        }
        Terminator::Switch {
            ty,
            cond,
            default,
            cases,
        } => {
            let Some(CType::Int(w)) = c_type(cx.types(), *ty) else {
                return Err(TransformError::new(
                    PASS,
                    site,
                    format!(
                        "a switch on {} (the C route takes integers up to 64 bits)",
                        cx.types().display(*ty)
                    ),
                ));
            };
            out.push_str(decide);
            let lane = cx.int_operand(*cond, site)?;
            let c = lane.replace("[l]", "[sel]");
            let _ = writeln!(
                out,
                "    for (uint64_t l = 0; l < L; l++) if (act[l] && pllvm_mask({lane} ^ {c}, {w})) pllvm_diverged();"
            );
            let _ = writeln!(out, "    {{ const uint64_t s = pllvm_mask({c}, {w});");
            for (value, to) in cases {
                let v: u64 = value.try_into().unwrap_or(u64::MAX);
                let _ = writeln!(out, "    if (s == UINT64_C({v})) {{");
                edge(out, cx, b, *to, "        ")?;
                out.push_str("    }\n");
            }
            edge(out, cx, b, *default, "    ")?;
            out.push_str("    }\n");
            Ok(())
        }
        Terminator::Ret(value) => {
            if let (Some(v), Some(ctype)) = (value, ret) {
                let word = expr::to_word(ctype, &cx.operand(*v, site)?);
                let _ = writeln!(
                    out,
                    "    for (uint64_t l = 0; l < L; l++) if (act[l]) ret[base + l] = {word};"
                );
            }
            out.push_str("    return;\n");
            Ok(())
        }
        // An active lane reaching `unreachable` is undefined behaviour: the chunk
        // stops (the harness compares only runs that returned).
        Terminator::Unreachable => {
            out.push_str("    return;\n");
            Ok(())
        }
    }
}

/// The jump along `from → to`: the phis of `to` take the arms for `from` in
/// every existing lane, as a parallel copy ([BLS-W-STEP]'s Δ_pre), then `goto`.
fn edge(
    out: &mut String,
    cx: &Cx<'_>,
    from: Block,
    to: Block,
    indent: &str,
) -> Result<(), TransformError> {
    let phis = &cx.body.blocks[to].phis;
    let mut copies = Vec::new();
    for &phi in phis {
        let site = Site::Inst(cx.func, phi);
        let inst = &cx.body.insts[phi];
        let (InstKind::Phi { incoming, .. }, Some(id)) = (&inst.kind, inst.result) else {
            continue;
        };
        let arm = incoming
            .iter()
            .find(|(_, b)| *b == from)
            .map(|(v, _)| *v)
            .ok_or_else(|| {
                TransformError::new(
                    PASS,
                    site,
                    format!(
                        "the phi lists no arm for the edge from %{}",
                        cx.body.blocks[from].name
                    ),
                )
            })?;
        let ctype = cx.ctype_of(id, site)?;
        let value = cx.operand(arm, site)?;
        let _ = writeln!(
            out,
            "{indent}for (uint64_t l = 0; l < L; l++) t{}[l] = ({}){value};",
            id.index(),
            ctype.name()
        );
        copies.push(id);
    }
    for id in copies {
        let _ = writeln!(
            out,
            "{indent}for (uint64_t l = 0; l < L; l++) v{0}[l] = t{0}[l];",
            id.index()
        );
    }
    let _ = writeln!(out, "{indent}goto B{};", to.index());
    Ok(())
}
