// A fresh directory under /tmp for one unit test, removed with what it holds.
#pragma once

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

struct TempDir {
    std::string path;
    TempDir() {
        char tmpl[] = "/tmp/pmdfwd-test-XXXXXX";
        REQUIRE(::mkdtemp(tmpl));
        path = tmpl;
    }
    ~TempDir() { std::filesystem::remove_all(path); }
};
