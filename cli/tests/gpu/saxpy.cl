__kernel void saxpy(__global float *y, __global const float *x, float a, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i < n) y[i] = a * x[i] + y[i];
}
