extern "C" __attribute__((global)) void count_until(int *out, const int *data, int n) {
  int i = __nvvm_read_ptx_sreg_tid_x();
  int k = 0;
  while (k < n) {
    if (data[k] == i) break;
    k++;
  }
  out[i] = k;
}
