/* usage: host_saxpy Y.bin X.bin A N THREADS OUT.bin (saxpy.cl per thread; OUT = y after) */
#include "host.h"
#include "saxpy.cl"
int main(int argc, char **argv) {
  if (argc != 7) return 2;
  long ylen, xlen;
  float *y = read_file(argv[1], &ylen);
  float *x = read_file(argv[2], &xlen);
  float a = (float)atof(argv[3]);
  int n = atoi(argv[4]), threads = atoi(argv[5]);
  FOR_EACH_THREAD(threads, saxpy(y, x, a, n));
  write_file(argv[6], y, ylen);
  return 0;
}
