;; Gather load and scatter store on a global buffer (read^W / write^W, §4.9.1),
;; and a uniform store: "Scattering the same value to the same address by
;; multiple threads results in that value being stored at that address".
;; Four lanes (W = 4). @buf comes from the run (--mem), @out has an initializer.
;;
;; Derivation, @buf = [10, 20, 30, 40]:
;;   v = buf[3 - t] (gather, all lanes read before anybody writes) = [40, 30, 20, 10].
;;   buf[t] := v + t (scatter, distinct addresses) -> @buf = [40, 31, 22, 13].
;;   out[1] := 7 by every lane (same value, same address) -> @out = [0, 7].
;;   r = v.
; run fr: --threads 4 --interp fr --schedule A --mem @buf=10,20,30,40
; run obl: --threads 4 --interp obl --schedule A --mem @buf=10,20,30,40
; expect outcome: returned
; expect result: [40, 30, 20, 10]
; expect memory: @buf = [40, 31, 22, 13]
; expect memory: @out = [0, 7]

@buf = external global [4 x i32]
@out = global [2 x i32] zeroinitializer

define i32 @f() {
A:
  %t = call i32 @pllvm.thread_id()
  %rev = sub i32 3, %t
  %src = getelementptr inbounds [4 x i32], ptr @buf, i32 0, i32 %rev
  %v = load i32, ptr %src
  %w = add i32 %v, %t
  %dst = getelementptr inbounds [4 x i32], ptr @buf, i32 0, i32 %t
  store i32 %w, ptr %dst
  %o = getelementptr inbounds [2 x i32], ptr @out, i32 0, i32 1
  store i32 7, ptr %o
  ret i32 %v
}
