# lab03's aggregated kernel without the leader test: every lane of a group adds the group's
# whole count, so a group of k lanes adds k x k.
set(LAB lab03)
set(FIND [=[      if (int(lane) == leader_of(peers)) atomicAdd(&d_bins[value], group_count(peers));]=])
set(REPLACE [=[      atomicAdd(&d_bins[value], group_count(peers));]=])
set(TESTS "histogram_aggregated matches the CPU reference on every dataset")
set(EXPECT "does a group have more than one leader")
set(FORBID "race" "head/tail" "head or tail")
