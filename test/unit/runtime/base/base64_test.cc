#include "runtime/base/base64.h"

#include <catch2/catch.hpp>

using namespace cosi;

TEST_CASE("base64 round-trips every length and byte value", "[base64]") {
  CHECK(base64_encode("") == "");
  CHECK(base64_encode("f") == "Zg==");
  CHECK(base64_encode("fo") == "Zm8=");
  CHECK(base64_encode("foo") == "Zm9v");
  CHECK(base64_encode("foobar") == "Zm9vYmFy");
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (size_t n = 0; n <= all.size(); n += 7) {
    auto text = base64_encode(all.substr(0, n));
    auto back = base64_decode(text);
    REQUIRE(back.has_value());
    CHECK(*back == all.substr(0, n));
  }
}

TEST_CASE("base64 decoding skips line breaks and refuses anything else", "[base64]") {
  CHECK(base64_decode("Zm9v\nYmFy\n") == std::optional<std::string>("foobar"));
  CHECK_FALSE(base64_decode("Zm9").has_value());      // not a multiple of four
  CHECK_FALSE(base64_decode("Zm9v!").has_value());    // not in the alphabet
  CHECK_FALSE(base64_decode("Zg==Zg==").has_value()); // data after padding
  CHECK_FALSE(base64_decode("Zh==").has_value());     // stray bits under the padding
  CHECK_FALSE(base64_decode("Z===").has_value());
}
