//! The targets' uniformity rules, as LLVM 22 applies them (docs/launch.md,
//! docs/analyses.md "`llvm`"): which parameters a target's calling convention
//! makes uniform ([`ARG_RULES`], one table, each row naming the LLVM function it
//! follows), and which intrinsics are sources of divergence or always uniform
//! ([`intrinsic_rule`]). Every analysis uses them when the module names its target
//! (`target triple = "amdgcn-..."`, `"nvptx64-..."`, `"spir64-..."`) or a function
//! its GPU calling convention; `--uniform-args` replaces the parameter rules when
//! given (`none`: no parameter uniform).
//!
//! # Intrinsics
//! | target | sources of divergence | always uniform |
//! | --- | --- | --- |
//! | amdgcn | the 418 rows of `target/amdgpu.rs` `SOURCES` (work-item ids, `mbcnt`, interpolation, DPP, lane permutes, `writelane`, atomics, the `wmma`/`swmmac`/`mfma`/`smfmac` families, `if`/`else`/`loop`, ...), and pllvm's additions [`PLLVM_AMDGPU_SOURCES`] | the 21 rows of `ALWAYS_UNIFORM` (`readfirstlane`, `readlane`, `ballot`, `icmp`, `fcmp`, `if.break`, the work-group and cluster ids, `s.getpc`, `s.getreg`, `s.memtime`, `s.memrealtime`); element 1 (the exec mask) of the result of `if` and `else`, read by `extractvalue` ([`extract_always_uniform`]) |
//! | nvptx | `llvm.nvvm.read.ptx.sreg.tid.{x,y,z}`, `llvm.nvvm.read.ptx.sreg.laneid`, `llvm.nvvm.shfl.*`, `llvm.nvvm.atomic.*`; in the `llvm` analysis every call (NVPTX's rule: a call's result is divergent) | - |
//!
//! Everything else not in θ is pure: uniform when its operands are (what LLVM does
//! for intrinsics outside its tables: they are not sources of divergence). The
//! AMDGPU rows are LLVM 22's tables (`AMDGPUSearchableTables.td`), read off
//! `opt-22` name by name; a name resolves to the longest row it extends by `.`
//! pieces (type suffixes), as LLVM's `Intrinsic::lookupIntrinsicID` resolves a
//! name to the longest intrinsic name, so `if.break` is not `if` and
//! `interp.p2.rtz.f16` ([`AMDGPU_OUTSIDE_TABLES`]) is not `interp.p2`.

use crate::result::{AnalysisError, InitShapes};
use crate::shape::Shape;
use pllvm_semantics::ir::{FuncId, InlineAsm, Module, Param};

mod amdgpu;

/// The GPU family a module is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuTarget {
    /// AMD GPUs (`amdgcn-*`).
    Amdgcn,
    /// NVIDIA GPUs (`nvptx-*`, `nvptx64-*`).
    Nvptx,
    /// SPIR / SPIR-V (`spir-*`, `spir64-*`, `spirv*`).
    Spir,
}

impl GpuTarget {
    /// The target of `module`: from its `target triple`, else from the calling
    /// convention of its functions (`amdgpu_*`, `ptx_kernel`, `spir_kernel`).
    pub fn of(module: &Module) -> Option<GpuTarget> {
        let triple = module.header.iter().find_map(|line| {
            let rest = line.trim().strip_prefix("target")?.trim_start();
            let rest = rest
                .strip_prefix("triple")?
                .trim_start()
                .strip_prefix('=')?;
            Some(rest.trim().trim_matches('"').to_string())
        });
        if let Some(t) = triple {
            let arch = t.split('-').next().unwrap_or("");
            return match arch {
                "amdgcn" => Some(GpuTarget::Amdgcn),
                "nvptx" | "nvptx64" => Some(GpuTarget::Nvptx),
                a if a.starts_with("spir") => Some(GpuTarget::Spir),
                _ => None,
            };
        }
        module
            .functions
            .values()
            .find_map(|f| match f.cconv.as_deref()? {
                c if c.starts_with("amdgpu_") => Some(GpuTarget::Amdgcn),
                "ptx_kernel" => Some(GpuTarget::Nvptx),
                "spir_kernel" => Some(GpuTarget::Spir),
                _ => None,
            })
    }
}

