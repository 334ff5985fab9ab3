// toml++ as every file of lib/config includes it: header-only, with
// exceptions, and one set of macros for all, so that no two translation
// units (or unity chunks) see its inline functions differently.
#pragma once

#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 1
// toml++ 3.3.0 states its parser invariants with TOML_ASSERT_ASSUME, which
// under NDEBUG becomes __builtin_assume with clang, and malformed input does
// break some of them ("[=", "1979-05-27T(", ...): undefined behaviour. With
// NDEBUG unset it uses TOML_ASSERT instead, which we make a no-op, so every
// compiler does what GCC 12 (no __builtin_assume) does: carry on to the
// parser's own error for that input. The fuzzer checks that this is safe.
#pragma push_macro("NDEBUG")
#undef NDEBUG
#define TOML_ASSERT(expr) static_cast<void>(0)
#include <toml++/toml.h>
#pragma pop_macro("NDEBUG")
