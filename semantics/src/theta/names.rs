//! θ's names (thesis Def. 1: fnc ∈ dom θ): [`resolve`] maps a callee name to its
//! [`Builtin`], with LLVM's overload suffixes parsed generically (LangRef
//! "Intrinsic Functions": `llvm.smax.i32`, `llvm.memcpy.p0.p0.i64`) and the C
//! library names clang emits for math calls (`sqrt`, `sqrtf`).

use super::builtin::{Builtin, NAMES};
use super::math::MathFn;

/// C library functions clang emits for math calls (the `double` spelling; the
/// `float` one adds `f`: `sqrtf`). Their types come from the call, as for intrinsics.
const C_LIBRARY: &[(&str, MathFn)] = {
    use MathFn::*;
    &[
        ("sqrt", Sqrt),
        ("fabs", Fabs),
        ("floor", Floor),
        ("ceil", Ceil),
        ("trunc", Trunc),
        ("round", Round),
        ("roundeven", RoundEven),
        ("rint", Rint),
        ("nearbyint", NearbyInt),
        ("exp", Exp),
        ("exp2", Exp2),
        ("exp10", Exp10),
        ("expm1", Expm1),
        ("log", Log),
        ("log2", Log2),
        ("log10", Log10),
        ("log1p", Log1p),
        ("sin", Sin),
        ("cos", Cos),
        ("tan", Tan),
        ("asin", Asin),
        ("acos", Acos),
        ("atan", Atan),
        ("sinh", Sinh),
        ("cosh", Cosh),
        ("tanh", Tanh),
        ("cbrt", Cbrt),
        ("pow", Pow),
        ("atan2", Atan2),
        ("hypot", Hypot),
        ("fmod", Fmod),
        ("fmin", MinNum),
        ("fmax", MaxNum),
        ("fminimum", Minimum),
        ("fmaximum", Maximum),
        ("fminimum_num", MinimumNum),
        ("fmaximum_num", MaximumNum),
        ("copysign", CopySign),
        ("ldexp", Ldexp),
        ("fma", Fma),
        ("lround", LRound),
        ("llround", LRound),
        ("lrint", LRint),
        ("llrint", LRint),
    ]
};

/// Whether `s` is one LLVM overload suffix for a scalar type: `i32`, `f64`, `p0`
/// (an opaque pointer in address space 0), or the typed-pointer `p0i8` of old IR.
fn is_type_suffix(s: &str) -> bool {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
    if let Some(width) = s.strip_prefix('i') {
        return digits(width);
    }
    if matches!(
        s,
        "f16" | "bf16" | "f32" | "f64" | "f80" | "f128" | "ppcf128"
    ) {
        return true;
    }
    if let Some(rest) = s.strip_prefix('p') {
        let split = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let (space, pointee) = rest.split_at(split);
        return digits(space) && (pointee.is_empty() || is_type_suffix(pointee));
    }
    false
}

/// Whether a call to `callee` is a convergent operation (LLVM's convergent
/// operations document): the callee has the `convergent` attribute
/// ([`FunctionData::convergent`](crate::ir::FunctionData::convergent)), or θ
/// defines it as a builtin that communicates across lanes ([`is_convergent`](super::is_convergent)),
/// as LLVM's intrinsics are convergent by their definition whatever their
/// `declare` says.
pub fn is_convergent_call(module: &crate::ir::Module, callee: crate::ir::FuncId) -> bool {
    let Some(f) = module.functions.get(callee) else {
        return false;
    };
    f.convergent || resolve(&f.name).is_some_and(super::builtin::is_convergent)
}