/// How a calling convention's parameters start ([`ARG_RULES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgUniformity {
    /// Every parameter uniform (a kernel entry: its arguments are the launch's).
    All,
    /// The `inreg` and `byval` parameters uniform (passed in scalar registers or
    /// by a pointer to memory every lane shares), the others varying.
    InregOrByval,
    /// The `inreg` parameters uniform, the others varying.
    Inreg,
    /// Every parameter varying.
    None,
}

/// One row of [`ARG_RULES`]: on `target`, the calling conventions `conventions`
/// (empty: every convention no earlier row of the target names) start their
/// parameters as `uniform` says, after `llvm` (the LLVM 22 source file and
/// function the row follows, or why pllvm decides it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgRule {
    /// The target (`None`: a module for no GPU target).
    pub target: Option<GpuTarget>,
    /// The calling conventions as written (`amdgpu_ps`); empty for the rest.
    pub conventions: &'static [&'static str],
    /// Which parameters are uniform.
    pub uniform: ArgUniformity,
    /// Where LLVM 22 decides it (file and function), or pllvm's reason.
    pub llvm: &'static str,
}

/// Where the AMDGPU rows come from: `GCNTTIImpl::isSourceOfDivergence` calls a
/// parameter divergent unless this function says it is passed in an SGPR.
const AMDGPU_ARGS: &str = "llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp \
    `AMDGPU::isArgPassedInSGPR(const Argument *)`, called by \
    llvm/lib/Target/AMDGPU/AMDGPUTargetTransformInfo.cpp `GCNTTIImpl::isSourceOfDivergence`";

/// Where the NVPTX rows come from.
const NVPTX_ARGS: &str = "llvm/lib/Target/NVPTX/NVPTXTargetTransformInfo.cpp \
    `NVPTXTTIImpl::isSourceOfDivergence` (an argument is divergent unless its \
    function is a kernel), with llvm/lib/Target/NVPTX/NVPTXUtilities.cpp `isKernelFunction`";

/// The parameter rules of every target and calling convention, as LLVM 22's
/// targets apply them: the first row whose target is the module's and whose
/// conventions name the function's (or are empty) decides
/// ([`arg_rule`]). `cli/tests/llvm_arg_rules.rs` runs a function per convention
/// of each row through `pllvm analyze --analysis llvm` and opt-22.
pub const ARG_RULES: &[ArgRule] = &[
    ArgRule {
        target: Some(GpuTarget::Amdgcn),
        conventions: &["amdgpu_kernel", "spir_kernel"],
        uniform: ArgUniformity::All,
        llvm: AMDGPU_ARGS,
    },
    ArgRule {
        target: Some(GpuTarget::Amdgcn),
        conventions: &[
            "amdgpu_vs",
            "amdgpu_ls",
            "amdgpu_hs",
            "amdgpu_es",
            "amdgpu_gs",
            "amdgpu_ps",
            "amdgpu_cs",
            "amdgpu_gfx",
            "amdgpu_cs_chain",
            "amdgpu_cs_chain_preserve",
        ],
        uniform: ArgUniformity::InregOrByval,
        llvm: AMDGPU_ARGS,
    },
    // Its default case: `ccc`, `fastcc`, `amdgpu_gfx_whole_wave` (whose `byval`
    // arguments opt-22 calls divergent), any other.
    ArgRule {
        target: Some(GpuTarget::Amdgcn),
        conventions: &[],
        uniform: ArgUniformity::Inreg,
        llvm: AMDGPU_ARGS,
    },
    ArgRule {
        target: Some(GpuTarget::Nvptx),
        conventions: &["ptx_kernel"],
        uniform: ArgUniformity::All,
        llvm: NVPTX_ARGS,
    },
    // Device functions (`ptx_device`, `ccc`, ...): `inreg` means nothing there.
    ArgRule {
        target: Some(GpuTarget::Nvptx),
        conventions: &[],
        uniform: ArgUniformity::None,
        llvm: NVPTX_ARGS,
    },
    ArgRule {
        target: Some(GpuTarget::Spir),
        conventions: &["spir_kernel"],
        uniform: ArgUniformity::All,
        llvm: "pllvm's reading: LLVM 22 has no SPIR target with divergence \
            (opt-22 -mtriple=spir64 calls every value uniform); a kernel's \
            arguments are the launch's, as on amdgcn (`AMDGPU::isArgPassedInSGPR`)",
    },
    ArgRule {
        target: Some(GpuTarget::Spir),
        conventions: &[],
        uniform: ArgUniformity::None,
        llvm: "pllvm's reading: a SPIR function other than a kernel may be \
            called with per-lane arguments",
    },
    ArgRule {
        target: None,
        conventions: &[],
        uniform: ArgUniformity::None,
        llvm: "pllvm's reading (Listing 1's InitShapes, the safe default): a \
            target without branch divergence makes opt call every value uniform \
            (`TargetTransformInfo::hasBranchDivergence`)",
    },
];

