// Record rendering for logs.
#include "record.hpp"

namespace pmdfwd {

std::string Record::to_line() const {
    std::string out;
    for (const auto& [name, value] : fields) {
        if (!out.empty()) out += ' ';
        out += name + '=';
        if (const auto* u = std::get_if<uint64_t>(&value))
            out += std::to_string(*u);
        else
            out += std::get<std::string>(value);
    }
    return out;
}

}  // namespace pmdfwd
