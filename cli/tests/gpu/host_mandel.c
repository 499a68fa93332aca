/* usage: host_mandel CX.bin CY.bin MAXIT N THREADS OUT.bin (mandel.cl per thread) */
#include "host.h"
#include "mandel.cl"
int main(int argc, char **argv) {
  if (argc != 7) return 2;
  long len;
  float *cx = read_file(argv[1], &len);
  float *cy = read_file(argv[2], &len);
  int maxit = atoi(argv[3]), n = atoi(argv[4]), threads = atoi(argv[5]);
  int *out = calloc(n, sizeof(int));
  FOR_EACH_THREAD(threads, mandel(out, cx, cy, maxit, n));
  write_file(argv[6], out, (long)n * sizeof(int));
  return 0;
}
