/* reduce.cl in CUDA: partial sums up to a negative value, a total by atomics. */
extern "C" __attribute__((global)) void reduce(int *partial, const int *data, int n, int stride) {
  int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
  if (i >= stride) return;
  int sum = 0;
  for (int k = i; k < n; k += stride) {
    int v = data[k];
    if (v < 0) break;
    sum += v;
  }
  partial[i] = sum;
  __nvvm_atom_add_gen_i(&partial[stride], sum);
}
