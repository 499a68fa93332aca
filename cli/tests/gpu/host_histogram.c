/* usage: host_histogram DATA.bin N THREADS OUT.bin (histogram.cl per thread) */
#include "host.h"
#include "histogram.cl"
int main(int argc, char **argv) {
  if (argc != 5) return 2;
  long len;
  int *data = read_file(argv[1], &len);
  int n = atoi(argv[2]), threads = atoi(argv[3]);
  int hist[8] = {0};
  FOR_EACH_THREAD(threads, histogram(hist, data, n));
  write_file(argv[4], hist, sizeof hist);
  return 0;
}
