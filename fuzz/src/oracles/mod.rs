//! Fuzzing oracles (docs/fuzzing.md): each property test of `proofs/tests/` as a named
//! check of one [`Case`] (a program, its inputs and its width), for `pllvm fuzz`.
//!
//! An [`Oracle`] says which generator configuration its programs come from
//! ([`Oracle::gen_config`]), whether this machine can run it
//! ([`Oracle::available`]), and checks a case ([`Oracle::check`], or a batch of
//! cases at once, [`Oracle::check_batch`], which the native oracles use to build
//! one binary for many programs). A [`Verdict`] is a pass, a skip (the case
//! says nothing, e.g. the original run has undefined behaviour), or a
//! [`Failure`] with a short `kind` (what failed, without program-specific
//! names: the shrinker keeps a candidate only if the same kind still fails, and
//! `pllvm fuzz` groups findings by it) and a detail text.
//!
//! The oracles, one module each: `roundtrip` (print, parse, print, export),
//! `verify` (the generator's contract: well-formed, and its FR run returns),
//! `lockstep` (FR lock step against each lane alone), `schedules` (greedy
//! schedules of loop-free programs agree), `exec` (reference against fast
//! execution), `analyses` (thesis, popl, llvm, sa against execution), `llvm`
//! (opt-22's and opt-19's `print<uniformity>` against execution),
//! `llvm_transforms` (opt-22's control-flow passes, their output under OBL
//! against the input under FR; one oracle for all pipelines, `llvm-transforms`,
//! and one per pipeline, `llvm-transforms.NAME`, run only when named), `transforms`
//! (stage-wise equivalence), `native` (`avx2`, `avx512`, `neon`, `scalar-c`
//! against the interpreter) and `external` (a user's command, `--oracle-cmd`).

pub mod analyses;
pub mod case;
pub mod exec;
pub mod external;
pub mod llvm;
pub mod llvm_transforms;
pub mod lockstep;
pub mod native;
pub mod oracle;
pub mod roundtrip;
pub mod schedules;
pub mod transforms;
pub mod verify;

pub use case::Case;
pub use oracle::{Failure, Host, Oracle, Verdict, guarded};

/// Every built-in oracle, in the order `--oracle` lists them (`external` is
/// made from its command by [`external::External::new`]).
pub fn builtin() -> Vec<Box<dyn Oracle>> {
    use pllvm_codegen::native::Target;
    let mut v: Vec<Box<dyn Oracle>> = vec![
        Box::new(roundtrip::RoundTrip),
        Box::new(verify::Verify),
        Box::new(lockstep::LockStep),
        Box::new(schedules::Schedules),
        Box::new(exec::Exec),
        Box::new(analyses::Analyses),
        Box::new(llvm::Llvm),
        Box::new(transforms::Transforms),
        Box::new(native::Native::new(Target::Avx2)),
        Box::new(native::Native::new(Target::Avx512)),
        Box::new(native::Native::new(Target::Neon)),
        Box::new(native::Native::new(Target::ScalarC)),
    ];
    let at = v
        .iter()
        .position(|o| o.name() == "transforms")
        .map_or(v.len(), |i| i + 1);
    for (k, o) in llvm_transforms::variants().into_iter().enumerate() {
        v.insert(at + k, Box::new(o));
    }
    v
}

/// The names of every oracle, `external` last.
pub fn names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = builtin().iter().map(|o| o.name()).collect();
    names.push(external::NAME);
    names
}
