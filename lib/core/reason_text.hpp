// A reason's name and the sentence its counter carries: what each X-macro
// table of reasons (drops, rejects, vetoes) expands to. Pure.
#pragma once

namespace pmdfwd {

struct ReasonText {
    const char* name;
    const char* help;
};

}  // namespace pmdfwd
