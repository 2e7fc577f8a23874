// Atom: an interned, immutable string that compares by pointer.
//
// Every resource of a kind repeats the same namespace, type and (usually) owner. An Atom
// stores each distinct value once for the life of the process, so Metadata spends 8 bytes
// on each instead of a heap string, and equality is one pointer comparison.
//
//   Atom ns = "cluster";
//   assert(ns == Atom("cluster"));       // same pointer
//   std::string_view v = ns.view();      // "cluster"
//
// Interning is a string pool, not a registry: it holds no behaviour, and two runtimes in one
// process see nothing of each other through it. The pool never shrinks; its size is the
// number of distinct namespaces, types and owners the process has seen.
#pragma once

#include <compare>
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

namespace cosi {

class Atom {
 public:
  Atom();  // the empty string
  Atom(std::string_view value);  // NOLINT(google-explicit-constructor): interning is cheap
  Atom(const std::string& value) : Atom(std::string_view(value)) {}
  Atom(const char* value) : Atom(std::string_view(value)) {}

  const std::string& str() const { return *value_; }
  std::string_view view() const { return *value_; }
  bool empty() const { return value_->empty(); }
  const void* identity() const { return value_; }

  friend bool operator==(Atom a, Atom b) { return a.value_ == b.value_; }
  friend std::strong_ordering operator<=>(Atom a, Atom b) {
    if (a.value_ == b.value_) return std::strong_ordering::equal;
    return a.view() <=> b.view();
  }

 private:
  const std::string* value_;
};

std::ostream& operator<<(std::ostream& os, Atom atom);

}  // namespace cosi

template <>
struct std::hash<cosi::Atom> {
  std::size_t operator()(cosi::Atom atom) const noexcept {
    return std::hash<const void*>{}(atom.identity());
  }
};
