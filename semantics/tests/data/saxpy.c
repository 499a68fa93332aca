/* A saxpy-like SPMD loop: each thread starts at its id and strides by the width. */
void saxpy(int tid, int n, float a, const float *x, float *y) {
  for (int i = tid; i < n; i += 64)
    y[i] = a * x[i] + y[i];
}