/// The row of [`ARG_RULES`] for a function with calling convention `cconv` in
/// a module for `target`.
pub fn arg_rule(target: Option<GpuTarget>, cconv: Option<&str>) -> &'static ArgRule {
    ARG_RULES
        .iter()
        .find(|r| {
            r.target == target
                && (r.conventions.is_empty() || cconv.is_some_and(|c| r.conventions.contains(&c)))
        })
        .expect("every target has a row for the other conventions")
}

/// Whether the parameter `p` starts uniform under `rule`.
fn param_uniform(rule: &ArgRule, p: &Param) -> bool {
    let has = |name: &str| {
        p.attrs
            .iter()
            .any(|a| a == name || a.strip_prefix(name).is_some_and(|r| r.starts_with('(')))
    };
    match rule.uniform {
        ArgUniformity::All => true,
        ArgUniformity::InregOrByval => has("inreg") || has("byval"),
        ArgUniformity::Inreg => has("inreg"),
        ArgUniformity::None => false,
    }
}

/// What a target's rules say about an intrinsic call's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntrinsicRule {
    /// A source of divergence: varying whatever its operands.
    Source,
    /// Always uniform, whatever its operands (a value read from one lane or
    /// combined over all of them).
    AlwaysUniform,
}

/// pllvm's sources of divergence beyond LLVM 22's AMDGPU table (names without
/// `llvm.amdgcn.`), where its reading keeps the result divergent for soundness
/// (docs/analyses.md, "`llvm`"): the buffer atomics `sub.clamp.u32` (LLVM 22 omits
/// them from `SourcesOfDivergence`, yet each lane gets the value the lanes before
/// it left, as for every atomic); `ds.permute` (a lane receives what the lanes
/// that name it send, so with one uniform address only one lane receives);
/// `permlane64` (a lane reads the other half of the wave, whose lanes need not
/// be active nor hold the operand).
pub const PLLVM_AMDGPU_SOURCES: &[&str] = &[
    "raw.buffer.atomic.sub.clamp.u32",
    "raw.ptr.buffer.atomic.sub.clamp.u32",
    "struct.buffer.atomic.sub.clamp.u32",
    "struct.ptr.buffer.atomic.sub.clamp.u32",
    "ds.permute",
    "permlane64",
];

/// AMDGPU intrinsics in neither of LLVM 22's tables whose names extend a row of
/// one (names without `llvm.amdgcn.`): a name resolves to them, not to the row.
pub const AMDGPU_OUTSIDE_TABLES: &[&str] = &["interp.p2.rtz.f16"];

/// The AMDGPU rule for `rest` (a name after `llvm.amdgcn.`): the category of the
/// longest row `rest` equals or extends by `.` pieces.
fn amdgpu_rule(rest: &str) -> Option<IntrinsicRule> {
    let extends = |row: &str| {
        rest.strip_prefix(row)
            .is_some_and(|tail| tail.is_empty() || tail.starts_with('.'))
    };
    let tables: [(&[&str], Option<IntrinsicRule>); 4] = [
        (amdgpu::SOURCES, Some(IntrinsicRule::Source)),
        (PLLVM_AMDGPU_SOURCES, Some(IntrinsicRule::Source)),
        (amdgpu::ALWAYS_UNIFORM, Some(IntrinsicRule::AlwaysUniform)),
        (AMDGPU_OUTSIDE_TABLES, None),
    ];
    let mut best: Option<(usize, Option<IntrinsicRule>)> = None;
    for (rows, rule) in tables {
        for row in rows.iter().filter(|r| extends(r)) {
            if best.is_none_or(|(len, _)| row.len() > len) {
                best = Some((row.len(), rule));
            }
        }
    }
    best.and_then(|(_, rule)| rule)
}

