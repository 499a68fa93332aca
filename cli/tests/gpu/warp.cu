// Warp primitives (docs/language.md, "Warp primitives"): a warp reduction with
// __shfl_down_sync, __shfl_sync and __shfl_xor_sync, and in a divergent branch
// __activemask, __ballot_sync, __all_sync and __match_any_sync.
#define R(reg) __nvvm_read_ptx_sreg_##reg()

extern "C" __attribute__((global)) void warp(int *sums, int *reads, int *votes) {
  int t = R(tid_x);
  int v = t + 1;
  for (int k = 16; k > 0; k /= 2)
    v += __nvvm_shfl_sync_down_i32(0xffffffff, v, k, 0x1f);
  sums[t] = v;
  reads[t] = __nvvm_shfl_sync_idx_i32(0xffffffff, 10 * t, 3, 0x1f) +
             1000 * __nvvm_shfl_sync_bfly_i32(0xffffffff, t, 1, 0x1f);
  if (t % 4 == 0) {
    unsigned m = __nvvm_activemask();
    votes[t] = __nvvm_vote_ballot_sync(m, t >= 16) + __nvvm_match_any_sync_i32(m, t / 8);
  } else {
    votes[t] = __nvvm_vote_all_sync(0xeeeeeeee, t < 100);
  }
}
