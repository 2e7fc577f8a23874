#include "resources/config/yaml_reader.h"

#include <catch2/catch.hpp>

#include "resources/config/machine_config.h"
#include "resources/config/patch.h"

namespace cosi::config {
namespace {

using Catch::Matchers::Contains;

// yaml-cpp 0.7 alone loops forever on each of these (found by the patch fuzzer).
const char* const kStuck[] = {",", ",:\n", "\"a\",\n", "{a: b},\n", "a: b\n---\n,\n", ",,,:\n\nrsion: v1alpha1\nmachine: abc\n"};

TEST_CASE("a ',' where a block node starts is an error with its place, not a hang", "[config]") {
  for (const char* text : kStuck) {
    INFO(text);
    try {
      (void)load_yaml_documents(text);
      FAIL("loaded");
    } catch (const YAML::Exception& e) {
      CHECK_THAT(e.what(), Contains("unexpected ','"));
    }
    CHECK_THROWS_AS(load_yaml_document(text), YAML::Exception);
    auto config = parse_machine_config(text);
    REQUIRE_FALSE(config.ok());
    CHECK_THAT(config.error().message(), Contains("not valid YAML: unexpected ','"));
    CHECK_FALSE(apply_patch("version: v1alpha1\n", text).ok());
    CHECK_FALSE(apply_patch(text, "machine: {}\n").ok());
  }
}

TEST_CASE("text that is not UTF-8 is refused with its line", "[config]") {
  for (const std::string bad : {"\xff", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"}) {
    INFO(bad.size());
    try {
      (void)load_yaml_documents("a: 1\nb: [x" + bad + "]\n");
      FAIL("loaded");
    } catch (const YAML::Exception& e) {
      CHECK(e.mark.line == 1);
      CHECK_THAT(e.what(), Contains("not UTF-8 (byte 10)"));
    }
  }
  CHECK(load_yaml_document("caf\xc3\xa9: \xf0\x9f\x90\xa2\n")["caf\xc3\xa9"].as<std::string>() == "\xf0\x9f\x90\xa2");
  // Found by the patch fuzzer: each 0xff came back as three bytes, making a key too long to
  // read again.
  auto patched = apply_patch("version: v1alpha1\ncluster:\n  e" + std::string(400, '\xff') + ": 1\n", "machine: {}\n");
  REQUIRE_FALSE(patched.ok());
  CHECK_THAT(patched.error().message(), Contains("config line 3: not valid YAML: not UTF-8"));
}

TEST_CASE("control characters other than tab and line breaks are refused with their line", "[config]") {
  for (const std::string& bad : {std::string(1, '\0'), std::string("\x1e"), std::string("\x7f"), std::string("\xc2\x80")}) {
    INFO(static_cast<int>(static_cast<unsigned char>(bad[0])));
    try {
      (void)load_yaml_documents("a: 1\nb: x" + bad + "y\n");
      FAIL("loaded");
    } catch (const YAML::Exception& e) {
      CHECK(e.mark.line == 1);
      CHECK_THAT(e.what(), Contains("a control character (U+") && Contains("byte 9)"));
    }
  }
  CHECK(load_yaml_document("a: \"x\ty\"\r\nb: \xc2\x85\n")["a"].as<std::string>() == "x\ty");
  // Found by the patch fuzzer: yaml-cpp kept a lone CR inside a key and wrote it back raw.
  try {
    (void)load_yaml_documents("a: 1\nto\rb: 1\n");
    FAIL("loaded");
  } catch (const YAML::Exception& e) {
    CHECK(e.mark.line == 1);
    CHECK_THAT(e.what(), Contains("a carriage return without a line feed (byte 7)"));
  }
  // Found by the talosconfig fuzzer: a NUL read into a value came back written as 0xa0, not
  // UTF-8, so the file could not be read again.
  try {
    (void)load_yaml_document(std::string("context: a\0b\n", 13));
    FAIL("loaded");
  } catch (const YAML::Exception& e) {
    CHECK_THAT(e.what(), Contains("U+0000"));
  }
}

TEST_CASE("ordinary streams load as yaml-cpp loads them", "[config]") {
  CHECK(load_yaml_documents("").empty());
  CHECK(load_yaml_documents("a: 1\n---\n---\nb: [1, 2]\n").size() == 3);
  CHECK(load_yaml_document("a: {b: c}\n")["a"]["b"].as<std::string>() == "c");
  CHECK(load_yaml_document("").IsNull());
  CHECK_THROWS_AS(load_yaml_document("a: 1\n---\n[\n"), YAML::Exception);
}

}  // namespace
}  // namespace cosi::config
