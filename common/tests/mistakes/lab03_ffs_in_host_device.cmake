# lab03's leader_of written with the device intrinsic __ffs: leader_of is __host__ __device__, and
# the graders call it on the CPU. nvcc does not compile it for the host; the simulator, which
# compiles every function as host code, refuses the call where it runs outside a kernel.
set(LAB lab03)
set(FIND [=[  return lowest_set_bit(peers);]=])
set(REPLACE [=[  return __ffs(peers) - 1;]=])
set(TESTS "leader_of picks the lowest lane of the group and group_count counts its lanes")
set(EXPECT "__ffs called in host code: it is a device function")
set(FORBID "race")
set(NVCC_REJECTS "__ffs")
