#pragma clang fp contract(off)
extern "C" __attribute__((global)) void mandel(int *out, const float *cx, const float *cy,
                                               int maxit, int n) {
  int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
  if (i >= n) return;
  float x = 0.0f, y = 0.0f;
  int k = 0;
  while (k < maxit && x * x + y * y <= 4.0f) {
    float xt = x * x - y * y + cx[i];
    y = 2.0f * x * y + cy[i];
    x = xt;
    k++;
  }
  out[i] = k;
}
