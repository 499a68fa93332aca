;; POPL'21 Fig. 3 (§6.2): "Examples for cooperation with value analyses":
;;   (a) "Adding a constant to a uniform value yields a uniform value";
;;   (b) "Constant branch predicates lead to unreachable code";
;;   (c) "Proving equality of a varying variable to a uniform variable makes that
;;   variable uniform".
;; The picture did not survive; rebuilt from the three bullets in one function.
;; pllvm's analyses are not combined with a value analysis (no reduced product),
;; so they show where such a product would help:
;;   (a) %a = u + 1: uniform by [DA-UARITH] on its own.
;;   (b) `br i1 true`: the constant condition is uniform ([DA-CONST]), so B is no
;;   split and C no join: %b is uniform. The dead block D is still analysed (its
;;   values get shapes a run never checks).
;;   (c) in T, reached only when v == u, %w = v + 0 equals u in every active lane,
;;   yet [DA-DARITH] calls it varying: only a value analysis proving v = u there
;;   would make it uniform. The run shows the lanes agree (a conservative answer).
;; Run, W = 2, u = 3, v = [3, 4]: lane 0 takes T (w = 3), lane 1 F: r = [3, 0].
; analyze: --uniform-args u
; run: --threads 2 --arg u=3 --arg v=3,4
; expect outcome: returned
; expect result: [3, 0]

define i32 @f(i32 %u, i32 %v) {
A:
  %a = add i32 %u, 1                    ; expect: uniform
  br i1 true, label %B, label %D        ; expect: uniform

B:
  br label %C

D:
  br label %C

C:
  %b = phi i32 [ %a, %B ], [ 0, %D ]    ; expect: uniform
  %eq = icmp eq i32 %v, %u              ; expect: varying
  br i1 %eq, label %T, label %F         ; expect: varying

T:
  %w = add i32 %v, 0                    ; expect: varying
  br label %F

F:
  %r = phi i32 [ %w, %T ], [ 0, %C ]    ; expect: varying
  ret i32 %r
}
