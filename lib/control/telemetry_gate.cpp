// The telemetry gate (see telemetry_gate.hpp). Its own thread; open and the
// destructor run on the main lcore.
#include "telemetry_gate.hpp"

#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <vector>

#include "log_rate_limit.hpp"
#include "signal_mask.hpp"

namespace pmdfwd {

namespace {

constexpr const char* kPublicName = "dpdk_telemetry.v2";
// Not matched by dpdk-telemetry.py's "dpdk_telemetry.v2*" socket listing.
constexpr const char* kInnerName = "pmdfwd_dpdk_telemetry";
// DPDK 22.11's v1 socket: its legacy handlers are not served either.
constexpr const char* kLegacyName = "telemetry";
// DPDK's replies are at most 16 KB; one more byte tells a cut reply.
constexpr size_t kReplyCapacity = 16 * 1024 + 1;
// One byte more than a request may have, so a longer one is seen as such.
constexpr size_t kRequestCapacity = kTelemetryMaxRequest + 2;

using Clock = std::chrono::steady_clock;

constexpr uint64_t kFailureLogInterval_ns = 1000000000;
constexpr uint32_t kFailureLogBurst = 5;

uint64_t now_ns() {
    return uint64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
            .count());
}

std::string errno_text() { return std::strerror(errno); }

Result<sockaddr_un> unix_address(const std::string& path) {
    sockaddr_un sun{};
    sun.sun_family = AF_UNIX;
    if (path.size() >= sizeof(sun.sun_path))
        return make_error("telemetry socket path too long: " + path);
    std::memcpy(sun.sun_path, path.c_str(), path.size() + 1);
    return sun;
}

// Waits until fd is readable or the deadline passes; a signal taken
// meanwhile only shortens the wait's next round. False on a time-out.
bool wait_readable(int fd, Clock::time_point deadline) {
    for (;;) {
        const auto left =
            std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) return false;
        pollfd p{fd, POLLIN, 0};
        const int n = ::poll(&p, 1, int(std::min<long long>(left, 60000)));
        if (n > 0) return true;
        if (n < 0 && errno != EINTR) return true;  // the recv that follows names the error
    }
}

// The gate's one connection to DPDK's listener, which serves it on a thread
// of DPDK's. Reconnects after a failure. No call here gives up on EINTR:
// a signal is no failure of DPDK's, and giving up after the request was
// sent would report as failed a request that DPDK carries out.
class DpdkLink {
  public:
    DpdkLink(std::string path, uint32_t timeout_ms)
        : path_(std::move(path)), timeout_(std::chrono::milliseconds(timeout_ms)) {}
    ~DpdkLink() { close_fd(); }

    // Connects and returns DPDK's greeting.
    Result<std::string> connect() {
        close_fd();
        auto sun = unix_address(path_);
        if (!sun) return sun.error();
        fd_ = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (fd_ < 0) return make_error("telemetry: socket: " + errno_text(), -errno);
        int rc;
        do {
            rc = ::connect(fd_, reinterpret_cast<const sockaddr*>(&sun.value()),
                           sizeof(sun.value()));
        } while (rc != 0 && errno == EINTR);
        if (rc != 0 && errno != EISCONN) {
            auto e =
                make_error("telemetry: cannot connect to " + path_ + ": " + errno_text(), -errno);
            close_fd();
            return e;
        }
        auto greeting = receive(Clock::now() + timeout_);
        if (!greeting) close_fd();
        return greeting;
    }

    // One request and its reply; connects first when the last exchange
    // broke the connection. sent tells whether DPDK may have run it.
    Result<std::string> exchange(const std::string& request, bool& sent) {
        sent = false;
        if (fd_ < 0) {
            if (auto c = connect(); !c) return c.error();
        }
        ssize_t n;
        do {
            n = ::send(fd_, request.data(), request.size(), MSG_NOSIGNAL);
        } while (n < 0 && errno == EINTR);
        if (n < 0) {
            auto e = make_error("telemetry: send to DPDK: " + errno_text(), -errno);
            close_fd();
            return e;
        }
        sent = true;
        auto reply = receive(Clock::now() + timeout_);
        if (!reply) close_fd();
        return reply;
    }

  private:
    Result<std::string> receive(Clock::time_point deadline) {
        if (!wait_readable(fd_, deadline))
            return make_error("DPDK's telemetry did not answer within " +
                                  std::to_string(timeout_.count()) + " ms",
                              -ETIMEDOUT);
        std::string buf(kReplyCapacity, '\0');
        ssize_t n;
        do {
            n = ::recv(fd_, buf.data(), buf.size(), MSG_DONTWAIT);
        } while (n < 0 && errno == EINTR);
        if (n < 0) return make_error("telemetry: no reply from DPDK: " + errno_text(), -errno);
        if (n == 0) return make_error("telemetry: DPDK closed the connection");
        buf.resize(size_t(n));
        return buf;
    }
    void close_fd() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

