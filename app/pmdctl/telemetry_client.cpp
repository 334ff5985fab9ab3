// Socket path rules, greeting/reply parsing and the blocking telemetry client
// (see telemetry_client.hpp). Runs on pmdctl's only thread.
#include "telemetry_client.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace pmdctl {

namespace {

// The telemetry thread answers from memory; a reply this late means pmdfwd is
// wedged, and a CLI that hangs with it helps nobody.
constexpr int kReplyTimeoutS = 5;
// dpdk-telemetry.py reads the greeting with 1024; leave room above that.
constexpr size_t kGreetingCapacity = 4096;

std::optional<std::string> env_value(const char* name) {
    const char* v = std::getenv(name);
    if (!v) return std::nullopt;
    return std::string(v);
}

std::string errno_text(int err) { return std::strerror(err); }

Error connect_error(int err, const std::string& path, std::string_view prefix) {
    const std::string who = "pmdfwd is not running with file prefix '" + std::string(prefix) + "'";
    if (err == ENOENT) return pmdfwd::make_error(who + " (no socket " + path + ")", -err);
    if (err == ECONNREFUSED)
        return pmdfwd::make_error(who + " (stale socket " + path + ": connection refused)", -err);
    return pmdfwd::make_error("cannot connect to " + path + ": " + errno_text(err), -err);
}

}  // namespace

// A user other than root found no socket where DPDK's rules point it: a
// pmdfwd started by root keeps its socket under /var/run/dpdk, which DPDK
// makes root's alone. Looks there; nullopt when there is nothing to say.
std::optional<Result<TelemetryClient>> TelemetryClient::connect_to_roots(
    const std::string& tried, std::string_view file_prefix) {
    const auto root_path = root_socket_path(runtime_env_from_process(), file_prefix);
    if (!root_path || *root_path == tried) return std::nullopt;
    struct stat st {};
    if (::stat(root_path->c_str(), &st) == 0) return connect(*root_path, file_prefix);
    if (errno != EACCES) return std::nullopt;
    const std::string dir = root_path->substr(0, root_path->rfind('/'));
    return Result<TelemetryClient>(pmdfwd::make_error(
        "cannot look in " + dir + " for pmdfwd's socket: " + errno_text(EACCES) +
            " (DPDK keeps /var/run/dpdk for root, and a pmdfwd started by root has its socket "
            "there: run pmdctl as root)",
        -EACCES));
}

RuntimeEnv runtime_env_from_process() {
    RuntimeEnv env;
    env.runtime_directory = env_value("RUNTIME_DIRECTORY");
    env.xdg_runtime_dir = env_value("XDG_RUNTIME_DIR");
    env.is_root = getuid() == 0;
    return env;
}

std::string path_join(std::initializer_list<std::string_view> parts) {
    std::string path;
    bool first = true;
    for (const auto part : parts) {
        if (first) {
            path = part;
            first = false;
        } else if (!part.empty() && part.front() == '/') {
            path = part;
        } else if (path.empty() || path.back() == '/') {
            path += part;
        } else {
            path += '/';
            path += part;
        }
    }
    return path;
}

std::string dpdk_runtime_dir(const RuntimeEnv& env, std::string_view file_prefix) {
    std::string run_dir;
    if (env.runtime_directory && !env.runtime_directory->empty())
        run_dir = *env.runtime_directory;
    else if (env.is_root)
        run_dir = "/var/run";
    else
        run_dir = env.xdg_runtime_dir.value_or("/tmp");
    return path_join({run_dir, "dpdk", file_prefix});
}

std::string telemetry_socket_path(const RuntimeEnv& env, std::string_view file_prefix) {
    return path_join({dpdk_runtime_dir(env, file_prefix), kSocketName});
}

std::optional<std::string> root_socket_path(const RuntimeEnv& env, std::string_view file_prefix) {
    if (env.is_root || (env.runtime_directory && !env.runtime_directory->empty()))
        return std::nullopt;
    RuntimeEnv root = env;
    root.is_root = true;
    return telemetry_socket_path(root, file_prefix);
}

// The greeting is DPDK telemetry's, not a pmdfwd record: its keys are strings.
Result<Greeting> parse_greeting(std::string_view text) {
    const Json j = Json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return pmdfwd::make_error("unexpected greeting (not a JSON object): " + std::string(text));
    const auto len = j.find("max_output_len");
    if (len == j.end() || !len->is_number_integer() || len->get<int64_t>() <= 0)
        return pmdfwd::make_error("unexpected greeting (no max_output_len): " + std::string(text));
    Greeting g;
    g.max_output_len = len->get<size_t>();
    if (const auto v = j.find("version"); v != j.end() && v->is_string()) g.version = *v;
    if (const auto p = j.find("pid"); p != j.end() && p->is_number_integer())
        g.pid = p->get<int64_t>();
    return g;
}

