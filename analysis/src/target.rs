//! The targets' uniformity rules, as LLVM applies them (docs/launch.md): which
//! parameters a target's calling convention makes uniform, and which intrinsics
//! are sources of divergence or always uniform. Every analysis uses them when the
//! module names its target (`target triple = "amdgcn-..."`, `"nvptx64-..."`,
//! `"spir64-..."`) or a function its GPU calling convention; `--uniform-args`
//! replaces the parameter rules when given.
//!
//! | target | uniform parameters | sources of divergence | always uniform |
//! | --- | --- | --- | --- |
//! | amdgcn (`amdgpu_kernel`, `amdgpu_cs`, `amdgpu_ps` entries) | every argument of a kernel entry; `inreg` arguments of any function | `llvm.amdgcn.workitem.id.{x,y,z}`, `llvm.amdgcn.mbcnt.{lo,hi}`, `llvm.amdgcn.interp.*`, `llvm.amdgcn.ds.swizzle`, `llvm.amdgcn.ds.bpermute`, `llvm.amdgcn.ds.permute`, `llvm.amdgcn.mov.dpp*`, `llvm.amdgcn.update.dpp`, `llvm.amdgcn.permlane*`, `llvm.amdgcn.ps.live`, `llvm.amdgcn.live.mask`, atomic intrinsics (`llvm.amdgcn.*atomic*`, `llvm.amdgcn.global.atomic.*`) | `llvm.amdgcn.readfirstlane*`, `llvm.amdgcn.readlane*`, `llvm.amdgcn.ballot*`, `llvm.amdgcn.icmp*`, `llvm.amdgcn.fcmp*`, `llvm.amdgcn.if.break` |
//! | nvptx (`ptx_kernel` entries) | every argument of a kernel entry | `llvm.nvvm.read.ptx.sreg.tid.{x,y,z}`, `llvm.nvvm.read.ptx.sreg.laneid`, `llvm.nvvm.shfl.*`, `llvm.nvvm.atomic.*`; in the `llvm` analysis every call (NVPTX's rule: a call's result is divergent) | - |
//! | spir (`spir_kernel` entries) | every argument of a kernel entry | - | - |
//! | any other | none (every parameter varying) | - | - |
//!
//! Everything else not in θ is pure: uniform when its operands are (what LLVM does
//! for intrinsics outside its tables: they are not sources of divergence). The
//! work-group ids (`llvm.amdgcn.workgroup.id.*`, `llvm.nvvm.read.ptx.sreg.ctaid.*`)
//! and sizes (`ntid`, `nctaid`) take no operands and are uniform that way. The
//! tables follow LLVM's `AMDGPUSearchableTables.td` (`SourcesOfDivergence`,
//! `AlwaysUniform`) and `NVPTXTargetTransformInfo::isSourceOfDivergence` for the
//! intrinsics a clang-compiled kernel uses; they are pllvm's reading, documented
//! here, not a copy of those files.

use crate::result::{AnalysisError, InitShapes};
use crate::shape::Shape;
use pllvm_semantics::ir::{FuncId, Module};

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

/// What a target's rules say about an intrinsic call's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntrinsicRule {
    /// A source of divergence: varying whatever its operands.
    Source,
    /// Always uniform, whatever its operands (a value read from one lane or
    /// combined over all of them).
    AlwaysUniform,
}

/// The rule for a call to the function called `name`, if a target's table has one
/// (see the module documentation).
pub fn intrinsic_rule(name: &str) -> Option<IntrinsicRule> {
    const SOURCES: [&str; 13] = [
        "llvm.amdgcn.workitem.id.",
        "llvm.amdgcn.mbcnt.",
        "llvm.amdgcn.interp.",
        "llvm.amdgcn.ds.swizzle",
        "llvm.amdgcn.ds.bpermute",
        "llvm.amdgcn.ds.permute",
        "llvm.amdgcn.mov.dpp",
        "llvm.amdgcn.update.dpp",
        "llvm.amdgcn.permlane",
        "llvm.amdgcn.ps.live",
        "llvm.amdgcn.live.mask",
        "llvm.nvvm.read.ptx.sreg.tid.",
        "llvm.nvvm.shfl.",
    ];
    const UNIFORM: [&str; 6] = [
        "llvm.amdgcn.readfirstlane",
        "llvm.amdgcn.readlane",
        "llvm.amdgcn.ballot",
        "llvm.amdgcn.icmp",
        "llvm.amdgcn.fcmp",
        "llvm.amdgcn.if.break",
    ];
    if SOURCES.iter().any(|p| name.starts_with(p))
        || name == "llvm.nvvm.read.ptx.sreg.laneid"
        || (name.starts_with("llvm.amdgcn.") && name.contains("atomic"))
        || name.starts_with("llvm.nvvm.atomic.")
    {
        Some(IntrinsicRule::Source)
    } else if UNIFORM.iter().any(|p| name.starts_with(p)) {
        Some(IntrinsicRule::AlwaysUniform)
    } else {
        None
    }
}

