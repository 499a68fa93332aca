/* Compiles an OpenCL C kernel of cli/tests/gpu/ as C for the host (clang-19),
   so that a driver can run it thread by thread, in thread order: the reference
   that cli/tests/gpu_types.rs compares `pllvm run --grid` with. The work-item
   builtins read the thread's place, set by the driver before each call. */
#include <stdio.h>
#include <stdlib.h>
#define __kernel
#define __global
static int host_group, host_local;
#define __builtin_amdgcn_workgroup_id_x() host_group
#define __builtin_amdgcn_workitem_id_x() host_local
typedef float float4 __attribute__((ext_vector_type(4)));

/* The whole file at `path`; its length in bytes in *len. */
static void *read_file(const char *path, long *len) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(2); }
  fseek(f, 0, SEEK_END);
  *len = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *buf = malloc(*len ? *len : 1);
  if (fread(buf, 1, *len, f) != (size_t)*len) { perror(path); exit(2); }
  fclose(f);
  return buf;
}

static void write_file(const char *path, const void *buf, long len) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(buf, 1, len, f) != (size_t)len) { perror(path); exit(2); }
  fclose(f);
}

/* Runs `call` for threads 0..threads-1 in order, in work-groups of 64. */
#define FOR_EACH_THREAD(threads, call)                                          \
  for (int t = 0; t < (threads); t++) {                                         \
    host_group = t / 64;                                                        \
    host_local = t % 64;                                                        \
    call;                                                                       \
  }
