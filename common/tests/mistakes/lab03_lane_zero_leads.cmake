# lab03's aggregated kernel electing lane 0 as every group's leader: only the group that holds
# lane 0 is ever added, the other values of the warp are lost.
set(LAB lab03)
set(FIND [=[      if (int(lane) == leader_of(peers)) atomicAdd(&d_bins[value], group_count(peers));]=])
set(REPLACE [=[      if (lane == 0) atomicAdd(&d_bins[value], group_count(peers));]=])
set(TESTS "histogram_aggregated matches the CPU reference on every dataset")
set(EXPECT "a group whose leader never adds|a leader that adds less than its group's count")
set(FORBID "race" "head/tail" "head or tail")