Result<Json> parse_reply(std::string_view text, std::string_view cmd) {
    Json j = Json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return pmdfwd::make_error("reply to " + std::string(cmd) + " is not a JSON object");
    const auto it = j.find(std::string(cmd));
    if (it == j.end() || j.size() != 1)
        return pmdfwd::make_error("reply to " + std::string(cmd) +
                                  " is for another command: " + std::string(text.substr(0, 200)));
    Json value = std::move(*it);
    if (value.is_null()) return pmdfwd::make_error(std::string(cmd) + " returned null", kReplyNull);
    // {"error": "..."} is how any command fails, answered in place of its
    // record: it belongs to no field table.
    if (value.is_object()) {
        if (const auto e = value.find("error"); e != value.end() && e->is_string())
            return pmdfwd::make_error(std::string(cmd) + ": " + e->get<std::string>());
    }
    return value;
}

std::string request_text(std::string_view cmd, std::string_view params) {
    std::string text(cmd);
    if (!params.empty()) {
        text += ',';
        text += params;
    }
    return text;
}

Result<TelemetryClient> TelemetryClient::connect(const std::string& socket_path,
                                                 std::string_view file_prefix) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (socket_path.size() >= sizeof(addr.sun_path))
        return pmdfwd::make_error("socket path too long for AF_UNIX: " + socket_path);
    std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);

    const int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0) return pmdfwd::make_error("socket(AF_UNIX): " + errno_text(errno), -errno);
    TelemetryClient client(fd, socket_path);

    const timeval timeout{kReplyTimeoutS, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));

    // A signal is no answer: every call here retries EINTR.
    int rc;
    do {
        rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
    } while (rc != 0 && errno == EINTR);
    if (rc != 0 && errno != EISCONN) {
        const int err = errno;
        if (err == ENOENT)
            if (auto in_root = connect_to_roots(socket_path, file_prefix))
                return std::move(*in_root);
        return connect_error(err, socket_path, file_prefix);
    }

    auto text = client.receive(kGreetingCapacity);
    if (!text) {
        if (text.error().code == -ECONNRESET)
            return pmdfwd::make_error(
                socket_path +
                " closed the connection without a greeting (too many telemetry clients?)");
        return text.error();
    }
    auto greeting = parse_greeting(*text);
    if (!greeting) return pmdfwd::make_error(socket_path + ": " + greeting.error().message);
    client.greeting_ = std::move(*greeting);
    return client;
}

TelemetryClient::TelemetryClient(TelemetryClient&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      greeting_(std::move(other.greeting_)) {}

TelemetryClient& TelemetryClient::operator=(TelemetryClient&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = std::exchange(other.fd_, -1);
        path_ = std::move(other.path_);
        greeting_ = std::move(other.greeting_);
    }
    return *this;
}

TelemetryClient::~TelemetryClient() {
    if (fd_ >= 0) ::close(fd_);
}

Result<std::string> TelemetryClient::receive(size_t capacity) {
    std::string buf(capacity, '\0');
    // MSG_TRUNC makes recv report the whole message length, so a reply that
    // did not fit is an error rather than half a JSON document.
    ssize_t n;
    do {
        n = ::recv(fd_, buf.data(), buf.size(), MSG_TRUNC);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        const int err = errno;
        if (err == EAGAIN || err == EWOULDBLOCK)
            return pmdfwd::make_error(
                "no reply from " + path_ + " within " + std::to_string(kReplyTimeoutS) + " s",
                -ETIMEDOUT);
        return pmdfwd::make_error("reading " + path_ + ": " + errno_text(err), -err);
    }
    if (n == 0) return pmdfwd::make_error(path_ + " closed the connection", -ECONNRESET);
    if (size_t(n) > buf.size())
        return pmdfwd::make_error("reply of " + std::to_string(n) + " bytes from " + path_ +
                                  " exceeds its max_output_len of " + std::to_string(buf.size()));
    buf.resize(size_t(n));
    return buf;
}

Result<std::string> TelemetryClient::exchange(const std::string& request) {
    auto reply = exchange_once(request);
    // pmdfwd closes a connection to make room for a newer one when its
    // telemetry socket is full (a client storm): ask once more on a fresh
    // one. Every request is safe to repeat (a second clear or shutdown
    // changes nothing). If pmdfwd stopped, the reconnect fails and the first
    // error stands.
    const int err = reply ? 0 : -reply.error().code;
    if (err == EPIPE || err == ECONNRESET) {
        if (auto fresh = connect(path_, {}); fresh) {
            *this = std::move(fresh.value());
            return exchange_once(request);
        }
    }
    return reply;
}

