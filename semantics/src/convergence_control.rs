//! The convergence control intrinsics and the `"convergencectrl"` operand
//! bundle (LLVM's convergent operations document, "Convergence Control
//! Intrinsics"), as the verifier's static rules (`verify::tokens`) and the
//! controlled relation of a run (`pllvm_interp::controlled`) read them.

use crate::ir::{Body, Inst, InstKind, Module, Value};

/// The tag of the operand bundle that binds a convergent call to a token.
pub const CONVERGENCECTRL: &str = "convergencectrl";

/// A call to one of the convergence control intrinsics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvergenceControl {
    /// `llvm.experimental.convergence.entry`: ties the function's dynamic
    /// instances to the caller's.
    Entry,
    /// `llvm.experimental.convergence.anchor`: an implementation-defined set.
    Anchor,
    /// `llvm.experimental.convergence.loop`: one more iteration of a cycle.
    Loop,
}

impl ConvergenceControl {
    /// The intrinsic's name.
    pub fn name(self) -> &'static str {
        match self {
            ConvergenceControl::Entry => "llvm.experimental.convergence.entry",
            ConvergenceControl::Anchor => "llvm.experimental.convergence.anchor",
            ConvergenceControl::Loop => "llvm.experimental.convergence.loop",
        }
    }

    /// The intrinsic `inst` calls, if it calls one.
    pub fn of_call(module: &Module, body: &Body, inst: Inst) -> Option<Self> {
        let InstKind::Call { callee, .. } = &body.insts[inst].kind else {
            return None;
        };
        let name = module.functions.get(*callee)?.name.as_str();
        [
            ConvergenceControl::Entry,
            ConvergenceControl::Anchor,
            ConvergenceControl::Loop,
        ]
        .into_iter()
        .find(|c| c.name() == name)
    }
}

/// The `"convergencectrl"` bundles of a call (none for another instruction).
pub fn control_bundles(body: &Body, inst: Inst) -> impl Iterator<Item = &[Value]> + '_ {
    let bundles = match &body.insts[inst].kind {
        InstKind::Call { bundles, .. } => bundles.as_slice(),
        _ => &[],
    };
    bundles
        .iter()
        .filter(|b| b.tag == CONVERGENCECTRL)
        .map(|b| b.args.as_slice())
}
