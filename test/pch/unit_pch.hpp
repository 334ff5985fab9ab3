// Precompiled for every unit test file: Catch2 and the standard headers the
// tests share, parsed once per build instead of once per file. Only
// third-party headers: a change to the project's own rebuilds it anyway.
// (No include guard: GCC's PCH is the guard.)
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>
