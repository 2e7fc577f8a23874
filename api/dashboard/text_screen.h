// The terminal dashboard's screen: one node's card (the one selected), then what the cluster
// shares — Members, the etcd quorum table with the current row marked, the VIP holder — as plain
// lines a terminal prints top to bottom. Pure: the same snapshot always gives the same lines.
//
//   auto lines = render_screen(view.snapshot(), /*selected=*/1, "demo", 120);
//   for (const auto& l : lines) print(l.highlight ? reverse(l.text) : l.text);
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "api/dashboard/cluster_view.h"

namespace cosi::dashboard {

struct ScreenLine {
  std::string text;
  bool highlight = false;  // drawn in reverse video: the selected node, the current quorum row
};

std::vector<ScreenLine> render_screen(const ClusterSnapshot& snapshot, std::size_t selected, const std::string& title,
                                      std::size_t width);

}  // namespace cosi::dashboard
