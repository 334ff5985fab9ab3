// A config error with its location; rendered "file:line:column: key 'k': sentence".
#pragma once

#include <cstdint>
#include <string>

namespace pmdfwd {

struct ConfigError {
    std::string file;
    uint32_t line = 0;
    uint32_t column = 0;
    std::string key;  // dotted path such as "port[1].rx_queues", or "(document)"
    std::string message;

    std::string to_string() const {
        return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": key '" + key +
               "': " + message;
    }
};

}  // namespace pmdfwd