/// θ(fnc): the function behind a callee name (without `@`), or `None` when θ does
/// not define it (Def. 11.2 then makes the program ill-formed).
pub fn resolve(name: &str) -> Option<Builtin> {
    for &(base, builtin) in NAMES {
        let Some(rest) = name.strip_prefix(base) else {
            continue;
        };
        if rest.is_empty() {
            return Some(builtin);
        }
        if let Some(suffixes) = rest.strip_prefix('.')
            && suffixes.split('.').all(is_type_suffix)
        {
            return Some(builtin);
        }
    }
    // CUDA libdevice (`__nv_sqrtf`) and AMD OCML (`__ocml_sqrt_f32`) spellings.
    let c_name = if let Some(rest) = name.strip_prefix("__nv_") {
        rest
    } else if let Some(rest) = name.strip_prefix("__ocml_") {
        rest.strip_suffix("_f32")
            .or_else(|| rest.strip_suffix("_f64"))?
    } else {
        name
    };
    let double_name = C_LIBRARY.iter().find(|(n, _)| *n == c_name);
    let float_name = || {
        let base = c_name.strip_suffix('f')?;
        C_LIBRARY.iter().find(|(n, _)| *n == base)
    };
    double_name
        .or_else(float_name)
        .map(|&(_, f)| Builtin::Math(f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theta::*;

    #[test]
    fn resolves_the_required_names() {
        let table = [
            ("pllvm.thread_id", Builtin::ThreadId),
            ("llvm.amdgcn.workitem.id.x", Builtin::ThreadId),
            ("llvm.nvvm.read.ptx.sreg.tid.x", Builtin::ThreadId),
            ("pllvm.any", Builtin::Any),
            ("pllvm.all", Builtin::All),
            ("pllvm.popcount", Builtin::Popcount),
            ("pllvm.ballot", Builtin::Ballot),
            ("pllvm.ballot.i64", Builtin::Ballot),
            ("sqrtf", Builtin::Math(MathFn::Sqrt)),
            ("sqrt", Builtin::Math(MathFn::Sqrt)),
            ("fabsf", Builtin::Math(MathFn::Fabs)),
            ("fabs", Builtin::Math(MathFn::Fabs)),
            ("floorf", Builtin::Math(MathFn::Floor)),
            ("expf", Builtin::Math(MathFn::Exp)),
            ("exp", Builtin::Math(MathFn::Exp)),
            ("logf", Builtin::Math(MathFn::Log)),
            ("sinf", Builtin::Math(MathFn::Sin)),
            ("cosf", Builtin::Math(MathFn::Cos)),
            ("powf", Builtin::Math(MathFn::Pow)),
            ("fmaf", Builtin::Math(MathFn::Fma)),
            ("fminf", Builtin::Math(MathFn::MinNum)),
            ("fmaxf", Builtin::Math(MathFn::MaxNum)),
            ("fmodf", Builtin::Math(MathFn::Fmod)),
            ("__nv_sqrtf", Builtin::Math(MathFn::Sqrt)),
            ("__ocml_exp_f64", Builtin::Math(MathFn::Exp)),
            ("llvm.sqrt.f32", Builtin::Math(MathFn::Sqrt)),
            ("llvm.fabs.f64", Builtin::Math(MathFn::Fabs)),
            ("llvm.fmuladd.f32", Builtin::Math(MathFn::FMulAdd)),
            ("llvm.smax.i32", Builtin::Math(MathFn::SMax)),
            ("llvm.umin.i64", Builtin::Math(MathFn::UMin)),
            ("llvm.abs.i32", Builtin::Math(MathFn::Abs)),
            ("llvm.ctpop.i8", Builtin::Math(MathFn::Ctpop)),
            ("llvm.ctlz.i32", Builtin::Math(MathFn::Ctlz)),
            ("llvm.minnum.f32", Builtin::Math(MathFn::MinNum)),
            ("llvm.maximum.f64", Builtin::Math(MathFn::Maximum)),
            ("llvm.copysign.f32", Builtin::Math(MathFn::CopySign)),
            ("llvm.fshl.i32", Builtin::Math(MathFn::FShl)),
            ("llvm.sadd.sat.i4096", Builtin::Math(MathFn::SAddSat)),
            ("llvm.lround.i64.f64", Builtin::Math(MathFn::LRound)),
            ("llvm.powi.f32.i32", Builtin::Math(MathFn::Powi)),
            ("llvm.assume", Builtin::Assume),
            ("llvm.lifetime.start.p0", Builtin::LifetimeStart),
            ("llvm.lifetime.end.p0", Builtin::LifetimeEnd),
            ("llvm.lifetime.start.p0i8", Builtin::LifetimeStart),
            ("llvm.memset.p0.i64", Builtin::Memset),
            ("llvm.memset.inline.p0.i64", Builtin::Memset),
            ("llvm.memcpy.p0.p0.i64", Builtin::Memcpy),
            ("llvm.memcpy.p1.p3.i32", Builtin::Memcpy),
            ("llvm.memmove.p0.p0.i64", Builtin::Memmove),
            ("llvm.experimental.noalias.scope.decl", Builtin::NoOp),
        ];
        for (name, expect) in table {
            assert_eq!(resolve(name), Some(expect), "{name}");
        }
        for unknown in [
            "llvm.sqrtx.f32",
            "llvm.sqrt.v4f32",
            "llvm.smax.ix",
            "foo",
            "sqrtff",
            "llvm.memcpy.p0.p0.i64.extra",
            "pllvm.anyx",
        ] {
            assert_eq!(resolve(unknown), None, "{unknown}");
        }
        assert_eq!(Builtin::Math(MathFn::SAddSat).to_string(), "llvm.sadd.sat");
        assert!(touches_memory(Builtin::Memcpy) && !touches_memory(Builtin::Assume));
        assert!(is_horizontal(Builtin::Ballot) && !is_horizontal(Builtin::ThreadId));
    }
}
