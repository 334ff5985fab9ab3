// A file of the source tree (docs, configs) as one string, for the tests that
// hold the docs to the code; fails the test when it cannot be read.
#pragma once

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <string>

inline std::string read_source_file(const std::string& relative) {
    std::ifstream in(std::string(PMDFWD_SOURCE_ROOT) + "/" + relative);
    REQUIRE(in);
    return std::string{std::istreambuf_iterator<char>(in), {}};
}
