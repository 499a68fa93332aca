/* usage: host_reduce DATA.bin N STRIDE THREADS OUT.bin (reduce.cl per thread;
   OUT = the STRIDE partial sums and the total) */
#include "host.h"
#include "reduce.cl"
int main(int argc, char **argv) {
  if (argc != 6) return 2;
  long len;
  int *data = read_file(argv[1], &len);
  int n = atoi(argv[2]), stride = atoi(argv[3]), threads = atoi(argv[4]);
  int *partial = calloc(stride + 1, sizeof(int));
  FOR_EACH_THREAD(threads, reduce(partial, data, n, stride));
  write_file(argv[5], partial, (long)(stride + 1) * sizeof(int));
  return 0;
}
