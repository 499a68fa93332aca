// Launches of three dimensions (docs/launch.md): every work-item function in every
// dimension, each thread writing at its row-major global position.
__kernel void workitems3d(__global int *ids, __global int *sizes) {
  size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  size_t at = x + get_global_size(0) * (y + get_global_size(1) * z);
  ids[at] = (int)(get_local_id(0) + 10 * get_local_id(1) + 100 * get_local_id(2) +
                  1000 * get_group_id(0) + 10000 * get_group_id(1) +
                  100000 * get_group_id(2));
  sizes[at] = (int)(get_local_size(0) + 10 * get_local_size(1) + 100 * get_local_size(2) +
                    1000 * get_num_groups(0) + 10000 * get_num_groups(1) +
                    100000 * get_num_groups(2));
}
