// A flat, ordered name -> value record: what every control command returns
// and what the shutdown log prints. Pure; converted to telemetry in control.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace pmdfwd {

using RecordValue = std::variant<uint64_t, std::string>;

struct Record {
    std::vector<std::pair<std::string, RecordValue>> fields;

    void add(std::string name, uint64_t v) { fields.emplace_back(std::move(name), v); }
    void add(std::string name, std::string v) {
        fields.emplace_back(std::move(name), std::move(v));
    }
    void add(std::string name, const char* v) { add(std::move(name), std::string(v)); }

    // "name=value name=value", for log lines.
    std::string to_line() const;
};

}  // namespace pmdfwd
