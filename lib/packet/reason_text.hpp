// A reason's name and the sentence its counter carries: what each X-macro
// table of reasons (drops, rejects, vetoes) expands to. Pure.
#pragma once

#include <cstddef>

namespace pmdfwd {

struct ReasonText {
    const char* name;
    const char* help;
};

// A reason's name or sentence from its table; "?" for a value past it.
template <class Reason, size_t N>
const char* reason_name(const ReasonText (&table)[N], Reason r) {
    return size_t(r) < N ? table[size_t(r)].name : "?";
}
template <class Reason, size_t N>
const char* reason_help(const ReasonText (&table)[N], Reason r) {
    return size_t(r) < N ? table[size_t(r)].help : "?";
}

}  // namespace pmdfwd