    std::string path_;
    std::chrono::milliseconds timeout_;
    int fd_ = -1;
};

struct Client {
    int fd;
    Clock::time_point connected;
    Clock::time_point last_active;
    bool answered;  // has had at least one reply
};

// A newcomer gets this long to send its first request before it can be
// evicted: pmdctl needs a millisecond, so a storm of reconnecting clients
// cannot push it out between its connect and its question.
constexpr size_t kAcceptBatch = 16;
constexpr auto kFirstRequestGrace = std::chrono::seconds(1);

// Who makes room when the gate is full: the longest-idle client among those
// that have had their chance (answered once, or past the grace); only when
// every client is a newcomer, the oldest newcomer.
size_t eviction_candidate(const std::vector<Client>& clients, Clock::time_point now) {
    size_t best = clients.size();
    size_t oldest = 0;
    for (size_t i = 0; i < clients.size(); ++i) {
        const Client& c = clients[i];
        if (c.connected < clients[oldest].connected) oldest = i;
        const bool had_chance = c.answered || now - c.connected > kFirstRequestGrace;
        if (had_chance && (best == clients.size() || c.last_active < clients[best].last_active))
            best = i;
    }
    return best < clients.size() ? best : oldest;
}

}  // namespace

Result<std::unique_ptr<TelemetryGate>> TelemetryGate::open(TelemetryGateOptions options) {
    std::unique_ptr<TelemetryGate> g(new TelemetryGate(std::move(options)));
    g->public_path_ = g->opt_.runtime_dir + "/" + kPublicName;
    g->inner_path_ = g->opt_.runtime_dir + "/" + kInnerName;
    auto sun = unix_address(g->public_path_);
    if (!sun) return sun.error();
    if (::rename(g->public_path_.c_str(), g->inner_path_.c_str()) != 0)
        return make_error(
            "telemetry: cannot move DPDK's socket " + g->public_path_ + " aside: " + errno_text(),
            -errno);
    ::unlink((g->opt_.runtime_dir + "/" + kLegacyName).c_str());

    DpdkLink probe(g->inner_path_, g->opt_.inner_timeout_ms);
    auto greeting = probe.connect();
    auto undo = [&](Error e) {
        if (g->listen_fd_ >= 0) ::close(g->listen_fd_);
        if (g->stop_fd_ >= 0) ::close(g->stop_fd_);
        g->listen_fd_ = g->stop_fd_ = -1;
        ::rename(g->inner_path_.c_str(), g->public_path_.c_str());
        return e;
    };
    if (!greeting) return undo(greeting.error());
    g->greeting_ = greeting.value();

    g->listen_fd_ = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    g->stop_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (g->listen_fd_ < 0 || g->stop_fd_ < 0)
        return undo(make_error("telemetry: socket: " + errno_text(), -errno));
    // The same mode DPDK gives its socket: root's, in a root-only directory.
    const mode_t old_mask = ::umask(022);
    const int bound =
        ::bind(g->listen_fd_, reinterpret_cast<const sockaddr*>(&sun.value()), sizeof(sun.value()));
    ::umask(old_mask);
    if (bound != 0 || ::listen(g->listen_fd_, SOMAXCONN) != 0)
        return undo(make_error(
            "telemetry: cannot listen on " + g->public_path_ + ": " + errno_text(), -errno));
    g->thread_ = std::thread([gate = g.get()] { gate->run(); });
    return g;
}

TelemetryGate::~TelemetryGate() {
    const uint64_t one = 1;
    if (thread_.joinable()) {
        [[maybe_unused]] const ssize_t n = ::write(stop_fd_, &one, sizeof(one));
        thread_.join();
    }
    if (listen_fd_ >= 0) ::close(listen_fd_);
    if (stop_fd_ >= 0) ::close(stop_fd_);
    // DPDK's socket back under its name, replacing the gate's, so that
    // DPDK's own exit handler removes what is left.
    ::rename(inner_path_.c_str(), public_path_.c_str());
}

