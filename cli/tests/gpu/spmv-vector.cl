// A CSR sparse matrix-vector product, the "vector" kernel: one work-group per
// row, its threads striding the row's nonzeros (a loop whose trip count
// differs per thread: divergent), then a tree reduction of their partial sums
// in local memory, a barrier after the loop and after every round. Integers,
// so the sum is exact in any order. docs/launch.md, "Work-groups of several
// warps": with groups of 64 and W = 32 the reduction reads the other warp's
// partial sums.
__kernel void spmv_vector(__global int *y, __global const int *rowptr,
                          __global const int *cols, __global const int *vals,
                          __global const int *x, int rows,
                          __local int *partial) {
  size_t l = get_local_id(0);
  size_t n = get_local_size(0);
  int row = (int)get_group_id(0);
  int sum = 0;
  if (row < rows)
    for (int k = rowptr[row] + (int)l; k < rowptr[row + 1]; k += (int)n)
      sum += vals[k] * x[cols[k]];
  partial[l] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = n / 2; s > 0; s >>= 1) {
    if (l < s)
      partial[l] += partial[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0 && row < rows)
    y[row] = partial[0];
}