impl InitShapes {
    /// The parameter shapes of `func` in `module`: those named in `uniform_args`
    /// (names without `%`, or numbers) uniform and the others varying when any is
    /// named ([`InitShapes::with_uniform`]); otherwise the target's rules (see the
    /// module documentation): every argument of a GPU kernel entry uniform, and on
    /// amdgcn every `inreg` argument.
    pub fn for_function(
        module: &Module,
        func: FuncId,
        uniform_args: &[String],
    ) -> Result<InitShapes, AnalysisError> {
        let data = &module.functions[func];
        if uniform_args.iter().any(|a| !a.trim().is_empty()) {
            return InitShapes::with_uniform(data, uniform_args);
        }
        let target = GpuTarget::of(module);
        if target.is_some() && data.is_kernel() {
            return Ok(InitShapes::all_uniform(data));
        }
        Ok(InitShapes {
            params: data
                .params
                .iter()
                .map(|p| {
                    if target == Some(GpuTarget::Amdgcn) && p.is_inreg() {
                        Shape::Uniform
                    } else {
                        Shape::Varying
                    }
                })
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pllvm_semantics::text::parse_module;

    fn shapes(src: &str) -> Vec<bool> {
        let (m, _) = parse_module(src).expect("parses");
        let f = m.first_definition().expect("a function");
        InitShapes::for_function(&m, f, &[])
            .expect("shapes")
            .params
            .iter()
            .map(|s| s.is_uniform())
            .collect()
    }

    #[test]
    fn kernel_arguments_and_inreg_arguments_are_uniform_on_amdgcn() {
        let kernel = "target triple = \"amdgcn-amd-amdhsa\"\n\
            define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %n) {\nentry:\n  ret void\n}\n";
        assert_eq!(shapes(kernel), [true, true]);
        let callee = "target triple = \"amdgcn-amd-amdhsa\"\n\
            define void @f(i32 inreg %a, i32 %b) {\nentry:\n  ret void\n}\n";
        assert_eq!(shapes(callee), [true, false]);
        // inreg means register passing elsewhere, not uniformity.
        let x86 = "target triple = \"x86_64-pc-linux-gnu\"\n\
            define void @f(i32 inreg %a, i32 %b) {\nentry:\n  ret void\n}\n";
        assert_eq!(shapes(x86), [false, false]);
    }

    #[test]
    fn ptx_kernel_arguments_are_uniform_and_uniform_args_override() {
        let src = "target triple = \"nvptx64-nvidia-cuda\"\n\
            define ptx_kernel void @k(ptr %out, i32 %n) {\nentry:\n  ret void\n}\n";
        assert_eq!(shapes(src), [true, true]);
        let (m, _) = parse_module(src).expect("parses");
        let f = m.first_definition().expect("a function");
        let given = InitShapes::for_function(&m, f, &["n".to_string()]).expect("shapes");
        assert!(!given.params[0].is_uniform() && given.params[1].is_uniform());
    }

    #[test]
    fn intrinsic_tables() {
        use IntrinsicRule::*;
        assert_eq!(intrinsic_rule("llvm.amdgcn.workitem.id.y"), Some(Source));
        assert_eq!(intrinsic_rule("llvm.amdgcn.mbcnt.lo"), Some(Source));
        assert_eq!(
            intrinsic_rule("llvm.nvvm.read.ptx.sreg.laneid"),
            Some(Source)
        );
        assert_eq!(
            intrinsic_rule("llvm.amdgcn.readfirstlane.i32"),
            Some(AlwaysUniform)
        );
        assert_eq!(
            intrinsic_rule("llvm.amdgcn.ballot.i64"),
            Some(AlwaysUniform)
        );
        assert_eq!(intrinsic_rule("llvm.amdgcn.workgroup.id.x"), None);
        assert_eq!(intrinsic_rule("llvm.nvvm.read.ptx.sreg.ctaid.x"), None);
    }
}
