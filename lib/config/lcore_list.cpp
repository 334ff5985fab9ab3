// EAL --lcores grammar: element[,element]...; element = set[@cpuset]; set =
// N | N-M | (list). Only the lcore side matters to the plan.
#include "lcore_list.hpp"

#include <algorithm>
#include <cctype>

namespace pmdfwd {

namespace {

class Cursor {
  public:
    explicit Cursor(std::string_view s) : s_(s) {}
    bool done() const { return i_ >= s_.size(); }
    char peek() const { return done() ? '\0' : s_[i_]; }
    bool eat(char c) {
        if (peek() != c) return false;
        ++i_;
        return true;
    }
    std::optional<unsigned> number() {
        size_t start = i_;
        unsigned v = 0;
        while (!done() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
            v = v * 10 + unsigned(s_[i_] - '0');
            if (v > 100000) return std::nullopt;
            ++i_;
        }
        if (i_ == start) return std::nullopt;
        return v;
    }
    size_t pos() const { return i_; }

  private:
    std::string_view s_;
    size_t i_ = 0;
};

// A number or range; appends to out. Returns false on a syntax error.
bool parse_range(Cursor& c, std::vector<unsigned>& out, std::string& error) {
    const auto lo = c.number();
    if (!lo) {
        error = "expected an lcore number at offset " + std::to_string(c.pos());
        return false;
    }
    unsigned hi = *lo;
    if (c.eat('-')) {
        const auto h = c.number();
        if (!h || *h < *lo) {
            error = "bad lcore range at offset " + std::to_string(c.pos());
            return false;
        }
        hi = *h;
    }
    if (hi > kMaxLcoreId) {
        error =
            "lcore " + std::to_string(hi) + " is above the maximum " + std::to_string(kMaxLcoreId);
        return false;
    }
    for (unsigned v = *lo; v <= hi; ++v) out.push_back(v);
    return true;
}

// `grouped` tells whether the set was written in parentheses.
bool parse_set(Cursor& c, std::vector<unsigned>& out, std::string& error, bool* grouped = nullptr) {
    if (grouped) *grouped = c.peek() == '(';
    if (c.eat('(')) {
        do {
            if (!parse_range(c, out, error)) return false;
        } while (c.eat(','));
        if (!c.eat(')')) {
            error = "missing ')' at offset " + std::to_string(c.pos());
            return false;
        }
        return true;
    }
    return parse_range(c, out, error);
}

}  // namespace

LcoreListResult parse_lcore_list(std::string_view text) {
    LcoreListResult r;
    if (text.empty()) {
        r.error = "the lcore list is empty";
        return r;
    }
    Cursor c(text);
    do {
        std::vector<unsigned> set;
        bool grouped = false;
        if (!parse_set(c, set, r.error, &grouped)) return r;
        std::vector<unsigned> cpus;
        if (c.eat('@')) {
            if (!parse_set(c, cpus, r.error)) return r;
        } else if (grouped) {
            cpus = set;
        }
        for (const unsigned lcore : set) {
            r.lcores.push_back(lcore);
            r.cpus.push_back(cpus.empty() ? std::vector<unsigned>{lcore} : cpus);
        }
    } while (c.eat(','));
    if (!c.done()) {
        r.error =
            "unexpected '" + std::string(1, c.peek()) + "' at offset " + std::to_string(c.pos());
        return r;
    }
    std::vector<unsigned> sorted = r.lcores;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
        r.error = "an lcore appears twice";
        return r;
    }
    return r;
}

}  // namespace pmdfwd
