// The benchmark programs' command line: "--name N" options (and flags)
// before "--", EAL's arguments after it.
#pragma once

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

namespace bench {

// Calls option(name, value) for every option before "--": value is N of
// "--name N" as an unsigned number, or 0 for a name listed in `flags`,
// which takes none. False when option() refuses one or a value is missing.
// eal gets the program name and everything after "--", as rte_eal_init
// wants them.
template <class Fn>
bool parse_args(int argc, char** argv, std::initializer_list<const char*> flags, Fn&& option,
                std::vector<char*>& eal) {
    int i = 1;
    for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
        const std::string name = argv[i];
        bool flag = false;
        for (const char* f : flags) flag = flag || name == f;
        if (flag) {
            if (!option(name, 0ull)) return false;
            continue;
        }
        if (i + 1 >= argc || !option(name, std::strtoull(argv[++i], nullptr, 10))) return false;
    }
    eal = {argv[0]};
    for (int k = i + 1; k < argc; ++k) eal.push_back(argv[k]);
    return true;
}

}  // namespace bench
