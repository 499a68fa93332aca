__kernel void count_until(__global int *out, __global const int *data, int n) {
  int i = __builtin_amdgcn_workitem_id_x();
  int k = 0;
  while (k < n) {
    if (data[k] == i) break;
    k++;
  }
  out[i] = k;
}