/// The rule for a call of inline assembly on `target` (`None`: no GPU target, an
/// unknown call). On AMDGPU, LLVM 22's `isSourceOfDivergence` asks the register
/// class each output constraint names: a vector register (`v`, `a`, `{vN}`,
/// `{v[N:M]}`, `{aN}`, `{a[N:M]}`) makes the call a source of divergence; with only
/// scalar outputs (`s`, `{sN}`, `r`, `{vcc}`, `{scc}`, `=&` early-clobber forms)
/// the call is uniform whatever its operands, as opt-22 answers on every form of
/// `corpus/analyses/llvm/inline-asm-constraints.ll` (a divergent input in a `v`
/// register included: the SGPR written holds one value for the wave). Elsewhere
/// it is code pllvm does not know: a source.
pub fn inline_asm_rule(target: Option<GpuTarget>, asm: &InlineAsm) -> IntrinsicRule {
    if target != Some(GpuTarget::Amdgcn) {
        return IntrinsicRule::Source;
    }
    let vector = |code: &str| {
        let code = code.trim_start_matches('&');
        match code.strip_prefix('{') {
            // A physical register: its name's class (`v1`, `v[2:3]`, `a0`; not
            // `vcc`).
            Some(reg) => {
                let mut chars = reg.chars();
                let first = chars.next();
                let second = chars.next();
                matches!(first, Some('v' | 'a'))
                    && second.is_some_and(|c| c.is_ascii_digit() || c == '[')
            }
            None => code.starts_with('v') || code.starts_with('a'),
        }
    };
    if asm.outputs().into_iter().any(vector) {
        IntrinsicRule::Source
    } else {
        IntrinsicRule::AlwaysUniform
    }
}

/// The rule for a call to the function called `name`, if a target's table has one
/// (see the module documentation).
pub fn intrinsic_rule(name: &str) -> Option<IntrinsicRule> {
    if let Some(rest) = name.strip_prefix("llvm.amdgcn.") {
        return amdgpu_rule(rest);
    }
    const NVPTX_SOURCES: [&str; 3] = [
        "llvm.nvvm.read.ptx.sreg.tid.",
        "llvm.nvvm.shfl.",
        "llvm.nvvm.atomic.",
    ];
    if NVPTX_SOURCES.iter().any(|p| name.starts_with(p)) || name == "llvm.nvvm.read.ptx.sreg.laneid"
    {
        Some(IntrinsicRule::Source)
    } else {
        None
    }
}

/// Whether `extractvalue` at `indices` of the result of a call to `callee` is
/// always uniform: element 1 (the exec mask, a scalar register) of
/// `llvm.amdgcn.if` and `llvm.amdgcn.else`, whose element 0 (whether the lane
/// takes the branch) is divergent (AMDGPUTargetTransformInfo.cpp
/// `GCNTTIImpl::isAlwaysUniform`, its `ExtractValueInst` case).
pub fn extract_always_uniform(callee: &str, indices: &[u32]) -> bool {
    let base = |n: &str| callee == n || callee.strip_prefix(n).is_some_and(|t| t.starts_with('.'));
    (base("llvm.amdgcn.if") || base("llvm.amdgcn.else"))
        && !callee.starts_with("llvm.amdgcn.if.break")
        && indices == [1]
}

impl InitShapes {
    /// The parameter shapes of `func` in `module`: with `uniform_args` naming
    /// parameters (names without `%`, or numbers), those uniform and the others
    /// varying ([`InitShapes::with_uniform`]); with `uniform_args` just `none`,
    /// every parameter varying; otherwise the target's rules ([`ARG_RULES`]).
    pub fn for_function(
        module: &Module,
        func: FuncId,
        uniform_args: &[String],
    ) -> Result<InitShapes, AnalysisError> {
        let data = &module.functions[func];
        let given: Vec<&str> = uniform_args
            .iter()
            .map(|a| a.trim())
            .filter(|a| !a.is_empty())
            .collect();
        if given.contains(&NO_UNIFORM_ARGS) {
            if given.len() > 1 {
                return Err(AnalysisError::NoneWithNames {
                    function: data.name.clone(),
                });
            }
            return Ok(InitShapes::all_varying(data));
        }
        if !given.is_empty() {
            return InitShapes::with_uniform(data, uniform_args);
        }
        let rule = arg_rule(GpuTarget::of(module), data.cconv.as_deref());
        Ok(InitShapes {
            params: data
                .params
                .iter()
                .map(|p| Shape::from_uniform(param_uniform(rule, p)))
                .collect(),
        })
    }
}

