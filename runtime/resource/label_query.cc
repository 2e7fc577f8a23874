#include "runtime/resource/label_query.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

namespace cosi {
namespace {

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::int64_t unit_multiplier(std::string_view unit) {
  static constexpr std::string_view kUnits[] = {"k", "m", "g", "t", "p"};
  const bool binary = unit.size() == 2 && unit[1] == 'i';
  if (unit.size() != 1 && !binary) return 0;
  for (int i = 0; i < 5; ++i) {
    if (unit[0] != kUnits[i][0]) continue;
    std::int64_t m = 1;
    for (int j = 0; j <= i; ++j) m *= binary ? 1024 : 1000;
    return m;
  }
  return 0;
}

// The comparison of a present label value; nullopt when it cannot be made (a numeric term on a
// value that is not a number), which no term matches, inverted or not.
std::optional<bool> compare(const LabelTerm& term, std::string_view value) {
  if (term.values.empty()) return term.op == LabelOp::kIn ? std::optional<bool>(false) : std::nullopt;
  switch (term.op) {
    case LabelOp::kEqual:
      return value == term.values[0];
    case LabelOp::kIn:
      return std::find(term.values.begin(), term.values.end(), value) != term.values.end();
    case LabelOp::kLT:
      return value < term.values[0];
    case LabelOp::kLTE:
      return value <= term.values[0];
    case LabelOp::kLTNumeric:
    case LabelOp::kLTENumeric: {
      auto have = parse_quantity(value);
      auto want = parse_quantity(term.values[0]);
      if (!have.ok() || !want.ok()) return std::nullopt;
      return term.op == LabelOp::kLTNumeric ? *have < *want : *have <= *want;
    }
    case LabelOp::kExists:
    case LabelOp::kNotExists:
      break;
  }
  return std::nullopt;
}

}  // namespace

Result<std::int64_t> parse_quantity(std::string_view text) {
  auto bad = [&] {
    return Error(ErrorKind::kInvalidArgument,
                 "\"" + std::string(text) + "\" is not an integer with an optional unit " +
                     "(k, m, g, t, p, ki, mi, gi, ti, pi)");
  };
  std::int64_t number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end == text.data()) return bad();
  std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  if (unit.empty()) return number;
  std::int64_t multiplier = unit_multiplier(lowercase(unit));
  if (multiplier == 0) return bad();
  std::int64_t result = 0;
  if (__builtin_mul_overflow(number, multiplier, &result)) return bad();
  return result;
}

LabelTerm LabelTerm::exists(std::string key) { return {std::move(key), LabelOp::kExists, {}, false}; }
LabelTerm LabelTerm::equal(std::string key, std::string value) {
  return {std::move(key), LabelOp::kEqual, {std::move(value)}, false};
}
LabelTerm LabelTerm::in(std::string key, std::vector<std::string> values) {
  return {std::move(key), LabelOp::kIn, std::move(values), false};
}
LabelTerm LabelTerm::lt(std::string key, std::string value) {
  return {std::move(key), LabelOp::kLT, {std::move(value)}, false};
}
LabelTerm LabelTerm::lte(std::string key, std::string value) {
  return {std::move(key), LabelOp::kLTE, {std::move(value)}, false};
}
LabelTerm LabelTerm::lt_numeric(std::string key, std::string value) {
  return {std::move(key), LabelOp::kLTNumeric, {std::move(value)}, false};
}
LabelTerm LabelTerm::lte_numeric(std::string key, std::string value) {
  return {std::move(key), LabelOp::kLTENumeric, {std::move(value)}, false};
}

LabelTerm LabelTerm::inverted() const& {
  LabelTerm copy = *this;
  copy.invert = !copy.invert;
  return copy;
}

LabelTerm LabelTerm::inverted() && {
  invert = !invert;
  return std::move(*this);
}

bool LabelTerm::matches(const Labels& labels) const {
  auto value = labels.get(key);
  switch (op) {
    case LabelOp::kExists:
      return value.has_value() != invert;
    case LabelOp::kNotExists:
      return value.has_value() == invert;
    default: {
      if (!value) return false;
      auto result = compare(*this, *value);
      return result.has_value() && *result != invert;
    }
  }
}

Status LabelTerm::validate() const {
  auto invalid = [&](const std::string& why) {
    return Error(ErrorKind::kInvalidArgument, "label term on \"" + key + "\": " + why);
  };
  switch (op) {
    case LabelOp::kExists:
    case LabelOp::kNotExists:
      if (!values.empty()) return invalid("exists takes no values");
      return {};
    case LabelOp::kIn:
      return {};
    case LabelOp::kEqual:
    case LabelOp::kLT:
    case LabelOp::kLTE:
      if (values.size() != 1) return invalid("the operation takes exactly one value");
      return {};
    case LabelOp::kLTNumeric:
    case LabelOp::kLTENumeric: {
      if (values.size() != 1) return invalid("the operation takes exactly one value");
      auto parsed = parse_quantity(values[0]);
      if (!parsed.ok()) return invalid(parsed.error().message());
      return {};
    }
  }
  return Error(ErrorKind::kUnimplemented, "label term on \"" + key + "\": unsupported operation " +
                                              std::to_string(static_cast<int>(op)));
}

bool LabelQuery::matches(const Labels& labels) const {
  return std::all_of(terms_.begin(), terms_.end(),
                     [&](const LabelTerm& t) { return t.matches(labels); });
}

Status LabelQuery::validate() const {
  for (const auto& term : terms_) {
    if (auto s = term.validate(); !s.ok()) return s;
  }
  return {};
}

bool matches_any(std::span<const LabelQuery> queries, const Labels& labels) {
  if (queries.empty()) return true;
  return std::any_of(queries.begin(), queries.end(),
                     [&](const LabelQuery& q) { return q.matches(labels); });
}

}  // namespace cosi
