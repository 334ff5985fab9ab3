// Error values for library code: a code plus a full sentence naming the object.
// Library code returns these; only app/ decides to exit (style habit 6).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace pmdfwd {

struct Error {
    int code = 0;         // negative errno when DPDK gave one, else 0
    std::string message;  // "port 'left': rte_eth_dev_configure failed: -22"
};

// A value or an Error; no exceptions cross library boundaries.
template <class T>
class Result {
  public:
    Result(T value) : v_(std::move(value)) {}
    Result(Error error) : v_(std::move(error)) {}

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() { return std::get<0>(v_); }
    const T& value() const { return std::get<0>(v_); }
    T* operator->() { return &value(); }
    T& operator*() { return value(); }
    const Error& error() const { return std::get<1>(v_); }

  private:
    std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;

inline Error make_error(std::string message, int code = 0) {
    return Error{code, std::move(message)};
}

}  // namespace pmdfwd
