// Checks on the files pmdfwd opens by name (the log file), so that a fifo, a
// directory or a socket is refused with a sentence instead of blocking start
// or failing deep inside spdlog. No DPDK; main thread only.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "error.hpp"

namespace pmdfwd {

// "a fifo", "a directory", "a socket", ... for messages.
const char* file_type_name(mode_t mode);

// What the log file may be: a regular file, or a character device such as
// /dev/null (writes to it never fill a disk, and opening it never waits).
bool log_file_type_ok(mode_t mode);

// Problems with a log file path that need no file system: longer than
// PATH_MAX, a component longer than NAME_MAX, a trailing '/'. Empty if none.
std::string log_path_problem(std::string_view path);

// The above, plus what the file system says without opening anything: the
// path is there but is not a regular file or character device, or its
// directory is missing. Used by --check; empty if none.
std::string log_file_problem(const std::string& path);

// At start and on reopen: opens path for appending (created with mode
// 0640) without ever blocking, and refuses what log_file_problem refuses, in
// the same words. Returns the descriptor (O_CLOEXEC, O_NONBLOCK set).
Result<int> open_log_file_nonblocking(const std::string& path);

// The same, closing the file again, for a logger that opens it by name.
Status check_log_file_openable(const std::string& path);

}  // namespace pmdfwd
