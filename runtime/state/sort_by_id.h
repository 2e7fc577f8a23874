// sort_by_id: the order List and bootstrap contents promise. Sorting compares the first eight
// bytes of each id as one integer and touches the strings only on a tie, so a sort of many
// resources does not chase a pointer per comparison.
#pragma once

#include <vector>

#include "runtime/resource/resource.h"

namespace cosi {

void sort_by_id(std::vector<ResourcePtr>& resources);

}  // namespace cosi
