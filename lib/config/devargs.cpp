// A device's devargs, read (see devargs.hpp).
#include "devargs.hpp"

#include <cctype>
#include <string_view>

namespace pmdfwd {

namespace {
// Consumes exactly `n` hex digits from s; false if they are not there.
bool hex_digits(std::string_view& s, size_t n) {
    if (s.size() < n) return false;
    for (size_t i = 0; i < n; ++i)
        if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
    s.remove_prefix(n);
    return true;
}
bool eat(std::string_view& s, char c) {
    if (s.empty() || s.front() != c) return false;
    s.remove_prefix(1);
    return true;
}
}  // namespace

// [DDDD:]BB:DD.F[,options]
bool is_pci_devargs(const std::string& devargs) {
    const std::string name = devargs_name(devargs);
    std::string_view s = name;
    if (s.size() == 12) {
        if (!hex_digits(s, 4) || !eat(s, ':')) return false;
    }
    return hex_digits(s, 2) && eat(s, ':') && hex_digits(s, 2) && eat(s, '.') && s.size() == 1 &&
           s[0] >= '0' && s[0] <= '7';
}

std::string devargs_name(const std::string& devargs) {
    return devargs.substr(0, devargs.find(','));
}

std::string device_key(const std::string& devargs) {
    std::string name = devargs_name(devargs);
    if (!is_pci_devargs(name)) return name;
    if (name.size() == 7) name = "0000:" + name;
    for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
    return name;
}

}  // namespace pmdfwd
