// Calls in GPU kernels (docs/launch.md): a helper left as a call at -O0 (inlined when
// read), and the amdgcn wave operations (mbcnt, readfirstlane, ballot) in lock step.
static int clampi(int v, int lo, int hi) {
  if (v < lo) return lo;
  if (v > hi) return hi;
  return v;
}

__kernel void calls(__global int *out, __global int *lanes, __global int *bal, int n) {
  int i = __builtin_amdgcn_workitem_id_x();
  int lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
  int v = clampi(i * 3, 0, n);
  if (i & 1) {
    v += __builtin_amdgcn_readfirstlane(i);
  }
  out[i] = v;
  lanes[i] = lane;
  bal[i] = __builtin_amdgcn_ballot_w32(i < 2 || i == 6);
}
