// An enum's names declared with it, once: its list X(member, "text") makes
// both the enum and the table its names are read from, so no switch spells
// each member again. Pure.
#pragma once

#include <cstddef>
#include <string_view>

namespace pmdfwd {

template <class E, size_t N>
constexpr std::string_view enum_name(const std::string_view (&names)[N], E e) {
    return size_t(e) < N ? names[size_t(e)] : std::string_view("?");
}

}  // namespace pmdfwd

#define PMDFWD_ENUM_MEMBER(member, text) member,
#define PMDFWD_ENUM_TEXT(member, text) text,

// For the counter and reason lists, X(name, unit, kind, help)
// (lib/records/counter_list.hpp has the rest): a member, a count, a name.
#define PMDFWD_LIST_ENUM(name, unit, kind, help) name,
#define PMDFWD_LIST_COUNT(name, unit, kind, help) +1
#define PMDFWD_LIST_NAME(name, unit, kind, help) #name,
