extern "C" __attribute__((global)) void saxpy(float *y, const float *x, float a, int n) {
  int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
  if (i < n) y[i] = a * x[i] + y[i];
}
