#pragma OPENCL FP_CONTRACT OFF
__kernel void scale4(__global float4 *out, __global const float4 *in, float a, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i < n) {
    float4 v = in[i];
    float4 w = v * a + v.wzyx;
    if (w.x > w.y) w.x = w.y;
    out[i] = w;
  }
}