/// The `--uniform-args` word for "no parameter is uniform" (a parameter called
/// `none` is named by its number).
pub const NO_UNIFORM_ARGS: &str = "none";

#[cfg(test)]
mod tests {
    /// Each output constraint form of `corpus/analyses/llvm/inline-asm-constraints.ll`
    /// as opt-22 answers it on amdgcn; on no GPU target any asm is a source.
    #[test]
    fn inline_asm_outputs_decide_by_register_class() {
        use super::IntrinsicRule::{AlwaysUniform, Source};
        let asm = |constraints: &str| InlineAsm {
            text: String::new(),
            constraints: constraints.into(),
            sideeffect: false,
            alignstack: false,
            inteldialect: false,
            unwind: false,
        };
        let amd = Some(GpuTarget::Amdgcn);
        for (c, rule) in [
            ("=s", AlwaysUniform),
            ("={s1}", AlwaysUniform),
            ("=v", Source),
            ("={v1}", Source),
            ("=a", Source),
            ("=s,s", AlwaysUniform),
            ("=s,v", AlwaysUniform),
            ("=s,=s", AlwaysUniform),
            ("=s,=v", Source),
            ("=r", AlwaysUniform),
            ("={s[2:3]}", AlwaysUniform),
            ("={v[2:3]}", Source),
            ("=s,~{memory}", AlwaysUniform),
            ("=&s", AlwaysUniform),
            ("=&v", Source),
            ("={vcc}", AlwaysUniform),
            ("={a1}", Source),
            ("=s,0", AlwaysUniform),
            ("={scc}", AlwaysUniform),
            ("", AlwaysUniform),
        ] {
            assert_eq!(inline_asm_rule(amd, &asm(c)), rule, "{c:?}");
        }
        assert_eq!(inline_asm_rule(None, &asm("=s")), Source);
        assert_eq!(inline_asm_rule(Some(GpuTarget::Spir), &asm("=s")), Source);
    }

    use super::*;
    use pllvm_semantics::text::parse_module;
    use std::process::Command;

    fn shapes_with(src: &str, given: &[&str]) -> Vec<bool> {
        let (m, _) = parse_module(src).expect("parses");
        let f = m.first_definition().expect("a function");
        let given: Vec<String> = given.iter().map(|s| s.to_string()).collect();
        InitShapes::for_function(&m, f, &given)
            .expect("shapes")
            .params
            .iter()
            .map(|s| s.is_uniform())
            .collect()
    }

    fn shapes(src: &str) -> Vec<bool> {
        shapes_with(src, &[])
    }

    /// A function of calling convention `cc` with a plain, an `inreg` and a
    /// `byval` parameter, in a module for `triple`.
    fn three_params(triple: &str, cc: &str) -> String {
        format!(
            "target triple = \"{triple}\"\ndefine {cc} void @f(i32 %a, i32 inreg %b, ptr byval(i32) %c) {{\nentry:\n  ret void\n}}\n"
        )
    }

