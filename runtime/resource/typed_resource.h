// TypedResource<Spec>: a resource whose spec is a C++ value. Spec must be copyable; specs are
// compared with SpecTraits<Spec>::equal, which is operator== unless specialised. A spec that
// crosses a process boundary (API, plugins) also has, in its SpecTraits specialisation,
//
//   static std::string encode(const Spec&);               // protobuf bytes
//   static Result<Spec> decode(std::string_view bytes);
//   static std::string yaml(const Spec&);                 // optional: the YAML talosctl prints
//
//   struct Greeting { std::string text; bool operator==(const Greeting&) const = default; };
//   auto r = make_resource<Greeting>(Metadata("default", "Greetings.test.dev", "hello"),
//                                    Greeting{"hi"});
//   state.create(r);
//   auto stored = resource_cast<Greeting>(*state.get(r->metadata().pointer()));
//   stored->spec().text == "hi"
#pragma once

#include <memory>
#include <typeinfo>

#include "runtime/resource/resource.h"

namespace cosi {

template <class Spec>
struct SpecTraits {
  static bool equal(const Spec& a, const Spec& b) { return a == b; }
};

template <class Spec>
class TypedResource final : public Resource {
 public:
  TypedResource(Metadata metadata, Spec spec)
      : Resource(std::move(metadata)), spec_(std::move(spec)) {}

  const Spec& spec() const { return spec_; }
  Spec& mutable_spec() {
    forget_encoding();
    return spec_;
  }

  std::shared_ptr<Resource> clone() const override {
    return std::make_shared<TypedResource>(*this);
  }

  // A typed mutable copy.
  std::shared_ptr<TypedResource> typed_clone() const {
    return std::make_shared<TypedResource>(*this);
  }

  bool spec_equals(const Resource& other) const override {
    // The class is final: the same type is the only match, and typeid says so without the
    // hierarchy walk of a dynamic_cast (a no-op Modify compares once per call).
    if (typeid(other) != typeid(TypedResource)) return false;
    return SpecTraits<Spec>::equal(spec_, static_cast<const TypedResource&>(other).spec_);
  }

  bool encode_spec(std::string* proto, std::string* yaml) const override {
    if constexpr (requires(const Spec& s) { SpecTraits<Spec>::encode(s); }) {
      if (proto != nullptr) *proto = SpecTraits<Spec>::encode(spec_);
      if (yaml != nullptr) {
        if constexpr (requires(const Spec& s) { SpecTraits<Spec>::yaml(s); }) {
          *yaml = SpecTraits<Spec>::yaml(spec_);
        } else {
          yaml->clear();
        }
      }
      return true;
    } else {
      return false;
    }
  }

 private:
  Spec spec_;
};

template <class Spec>
std::shared_ptr<TypedResource<Spec>> make_resource(Metadata metadata, Spec spec) {
  return std::make_shared<TypedResource<Spec>>(std::move(metadata), std::move(spec));
}

// The typed view of a snapshot; null when the resource holds another spec type.
template <class Spec>
std::shared_ptr<const TypedResource<Spec>> resource_cast(const ResourcePtr& resource) {
  return std::dynamic_pointer_cast<const TypedResource<Spec>>(resource);
}

}  // namespace cosi
