#pragma OPENCL FP_CONTRACT OFF
/* Mandelbrot escape time per thread: a divergent loop with two exits. */
__kernel void mandel(__global int *out, __global const float *cx, __global const float *cy,
                     int maxit, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
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
