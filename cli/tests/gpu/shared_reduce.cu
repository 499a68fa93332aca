// A tree reduction in __shared__ memory: each block of 64 threads sums its
// 64 inputs into out[blockIdx.x].
#define R(reg) __nvvm_read_ptx_sreg_##reg()
#define __shared__ __attribute__((shared))

extern "C" __attribute__((global)) void shared_reduce(int *out, const int *in) {
  __shared__ int s[64];
  int t = R(tid_x);
  s[t] = in[R(ctaid_x) * 64 + t];
  __syncthreads();
  for (int k = 32; k > 0; k /= 2) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[R(ctaid_x)] = s[0];
}
