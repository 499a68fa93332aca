// Two warps of one work-group writing one local cell (docs/launch.md, "Races
// within a work-group"): threads 0 and 32 of a group are lane 0 of its first two
// warps (W = 32). `lds_race` has no barrier between their writes, which race;
// `lds_ordered` has one, so thread 32's write comes last and every thread
// reads 2.
__kernel void lds_race(__global int *out) {
  __local int cell;
  size_t l = get_local_id(0);
  if (l == 0)
    cell = 1;
  if (l == 32)
    cell = 2;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = cell;
}

__kernel void lds_ordered(__global int *out) {
  __local int cell;
  size_t l = get_local_id(0);
  if (l == 0)
    cell = 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 32)
    cell = 2;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = cell;
}
