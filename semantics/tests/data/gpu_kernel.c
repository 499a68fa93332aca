/* An OpenCL-style kernel for amdgcn: thread id from the workitem intrinsic. */
__attribute__((amdgpu_kernel))
void scale(__attribute__((address_space(1))) float *out, float k, int n) {
  int tid = __builtin_amdgcn_workitem_id_x();
  if (tid < n)
    out[tid] = out[tid] * k;
}
