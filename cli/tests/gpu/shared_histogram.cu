// A histogram of 8 bins: each block counts its 64 inputs in __shared__ bins
// with atomics on shared memory, then adds its bins to the global ones.
#define R(reg) __nvvm_read_ptx_sreg_##reg()
#define __shared__ __attribute__((shared))
#define BINS 8

extern "C" __attribute__((global)) void shared_histogram(int *hist, const int *data, int n) {
  __shared__ int bins[BINS];
  int t = R(tid_x);
  int i = R(ctaid_x) * R(ntid_x) + t;
  if (t < BINS) bins[t] = 0;
  __syncthreads();
  if (i < n) __nvvm_atom_add_gen_i(&bins[data[i] & (BINS - 1)], 1);
  __syncthreads();
  if (t < BINS) __nvvm_atom_add_gen_i(&hist[t], bins[t]);
}
