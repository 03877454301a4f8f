// Every kernel the benchmark knows, from the labs' own registries (generated registry.cpp).
#pragma once

#include "histo/launch.hpp"

#include <vector>

namespace bench {

std::vector<histo::Variant> all_variants();
std::vector<histo::ReadProbe> all_probes();

}  // namespace bench
