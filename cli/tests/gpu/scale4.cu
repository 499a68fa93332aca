typedef float float4v __attribute__((ext_vector_type(4)));
extern "C" __attribute__((global)) void scale4(float4v *out, const float4v *in, float a, int n) {
  int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
  if (i < n) {
    float4v v = in[i];
    float4v w = v * a + v.wzyx;
    if (w.x > w.y) w.x = w.y;
    out[i] = w;
  }
}