void TelemetryGate::run() {
    pthread_setname_np(pthread_self(), "pmdfwd-telem");
    block_async_signals();  // whoever started this thread
    DpdkLink dpdk(inner_path_, opt_.inner_timeout_ms);
    std::vector<Client> clients;
    std::vector<pollfd> fds;
    std::string request(kRequestCapacity, '\0');
    // A storm of failures is one warning a second, not one a request.
    LogRateLimit failure_log(kFailureLogInterval_ns, kFailureLogBurst);
    const auto idle_limit = std::chrono::milliseconds(opt_.idle_timeout_ms);

    const auto drop = [&](size_t i, std::atomic<uint64_t>* reason) {
        ::close(clients[i].fd);
        clients[i] = clients.back();
        clients.pop_back();
        if (reason) reason->fetch_add(1, std::memory_order_relaxed);
    };
    const auto send_to = [&](size_t i, const std::string& text) {
        // A client whose socket is full is not reading: it loses its slot
        // rather than stall everyone behind it.
        if (::send(clients[i].fd, text.data(), text.size(), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
            drop(i, errno == EAGAIN ? &counters_.slow_closed : nullptr);
            return false;
        }
        return true;
    };
    const auto admit = [&](int fd) {
        if (clients.size() >= opt_.max_clients) {
            const size_t victim = eviction_candidate(clients, Clock::now());
            drop(victim, &counters_.evicted);
        }
        clients.push_back({fd, Clock::now(), Clock::now(), false});
        counters_.accepted.fetch_add(1, std::memory_order_relaxed);
        send_to(clients.size() - 1, greeting_);
    };
    const auto answer = [&](size_t i, ssize_t len) {
        clients[i].last_active = Clock::now();
        clients[i].answered = true;
        const std::string_view text(request.data(), size_t(len));
        const auto verdict = check_telemetry_request(text, opt_.limits);
        if (!verdict.forward) {
            counters_.refused.fetch_add(1, std::memory_order_relaxed);
            send_to(i, verdict.reply);
            return;
        }
        bool sent = false;
        auto reply = dpdk.exchange(std::string(text), sent);
        if (!reply) {
            // Said in words, never as null: null reads as a refused
            // parameter, and a request DPDK received may well have run.
            counters_.dpdk_failures.fetch_add(1, std::memory_order_relaxed);
            const std::string_view cmd = text.substr(0, text.find(','));
            uint64_t held_back = 0;
            if (failure_log.allow(now_ns(), held_back))
                spdlog::warn(
                    "{} (request '{}'){}", reply.error().message, cmd,
                    held_back ? fmt::format("; {} more such failures not logged since", held_back)
                              : "");
            send_to(i, telemetry_error_reply(
                           cmd, "pmdfwd could not get an answer from DPDK's telemetry (" +
                                    reply.error().message + ")" +
                                    (sent ? "; the request may have taken effect" : "")));
            return;
        }
        counters_.forwarded.fetch_add(1, std::memory_order_relaxed);
        send_to(i, text == "/" ? filter_command_list(reply.value()) : reply.value());
    };

    for (;;) {
        fds.assign({{stop_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}});
        for (const auto& c : clients) fds.push_back({c.fd, POLLIN, 0});
        const size_t polled = clients.size();
        if (::poll(fds.data(), fds.size(), 1000) < 0 && errno != EINTR) {
            spdlog::error("telemetry: poll failed: {}; the control socket stops", errno_text());
            break;
        }
        if (fds[0].revents) break;
        // Clients first, in the order polled, before new ones shift indexes.
        for (size_t k = polled; k-- > 0;) {
            const short ev = fds[2 + k].revents;
            if (!ev) continue;
            if (!(ev & POLLIN)) {
                drop(k, nullptr);
                continue;
            }
            const ssize_t n =
                ::recv(clients[k].fd, request.data(), request.size(), MSG_DONTWAIT | MSG_TRUNC);
            if (n <= 0) {
                if (n == 0 || (errno != EAGAIN && errno != EINTR)) drop(k, nullptr);
                continue;
            }
            answer(k, std::min<ssize_t>(n, ssize_t(request.size())));
        }
        if (fds[1].revents & POLLIN) {
            // A bounded batch, so that a flood of connects cannot turn the
            // whole client set over before any of it is answered.
            for (size_t k = 0; k < kAcceptBatch; ++k) {
                const int fd =
                    ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
                if (fd < 0) break;
                admit(fd);
            }
        }
        const auto now = Clock::now();
        for (size_t i = clients.size(); i-- > 0;)
            if (now - clients[i].last_active > idle_limit) drop(i, &counters_.idle_closed);
        counters_.clients.store(clients.size(), std::memory_order_relaxed);
        if (const uint64_t n = failure_log.take_summary(now_ns()))
            spdlog::warn(
                "telemetry: {} more requests DPDK's telemetry did not answer, not logged "
                "one by one (telemetry_dpdk_failures counts them all)",
                n);
    }
    for (const auto& c : clients) ::close(c.fd);
    counters_.clients.store(0, std::memory_order_relaxed);
}

}  // namespace pmdfwd
