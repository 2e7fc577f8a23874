// What the address controllers agree on: how an address is named (AddressSpecs and
// AddressStatuses share ids, "<link>/<ip>/<prefix length>", as Talos names them), and the
// annotation that bounds how long an address may stay on a link.
//
//   address_id("eth0", ip_bytes("198.51.100.5"), 32) == "eth0/198.51.100.5/32"
//   spec.mutable_annotations().set(kValidUntilAnnotation, valid_until_text(until));
//
// An AddressSpec with a valid-until annotation is added with a kernel lifetime that ends no
// later than that time (whole seconds, rounded down), and refreshed whenever the time moves; it
// is never added with less than a second left. So a process that stops refreshing — killed,
// frozen — loses the address by the kernel's own clock. Times are the runtime clock's (the
// steady clock in production).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "runtime/exec/clock.h"

namespace cosi::controllers {

inline constexpr std::string_view kValidUntilAnnotation = "network.cosi.dev/valid-until";

std::string address_id(std::string_view link, std::string_view ip, int prefix_length);

std::string valid_until_text(SteadyTime t);  // nanoseconds of the clock, in decimal
std::optional<SteadyTime> parse_valid_until(std::string_view text);

}  // namespace cosi::controllers
