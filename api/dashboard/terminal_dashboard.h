// The terminal dashboard: `cosictl dashboard` draws render_screen() of the view on the
// terminal's alternate screen, redrawing when the view changes (its watches say so: no polling)
// and when the window is resized. Keys: `[` / `]` or the left / right arrows switch nodes, `q`
// or Ctrl-C quits; SIGTERM and SIGHUP quit too. Whatever ends it, the terminal is given back as it
// was: its modes restored, the alternate screen left, the cursor shown.
//
//   TerminalDashboard tui(view, "demo");
//   watches = ClusterWatches(view, dial, types, [&] { tui.changed(); });
//   tui.run();   // until q
#pragma once

#include <atomic>
#include <cstddef>
#include <string>

#include "api/dashboard/cluster_view.h"
#include "runtime/base/result.h"

namespace cosi::dashboard {

class TerminalDashboard {
 public:
  // `in` and `out`: the terminal's descriptors (stdin and stdout).
  TerminalDashboard(ClusterView& view, std::string title, int in = 0, int out = 1);
  ~TerminalDashboard();

  // Until a key or a signal says quit. kFailedPrecondition when `in` is not a terminal.
  Status run();
  // The view changed: redraw. Safe from any thread.
  void changed();

 private:
  void draw(std::size_t rows, std::size_t cols);
  // True when the key asks to quit.
  bool key(const std::string& bytes);

  ClusterView& view_;
  std::string title_;
  int in_, out_;
  int wake_[2] = {-1, -1};  // a pipe: changed() and signals write to it
  std::size_t selected_ = 0;
  std::string selected_address_;  // the node stays selected when the order changes
};

}  // namespace cosi::dashboard
