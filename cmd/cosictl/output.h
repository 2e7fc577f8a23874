// How cosictl prints resources, as talosctl does (shared/PROTOCOL.md §3):
//
//   table   NODE NAMESPACE TYPE ID VERSION + the definition's print columns, upper-cased;
//           with --watch a * column after NODE: + created, - destroyed, blank updated
//   yaml    documents separated by ---: node, (event), metadata, spec
//   json    the same document as JSON, keys sorted, four-space indent
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "resource.pb.h"
#include "runtime/resource/meta/resource_definition.h"
#include "runtime/state/event.h"

namespace cosi::cosictl {

class Printer {
 public:
  virtual ~Printer() = default;
  // The event is set for --watch output.
  virtual Status print(const std::string& node, const cosi::resource::Resource& resource,
                       std::optional<EventType> event) = 0;
  virtual void flush() = 0;
};

// kInvalidArgument for an unknown format or a print column that does not parse.
Result<std::unique_ptr<Printer>> make_printer(const std::string& format, const ResourceDefinitionSpec& definition,
                                              bool watching);

// Columns aligned like Go's tabwriter with padding 3 (the last column is not padded).
class TabWriter {
 public:
  void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  std::string render();

 private:
  std::vector<std::vector<std::string>> rows_;
};

// The metadata block of `-o yaml`, keys in COSI's order, four-space indent.
std::string metadata_yaml(const cosi::resource::Metadata& md);

}  // namespace cosi::cosictl