    fn triple_of(target: Option<GpuTarget>) -> &'static str {
        match target {
            Some(GpuTarget::Amdgcn) => "amdgcn-amd-amdhsa",
            Some(GpuTarget::Nvptx) => "nvptx64-nvidia-cuda",
            Some(GpuTarget::Spir) => "spir64-unknown-unknown",
            None => "x86_64-pc-linux-gnu",
        }
    }

    /// Every row of [`ARG_RULES`], through each convention it names (`ccc` and
    /// `fastcc` for the rows of the other conventions): the plain, `inreg` and
    /// `byval` parameters start as the row says, and the row is the one
    /// [`arg_rule`] finds.
    #[test]
    fn every_arg_rule_row() {
        for row in ARG_RULES {
            let conventions: &[&str] = if row.conventions.is_empty() {
                &["ccc", "fastcc"]
            } else {
                row.conventions
            };
            for cc in conventions {
                assert_eq!(arg_rule(row.target, Some(*cc)), row, "{cc}");
                let want = match row.uniform {
                    ArgUniformity::All => [true, true, true],
                    ArgUniformity::InregOrByval => [false, true, true],
                    ArgUniformity::Inreg => [false, true, false],
                    ArgUniformity::None => [false, false, false],
                };
                let src = three_params(triple_of(row.target), cc);
                assert_eq!(shapes(&src), want, "{cc} on {:?}", row.target);
                assert!(!row.llvm.is_empty());
            }
        }
    }

    #[test]
    fn amdgpu_ps_and_cs_arguments_are_uniform_only_when_inreg_or_byval() {
        for cc in ["amdgpu_ps", "amdgpu_cs"] {
            let src = three_params("amdgcn--", cc);
            assert_eq!(shapes(&src), [false, true, true], "{cc}");
        }
        // No triple: the `amdgpu_*` convention names the target.
        let src = "define amdgpu_ps void @f(i32 %a, i32 inreg %b) {\nentry:\n  ret void\n}\n";
        assert_eq!(shapes(src), [false, true]);
        // The whole-wave convention takes the default case: `byval` is not uniform.
        assert_eq!(
            shapes(&three_params("amdgcn--", "amdgpu_gfx_whole_wave")),
            [false, true, false]
        );
    }

    #[test]
    fn kernel_arguments_and_inreg_arguments_are_uniform_on_amdgcn() {
        let kernel = "target triple = \"amdgcn-amd-amdhsa\"\n\
            define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %n) {\nentry:\n  ret void\n}\n";
        assert_eq!(shapes(kernel), [true, true]);
        // inreg means register passing elsewhere, not uniformity.
        let x86 = "target triple = \"x86_64-pc-linux-gnu\"\n\
            define void @f(i32 inreg %a, i32 %b) {\nentry:\n  ret void\n}\n";
        assert_eq!(shapes(x86), [false, false]);
    }

    #[test]
    fn uniform_args_override_and_none_makes_every_parameter_varying() {
        let src = "target triple = \"nvptx64-nvidia-cuda\"\n\
            define ptx_kernel void @k(ptr %out, i32 %n) {\nentry:\n  ret void\n}\n";
        assert_eq!(shapes(src), [true, true]);
        assert_eq!(shapes_with(src, &["n"]), [false, true]);
        assert_eq!(shapes_with(src, &["none"]), [false, false]);
        assert_eq!(shapes_with(src, &[" none "]), [false, false]);
        let (m, _) = parse_module(src).expect("parses");
        let f = m.first_definition().expect("a function");
        let both = ["none".to_string(), "n".to_string()];
        assert!(matches!(
            InitShapes::for_function(&m, f, &both),
            Err(AnalysisError::NoneWithNames { .. })
        ));
    }

    #[test]
    fn intrinsic_names_resolve_to_their_longest_row() {
        use IntrinsicRule::*;
        assert_eq!(intrinsic_rule("llvm.amdgcn.workitem.id.y"), Some(Source));
        assert_eq!(intrinsic_rule("llvm.amdgcn.mbcnt.lo"), Some(Source));
        assert_eq!(intrinsic_rule("llvm.amdgcn.if.i64"), Some(Source));
        assert_eq!(
            intrinsic_rule("llvm.amdgcn.if.break.i64"),
            Some(AlwaysUniform)
        );
        assert_eq!(intrinsic_rule("llvm.amdgcn.writelane.i32"), Some(Source));
        assert_eq!(intrinsic_rule("llvm.amdgcn.interp.p2"), Some(Source));
        assert_eq!(intrinsic_rule("llvm.amdgcn.interp.p2.rtz.f16"), None);
        assert_eq!(
            intrinsic_rule("llvm.amdgcn.readfirstlane.i32"),
            Some(AlwaysUniform)
        );
        assert_eq!(
            intrinsic_rule("llvm.amdgcn.ballot.i64"),
            Some(AlwaysUniform)
        );
        assert_eq!(
            intrinsic_rule("llvm.amdgcn.workgroup.id.x"),
            Some(AlwaysUniform)
        );
        // Not `readlane` extended: another name.
        assert_eq!(intrinsic_rule("llvm.amdgcn.readlanex"), None);
        assert_eq!(intrinsic_rule("llvm.amdgcn.ds.bpermute"), None);
        assert_eq!(intrinsic_rule("llvm.amdgcn.ds.permute"), Some(Source));
        assert_eq!(
            intrinsic_rule("llvm.nvvm.read.ptx.sreg.laneid"),
            Some(Source)
        );
        assert_eq!(intrinsic_rule("llvm.nvvm.read.ptx.sreg.ctaid.x"), None);
        assert!(extract_always_uniform("llvm.amdgcn.if.i64", &[1]));
        assert!(extract_always_uniform("llvm.amdgcn.else.i64.i64", &[1]));
        assert!(!extract_always_uniform("llvm.amdgcn.if.i64", &[0]));
        assert!(!extract_always_uniform("llvm.amdgcn.if.break.i64", &[1]));
        assert!(!extract_always_uniform("llvm.amdgcn.loop.i64", &[1]));
    }

    /// What opt-22 prints for a call of each name: `(divergent on a uniform
    /// argument, divergent on a divergent argument)`, by asking it about one
    /// function calling every name (declared `i32 (i32)`: `-disable-verify`
    /// lets a signature differ, the analysis looks at the name only). `None`
    /// when opt-22 is not installed.
    fn opt_22_verdicts(names: &[String]) -> Option<Vec<(bool, bool)>> {
        let mut src = String::from("target triple = \"amdgcn--\"\n");
        for n in names {
            src.push_str(&format!("declare i32 @{n}(i32)\n"));
        }
        src.push_str("define void @f(i32 inreg %u, i32 %d) {\n");
        for (k, n) in names.iter().enumerate() {
            src.push_str(&format!("  %u{k} = call i32 @{n}(i32 %u)\n"));
            src.push_str(&format!("  %d{k} = call i32 @{n}(i32 %d)\n"));
        }
        src.push_str("  ret void\n}\n");
        let dir = std::env::temp_dir().join(format!("pllvm-amdgpu-rows-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok()?;
        let file = dir.join("rows.ll");
        std::fs::write(&file, &src).ok()?;
        let out = Command::new("opt-22")
            .args([
                "-mtriple=amdgcn--",
                "-disable-verify",
                "-passes=print<uniformity>",
                "-disable-output",
            ])
            .arg(&file)
            .output()
            .ok()?;
        std::fs::remove_dir_all(&dir).ok();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // `DIVERGENT:` before a definition marks it; the others are uniform.
        let text = String::from_utf8_lossy(&out.stderr).into_owned();
        let divergent: std::collections::BTreeSet<&str> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("DIVERGENT:"))
            .filter_map(|l| l.trim().strip_prefix('%')?.split(' ').next())
            .collect();
        Some(
            (0..names.len())
                .map(|k| {
                    (
                        divergent.contains(format!("u{k}").as_str()),
                        divergent.contains(format!("d{k}").as_str()),
                    )
                })
                .collect(),
        )
    }

    /// Every row of the AMDGPU tables (`target/amdgpu.rs`, [`PLLVM_AMDGPU_SOURCES`],
    /// [`AMDGPU_OUTSIDE_TABLES`]): [`intrinsic_rule`] gives the row its table's
    /// rule, and, where opt-22 is installed, opt-22 prints what the row says
    /// (pllvm's additions: opt-22 still calls them uniform on a uniform argument).
    #[test]
    fn every_amdgpu_row_as_opt_22_prints_it() {
        use IntrinsicRule::*;
        let mut rows: Vec<(String, Option<IntrinsicRule>, bool)> = Vec::new();
        for r in amdgpu::SOURCES {
            rows.push((format!("llvm.amdgcn.{r}"), Some(Source), true));
        }
        for r in amdgpu::ALWAYS_UNIFORM {
            rows.push((format!("llvm.amdgcn.{r}"), Some(AlwaysUniform), true));
        }
        for r in PLLVM_AMDGPU_SOURCES {
            rows.push((format!("llvm.amdgcn.{r}"), Some(Source), false));
        }
        for r in AMDGPU_OUTSIDE_TABLES {
            rows.push((format!("llvm.amdgcn.{r}"), None, true));
        }
        for (name, rule, _) in &rows {
            assert_eq!(intrinsic_rule(name), *rule, "{name}");
        }
        let names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
        let Some(verdicts) = opt_22_verdicts(&names) else {
            eprintln!("opt-22 is not installed: the rows are not compared with LLVM 22");
            return;
        };
        for ((name, rule, llvm_agrees), (on_uniform, on_divergent)) in rows.iter().zip(verdicts) {
            let opt = match (on_uniform, on_divergent) {
                (true, _) => Some(Source),
                (false, false) => Some(AlwaysUniform),
                (false, true) => None,
            };
            if *llvm_agrees {
                assert_eq!(opt, *rule, "{name}: opt-22 says {opt:?}");
            } else {
                assert_eq!(
                    opt, None,
                    "{name}: opt-22 now says {opt:?}; update the docs"
                );
            }
        }
    }
}
