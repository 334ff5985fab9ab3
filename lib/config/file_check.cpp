// Log file checks (see file_check.hpp). A fifo opened for writing blocks
// until a reader comes, so nothing here opens without O_NONBLOCK.
#include "file_check.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

namespace pmdfwd {

namespace {

std::string quoted(std::string_view path) { return "'" + std::string(path) + "'"; }

std::string not_regular(const std::string& path, mode_t mode) {
    return "log file " + quoted(path) + " is not a regular file (" + file_type_name(mode) +
           "); give a regular file, or a character device such as /dev/null";
}

// The directory a file would be created in: "." for a bare name.
std::string parent_of(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

}  // namespace

const char* file_type_name(mode_t mode) {
    if (S_ISREG(mode)) return "a regular file";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a fifo";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISLNK(mode)) return "a symbolic link";
    return "an unknown kind of file";
}

bool log_file_type_ok(mode_t mode) { return S_ISREG(mode) || S_ISCHR(mode); }

std::string log_path_problem(std::string_view path) {
    // PATH_MAX counts the terminating NUL.
    if (path.size() >= PATH_MAX)
        return "log file path is " + std::to_string(path.size()) + " bytes; the limit is " +
               std::to_string(PATH_MAX - 1) + " (PATH_MAX)";
    size_t start = 0;
    while (start <= path.size()) {
        size_t end = path.find('/', start);
        if (end == std::string_view::npos) end = path.size();
        if (end - start > NAME_MAX)
            return "log file path has a component of " + std::to_string(end - start) + " bytes ('" +
                   std::string(path.substr(start, 16)) + "...'); the limit is " +
                   std::to_string(NAME_MAX) + " (NAME_MAX)";
        start = end + 1;
    }
    if (!path.empty() && path.back() == '/')
        return "log file " + quoted(path) + " ends in '/', so it names a directory";
    return {};
}

std::string log_file_problem(const std::string& path) {
    if (auto p = log_path_problem(path); !p.empty()) return p;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0)
        return log_file_type_ok(st.st_mode) ? std::string() : not_regular(path, st.st_mode);
    // EACCES and the like: start, as its own user, will say.
    if (errno != ENOENT && errno != ENOTDIR) return {};
    const std::string dir = parent_of(path);
    if (::stat(dir.c_str(), &st) != 0)
        return errno == ENOENT || errno == ENOTDIR
                   ? "log file " + quoted(path) + ": directory " + quoted(dir) + " does not exist"
                   : std::string();
    if (!S_ISDIR(st.st_mode))
        return "log file " + quoted(path) + ": " + quoted(dir) + " is not a directory (" +
               file_type_name(st.st_mode) + ")";
    return {};
}

Result<int> open_log_file_nonblocking(const std::string& path) {
    if (auto p = log_path_problem(path); !p.empty()) return make_error(p);
    const int fd = ::open(path.c_str(),
                          O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0640);
    if (fd < 0) {
        const int err = errno;
        // A fifo without a reader gives ENXIO, a directory EISDIR: say what it is.
        if (auto p = log_file_problem(path); !p.empty()) return make_error(p, -err);
        return make_error("log file " + quoted(path) + ": cannot open: " + std::strerror(err),
                          -err);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return make_error("log file " + quoted(path) + ": cannot stat: " + std::strerror(err),
                          -err);
    }
    if (!log_file_type_ok(st.st_mode)) {
        ::close(fd);
        return make_error(not_regular(path, st.st_mode));
    }
    return fd;
}

Status check_log_file_openable(const std::string& path) {
    auto fd = open_log_file_nonblocking(path);
    if (!fd) return fd.error();
    ::close(fd.value());
    return Ok{};
}

}  // namespace pmdfwd
