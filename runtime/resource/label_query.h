// LabelQuery: select resources by their labels. The terms of one query are AND-ed; a list of
// queries is OR-ed (matches_any). The operations and their numbering are the wire's
// (cosi.resource.LabelTerm.Operation).
//
//   LabelQuery q{LabelTerm::equal("role", "controlplane"), LabelTerm::exists("zone").inverted()};
//   q.matches(Labels{{"role", "controlplane"}})   -> true
//
// A comparison (Equal, In, LT, LTE, LTNumeric, LTENumeric) on a label the resource does not
// have is false, inverted or not: "not equal to x" selects resources that have the label with
// another value. Exists inverted selects resources without the label. NotExists is the
// deprecated spelling of an inverted Exists.
//
// Numeric comparisons read an integer with an optional unit: k m g t p (powers of 1000) or
// ki mi gi ti pi (powers of 1024), any case: "10", "-3", "5k", "2Gi". A label value that is not
// such a number matches no numeric term; a query value that is not one fails validate().
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/result.h"
#include "runtime/resource/labels.h"

namespace cosi {

enum class LabelOp : int {
  kExists = 0,
  kEqual = 1,
  kNotExists = 2,
  kIn = 3,
  kLT = 4,
  kLTE = 5,
  kLTNumeric = 6,
  kLTENumeric = 7,
};

struct LabelTerm {
  std::string key;
  LabelOp op = LabelOp::kExists;
  std::vector<std::string> values;
  bool invert = false;

  static LabelTerm exists(std::string key);
  static LabelTerm equal(std::string key, std::string value);
  static LabelTerm in(std::string key, std::vector<std::string> values);
  static LabelTerm lt(std::string key, std::string value);
  static LabelTerm lte(std::string key, std::string value);
  static LabelTerm lt_numeric(std::string key, std::string value);
  static LabelTerm lte_numeric(std::string key, std::string value);

  LabelTerm inverted() const&;
  LabelTerm inverted() &&;

  bool matches(const Labels& labels) const;

  // kUnimplemented for an operation outside the enum, kInvalidArgument for a wrong number of
  // values or a numeric value that does not parse. The message names the key.
  Status validate() const;

  friend bool operator==(const LabelTerm&, const LabelTerm&) = default;
};

class LabelQuery {
 public:
  LabelQuery() = default;
  LabelQuery(std::initializer_list<LabelTerm> terms) : terms_(terms) {}
  explicit LabelQuery(std::vector<LabelTerm> terms) : terms_(std::move(terms)) {}

  const std::vector<LabelTerm>& terms() const { return terms_; }
  void add(LabelTerm term) { terms_.push_back(std::move(term)); }

  bool matches(const Labels& labels) const;  // every term
  Status validate() const;

  friend bool operator==(const LabelQuery&, const LabelQuery&) = default;

 private:
  std::vector<LabelTerm> terms_;
};

// True when any query matches; an empty list of queries matches everything.
bool matches_any(std::span<const LabelQuery> queries, const Labels& labels);

// "5k" -> 5000, "2Gi" -> 2147483648. kInvalidArgument on anything else or on overflow.
Result<std::int64_t> parse_quantity(std::string_view text);

}  // namespace cosi
