extern "C" __attribute__((global)) void histogram(int *hist, const int *data, int n) {
  int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
  if (i < n) __nvvm_atom_add_gen_i(&hist[data[i] & 7], 1);
}
