#include "api/dashboard/text_screen.h"

#include <algorithm>

namespace cosi::dashboard {
namespace {

// Rows of cells as columns two spaces apart, each as wide as its widest cell.
std::vector<std::string> columns(const std::vector<std::vector<std::string>>& rows, const std::string& indent) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::vector<std::string> out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    out.push_back(line);
  }
  return out;
}

std::string yes_no(bool b) { return b ? "yes" : "no"; }

class Screen {
 public:
  explicit Screen(std::size_t width) : width_(std::max<std::size_t>(width, 20)) {}
  void line(std::string text, bool highlight = false) {
    if (text.size() > width_) text.resize(width_);
    lines_.push_back({std::move(text), highlight});
  }
  void heading(const std::string& text) {
    line("");
    line(text);
  }
  void table(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& highlight = {}) {
    auto text = columns(rows, "  ");
    for (std::size_t i = 0; i < text.size(); ++i) line(text[i], i < highlight.size() && highlight[i]);
  }
  std::vector<ScreenLine> take() { return std::move(lines_); }

 private:
  std::size_t width_;
  std::vector<ScreenLine> lines_;
};

void node_card(Screen& s, const NodeCard& c) {
  s.heading("NODE " + c.hostname + " (" + c.address + ")");
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"reachable", c.reachable ? "yes" : "no: " + c.error});
  rows.push_back({"machine type", c.machine_type.empty() ? "-" : c.machine_type});
  rows.push_back({"config", c.config.empty() ? "-" : c.config});
  if (c.machine_type == "controlplane") {
    std::string etcd = c.etcd_role.empty() ? "not a member" : c.etcd_role + ", " + (c.etcd_healthy ? "healthy" : "unhealthy");
    if (!c.etcd_error.empty()) etcd += ": " + c.etcd_error;
    rows.push_back({"etcd", etcd});
  }
  rows.push_back({"kubeprism", c.kubeprism_host.empty() ? "-" : c.kubeprism_host + (c.kubeprism_healthy ? " healthy" : " unhealthy")});
  s.table(rows);
  if (!c.upstreams.empty()) {
    std::vector<std::vector<std::string>> up{{"UPSTREAM", "HEALTHY", "LATENCY", "ACTIVE"}};
    for (const auto& u : c.upstreams) up.push_back({u.address, u.healthy ? "true" : "false", u.latency, std::to_string(u.active)});
    s.table(up);
  }
  if (!c.services.empty()) {
    std::vector<std::vector<std::string>> svc{{"SERVICE", "STATE", "HEALTH"}};
    for (const auto& x : c.services) svc.push_back({x.id, x.state, x.health});
    s.table(svc);
  }
}

void quorum(Screen& s, const ClusterSnapshot& snap) {
  const QuorumView& q = snap.quorum;
  if (!q.known) {
    s.heading("ETCD QUORUM unknown: no control plane reports it");
    return;
  }
  s.heading("ETCD QUORUM (as " + q.seen_from + " sees it)");
  s.table({{"members", "quorum needed", "tolerated", "healthy", "has quorum", "leader"},
           {std::to_string(q.voting), std::to_string(q.quorum_needed), std::to_string(q.tolerated),
            std::to_string(q.healthy) + "/" + std::to_string(q.voting), yes_no(q.has_quorum), q.leader.empty() ? "none" : q.leader}});
  std::vector<std::vector<std::string>> rows{{"MEMBERS", "QUORUM", "TOLERATES", ""}};
  std::vector<bool> marks{false};
  for (const auto& r : q.table) {
    rows.push_back({std::to_string(r.members), std::to_string(r.quorum), std::to_string(r.tolerates), r.current ? "<- now" : ""});
    marks.push_back(r.current);
  }
  s.table(rows, marks);
  s.line(snap.writes_available ? "  writes available" : "  writes UNAVAILABLE: no quorum");
}

}  // namespace

std::vector<ScreenLine> render_screen(const ClusterSnapshot& snap, std::size_t selected, const std::string& title,
                                      std::size_t width) {
  Screen s(width);
  s.line("cosictl dashboard: " + title + "   [ ] or arrows: node   q: quit");
  std::string tabs;
  for (std::size_t i = 0; i < snap.nodes.size(); ++i) {
    const auto& n = snap.nodes[i];
    std::string tab = n.hostname + (n.reachable ? "" : " (down)");
    tabs += i == selected ? "[" + tab + "] " : " " + tab + "  ";
  }
  s.line(tabs);
  if (selected < snap.nodes.size()) node_card(s, snap.nodes[selected]);

  s.heading("MEMBERS (" + std::to_string(snap.members.size()) + ")");
  std::vector<std::vector<std::string>> members{{"NAME", "MACHINE TYPE", "ADDRESSES"}};
  for (const auto& m : snap.members) {
    std::string addresses;
    for (const auto& a : m.addresses) addresses += (addresses.empty() ? "" : ",") + a;
    members.push_back({m.id, m.machine_type, addresses});
  }
  s.table(members);

  quorum(s, snap);

  for (const auto& v : snap.vips) s.heading("VIP " + v.ip + " held by " + (v.holder.empty() ? "nobody" : v.holder));
  return s.take();
}

}  // namespace cosi::dashboard