Result<std::string> TelemetryClient::exchange_once(const std::string& request) {
    // MSG_NOSIGNAL: a server that went away is an error message, not SIGPIPE.
    ssize_t sent;
    do {
        sent = ::send(fd_, request.data(), request.size(), MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    if (sent < 0) {
        const int err = errno;
        if (err == EPIPE || err == ECONNRESET)
            return pmdfwd::make_error(path_ + " closed the connection (pmdfwd stopped?)", -err);
        return pmdfwd::make_error("writing to " + path_ + ": " + errno_text(err), -err);
    }
    auto reply = receive(greeting_.max_output_len);
    if (!reply && reply.error().code == -ECONNRESET)
        return pmdfwd::make_error(path_ + " closed the connection (pmdfwd stopped?)", -ECONNRESET);
    return reply;
}

Error TelemetryClient::explain_null(std::string_view cmd, std::string_view params) {
    const std::string request = request_text(cmd, params);
    auto listing = exchange("/");
    if (listing) {
        auto commands = parse_reply(*listing, "/");
        if (commands && commands->is_array()) {
            bool known = false;
            for (const auto& c : *commands) known = known || (c.is_string() && c == cmd);
            if (!known)
                return pmdfwd::make_error("the DPDK app on " + path_ + " (pid " +
                                              std::to_string(greeting_.pid) + ") has no command " +
                                              std::string(cmd) + ": is it pmdfwd?",
                                          kNoCommand);
        }
    }
    if (params.empty())
        return pmdfwd::make_error(request + " failed (the command returned null)", kReplyNull);
    return pmdfwd::make_error(request + " was refused: " + std::string(cmd) +
                                  " does not take the parameters '" + std::string(params) + "'",
                              kReplyNull);
}

Result<Json> TelemetryClient::query(std::string_view cmd, std::string_view params) {
    auto text = exchange(request_text(cmd, params));
    if (!text) return text.error();
    auto value = parse_reply(*text, cmd);
    if (!value && value.error().code == kReplyNull) return explain_null(cmd, params);
    return value;
}

Result<std::vector<Json>> TelemetryClient::query_each(const pmdfwd::Endpoint& list,
                                                      const pmdfwd::Endpoint& item_endpoint) {
    const std::string_view list_cmd = list.path, item_cmd = item_endpoint.path;
    auto ids = query(list_cmd);
    if (!ids) return ids.error();
    if (!ids->is_array())
        return pmdfwd::make_error(std::string(list_cmd) + " did not return a list");
    std::vector<Json> items;
    for (const auto& id : *ids) {
        if (!id.is_number_unsigned() && !id.is_number_integer())
            return pmdfwd::make_error(std::string(list_cmd) + " returned a non-integer id");
        auto item = query(item_cmd, std::to_string(id.get<int64_t>()));
        if (!item) return item.error();
        if (!item->is_object())
            return pmdfwd::make_error(std::string(item_cmd) + " did not return a dict");
        items.push_back(std::move(*item));
    }
    return items;
}

Result<Json> rows_of_page(const pmdfwd::RecordSchema& schema, const Json& page,
                          std::string_view path) {
    const auto broken = [&] {
        return pmdfwd::make_error(std::string(path) + " did not return a page of " +
                                  std::string(schema.name) + " records");
    };
    if (!page.is_object()) return broken();
    size_t rows = 0;
    for (size_t i = 0; i < schema.fields.size(); ++i) {
        const auto column = page.find(std::string(schema.fields[i].key));
        if (column == page.end() || !column->is_array()) return broken();
        if (i == 0) rows = column->size();
        if (column->size() != rows) return broken();
    }
    Json out = Json::array();
    for (size_t r = 0; r < rows; ++r) {
        Json row = Json::object();
        for (const auto& f : schema.fields) {
            const std::string key(f.key);
            row[key] = page[key][r];
        }
        out.push_back(std::move(row));
    }
    return out;
}

Result<Json> TelemetryClient::query_pages(const pmdfwd::Endpoint& e) {
    Json rows = Json::array();
    for (uint64_t first = 0;;) {
        auto page = query(e.path, std::to_string(first));
        if (!page) return page.error();
        auto these = rows_of_page(*e.schema, *page, e.path);
        if (!these) return these.error();
        for (auto& row : *these) rows.push_back(std::move(row));
        // A page's envelope (total, first) wraps the records: no field table
        // holds it, so its key is a string.
        const uint64_t total = page->value("total", uint64_t(0));
        const size_t n = these->size();
        if (n == 0 || first + n >= total) break;
        first += n;
    }
    return rows;
}

}  // namespace pmdctl
