/* usage: host_count_until DATA.bin N THREADS OUT.bin (count-until.cl per thread) */
#include "host.h"
#include "count-until.cl"
int main(int argc, char **argv) {
  if (argc != 5) return 2;
  long len;
  int *data = read_file(argv[1], &len);
  int n = atoi(argv[2]), threads = atoi(argv[3]);
  int *out = calloc(threads, sizeof(int));
  FOR_EACH_THREAD(threads, count_until(out, data, n));
  write_file(argv[4], out, (long)threads * sizeof(int));
  return 0;
}
