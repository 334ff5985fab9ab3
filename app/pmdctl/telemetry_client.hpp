// pmdctl's side of the DPDK 22.11 telemetry v2 socket: where the socket is
// (the same rules as dpdk-telemetry.py), the greeting and reply formats, and a
// blocking client. Links no DPDK; the pure parts take values, not globals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "endpoint.hpp"
#include "error.hpp"

namespace pmdctl {

// Ordered, so records keep the field order pmdfwd registered them in.
using Json = nlohmann::ordered_json;
using pmdfwd::Error;
using pmdfwd::Result;

constexpr std::string_view kSocketName = "dpdk_telemetry.v2";
constexpr std::string_view kDefaultFilePrefix = "pmdfwd";

// What decides the runtime directory, read once from the process so the rules
// below can be tested with any values.
struct RuntimeEnv {
    std::optional<std::string> runtime_directory;  // $RUNTIME_DIRECTORY
    std::optional<std::string> xdg_runtime_dir;    // $XDG_RUNTIME_DIR
    bool is_root = false;                          // getuid() == 0
};

RuntimeEnv runtime_env_from_process();

// os.path.join semantics: an absolute part restarts the path, an empty part
// adds nothing but a separator.
std::string path_join(std::initializer_list<std::string_view> parts);

// <run>/dpdk/<prefix>, where <run> is $RUNTIME_DIRECTORY when non-empty, else
// /var/run for root, else $XDG_RUNTIME_DIR when set (even empty), else /tmp:
// get_dpdk_runtime_dir() of dpdk-telemetry.py, line for line.
std::string dpdk_runtime_dir(const RuntimeEnv& env, std::string_view file_prefix);
std::string telemetry_socket_path(const RuntimeEnv& env, std::string_view file_prefix);

// Where root's pmdfwd keeps the socket, for a caller that is not root (and
// has no $RUNTIME_DIRECTORY): DPDK's rules send that caller to a directory of
// its own, so a "not running" there may only mean "not yours to reach".
std::optional<std::string> root_socket_path(const RuntimeEnv& env, std::string_view file_prefix);

// The first message the server sends on every connection.
struct Greeting {
    std::string version;  // "DPDK 22.11.1"
    int64_t pid = 0;
    size_t max_output_len = 0;  // every reply fits in this many bytes
};

Result<Greeting> parse_greeting(std::string_view text);

// A reply is {"<cmd>": value}, keyed by the command without its parameters.
// value null means an unknown command or a rejected parameter (reported as
// ReplyNull so the caller can tell which); {"error": "..."} is pmdfwd saying
// it cannot answer (it is shutting down).
constexpr int kReplyNull = 1;
// What TelemetryClient::query reports when the server lists no such command:
// another DPDK app, or a pmdfwd older than the command.
constexpr int kNoCommand = 2;
Result<Json> parse_reply(std::string_view text, std::string_view cmd);

// The rows of one page of a page endpoint's reply ({total, first, a column
// per field}): one object per row, the schema's fields in order. An Error
// when the reply is not such a page.
Result<Json> rows_of_page(const pmdfwd::RecordSchema& schema, const Json& page,
                          std::string_view path);

// "/cmd" or "/cmd,params": the request text.
std::string request_text(std::string_view cmd, std::string_view params);

// One connection; each query is one request and one reply. Move-only.
class TelemetryClient {
  public:
    // Connects and reads the greeting. file_prefix only words the errors.
    static Result<TelemetryClient> connect(const std::string& socket_path,
                                           std::string_view file_prefix);

    TelemetryClient(TelemetryClient&& other) noexcept;
    TelemetryClient& operator=(TelemetryClient&& other) noexcept;
    TelemetryClient(const TelemetryClient&) = delete;
    TelemetryClient& operator=(const TelemetryClient&) = delete;
    ~TelemetryClient();

    const Greeting& greeting() const { return greeting_; }

    // The reply's value; an Error for null (after asking "/" whether the
    // command exists, to say which failure it was: kNoCommand when it does
    // not), {"error": ...}, a broken reply or a broken connection.
    Result<Json> query(std::string_view cmd, std::string_view params = {});
    Result<Json> query(const pmdfwd::Endpoint& e, std::string_view params = {}) {
        return query(e.path, params);
    }

    // A list command (ids) followed by the item command for each id: the
    // records of every worker, port or pool, in id order.
    Result<std::vector<Json>> query_each(const pmdfwd::Endpoint& list,
                                         const pmdfwd::Endpoint& item);

    // Every row of a page endpoint, asked for a page at a time: a JSON array
    // of records, one object per row with the fields of its schema.
    Result<Json> query_pages(const pmdfwd::Endpoint& e);

  private:
    static std::optional<Result<TelemetryClient>> connect_to_roots(const std::string& tried,
                                                                   std::string_view file_prefix);
    TelemetryClient(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
    Result<std::string> exchange(const std::string& request);
    Result<std::string> exchange_once(const std::string& request);
    Result<std::string> receive(size_t capacity);
    Error explain_null(std::string_view cmd, std::string_view params);

    int fd_ = -1;
    std::string path_;
    Greeting greeting_;
};

}  // namespace pmdctl
