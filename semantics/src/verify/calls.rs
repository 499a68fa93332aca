//! Calls: Def. 11.2 (every callee is in θ and is not a P-LLVM function,
//! §4.9.2) and a call's match with its callee's declaration.
//!
//! pllvm reads θ as open: a `declare`d function θ does not define (an external
//! function, or an intrinsic pllvm does not know) is accepted here, and a call
//! to it is undefined behaviour only when a lane executes it
//! ([`crate::rules::cmd::w_cmd_call`]); the analyses take its result as varying.
//! Only the reserved `pllvm.*` names must be θ's. Calls to functions defined in
//! the module are inlined by the parser (`text::parser::inline`), so the
//! verifier sees one only when it could not be inlined (a mismatched call).

use super::{FunctionChecker, VerifyError};
use crate::ir::{FuncId, Inst, InstKind, Value};
use crate::types::Ty;

impl FunctionChecker<'_> {
    /// Def. 11.2: the callee is not a P-LLVM function (§4.9.2), and a `pllvm.*`
    /// callee is in θ with θ's signature.
    pub(super) fn check_callee(&mut self, inst: Inst) {
        let InstKind::Call { callee, .. } = &self.body.insts[inst].kind else {
            return;
        };
        let callee = &self.module.functions[*callee];
        let span = self.spans.insts[inst];
        let name = callee.name.clone();
        if callee.body.is_some() {
            self.error(span, VerifyError::CallsPllvmFunction { callee: name });
        } else {
            match crate::theta::resolve(&name) {
                None if name.starts_with("pllvm.") => {
                    self.error(span, VerifyError::NotInTheta { callee: name });
                }
                // A declared external function: accepted, undefined if executed.
                None => {}
                Some(builtin) => {
                    // The call is checked against the declaration elsewhere; here the
                    // declaration is checked against θ, so each mismatch is told once.
                    let types = &self.module.types;
                    let arg_tys: Vec<&crate::types::TypeData> =
                        callee.params.iter().map(|p| types.get(p.ty)).collect();
                    if let Err(expected) =
                        crate::theta::signature_ok(builtin, &arg_tys, types.get(callee.ret_ty))
                    {
                        self.error(
                            span,
                            VerifyError::ThetaSignature {
                                callee: name,
                                expected,
                            },
                        );
                    }
                }
            }
        }
    }

    /// A call matches its callee's declaration: argument count and types, and the
    /// return type.
    pub(super) fn check_call(&mut self, inst: Inst, callee: FuncId, ret_ty: Ty, args: &[Value]) {
        let types = &self.module.types;
        let callee = &self.module.functions[callee];
        let span = self.spans.insts[inst];
        let count_ok = if callee.variadic {
            args.len() >= callee.params.len()
        } else {
            args.len() == callee.params.len()
        };
        if !count_ok {
            let expected = if callee.variadic {
                format!("at least {}", callee.params.len())
            } else {
                callee.params.len().to_string()
            };
            let error = VerifyError::CallArgCount {
                callee: callee.name.clone(),
                found: args.len(),
                expected,
            };
            self.error(span, error);
        }
        for (operand, (arg, param)) in args.iter().zip(&callee.params).enumerate() {
            self.expect_operand(self.operand_span(inst, operand), *arg, "call", param.ty);
        }
        if ret_ty != callee.ret_ty {
            let error = VerifyError::CallRetType {
                callee: callee.name.clone(),
                found: types.display(ret_ty),
                expected: types.display(callee.ret_ty),
            };
            self.error(span, error);
        }
    }
}
