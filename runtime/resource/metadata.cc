#include "runtime/resource/metadata.h"

namespace cosi {

const Metadata::Tags& Metadata::tags() const {
  static const Tags kEmpty;
  return tags_ ? *tags_ : kEmpty;
}

Metadata::Tags& Metadata::mutable_tags() {
  // use_count() == 1 means no other Metadata shares the block, so writing in place is safe:
  // a second owner could only appear by copying this object, which a writer holds exclusively.
  if (!tags_) {
    tags_ = std::make_shared<Tags>();
  } else if (tags_.use_count() > 1) {
    tags_ = std::make_shared<Tags>(*tags_);
  }
  return *tags_;
}

bool Metadata::same_content(const Metadata& other) const {
  if (owner_ != other.owner_ || phase_ != other.phase_) return false;
  if (tags_ == other.tags_) return true;
  const Tags& a = tags();
  const Tags& b = other.tags();
  return a.labels == b.labels && a.annotations == b.annotations && a.finalizers == b.finalizers;
}

}  // namespace cosi
