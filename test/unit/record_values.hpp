// A record's values as the tests read them: one field as text (the test
// fails when the record lacks it), and the keys it puts on the wire, in order.
#pragma once

#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "record.hpp"

namespace pmdfwd::test {

inline std::string field(const Record& r, const std::string& name) {
    const auto v = r.get(name);
    if (!v) FAIL("no field " << name);
    if (const auto* u = std::get_if<uint64_t>(&*v)) return std::to_string(*u);
    return std::get<std::string>(*v);
}

inline std::vector<std::string> names(const Record& r) {
    std::vector<std::string> out;
    r.for_each_wire([&](std::string_view key, const WireValue&) { out.emplace_back(key); });
    return out;
}

}  // namespace pmdfwd::test
