// The emergency log channel: log records leave as UDP datagrams from a TX
// queue of their own, built in buffers from a reserved pool that no data path
// uses. Any thread sends (workers, main, telemetry, a signal handler); no
// sender ever waits: a channel in use, an empty bucket, no buffer or a full
// queue drops the datagram and counts it by reason. The pre-filled stack is
// topped up by refill() on the main lcore, never inside a send.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config.hpp"
#include "error.hpp"
#include "histogram.hpp"
#include "netlog_counters.hpp"
#include "netlog_format.hpp"
#include "record.hpp"
#include "token_bucket.hpp"
#include "udp_frame.hpp"

struct rte_mbuf;
struct rte_mempool;

namespace pmdfwd {

struct NetlogSetup {
    NetlogConfig config;
    uint16_t port_id = 0;
    uint16_t queue = 0;
    MacAddr src_mac;
    std::string port_name;
    rte_mempool* reserve = nullptr;  // the channel's alone, full at creation (owned by the caller)
};

class NetlogChannel {
  public:
    static Result<std::unique_ptr<NetlogChannel>> create(const NetlogSetup& setup);
    ~NetlogChannel();  // stops, and returns the pre-filled buffers to the reserve
    NetlogChannel(const NetlogChannel&) = delete;
    NetlogChannel& operator=(const NetlogChannel&) = delete;

    // Any thread. Returns the datagrams sent.
    size_t send(const NetlogRecord& rec);
    // Signal handler: waits a bounded time for another sender to finish, and
    // gives up (returns 0) rather than share the queue; never re-enters from
    // a thread that was inside the channel when it crashed. No rate limit.
    size_t send_emergency(const NetlogRecord& rec);
    static bool inside_on_this_thread();
    // Main lcore, in the background: top the pre-filled stack up.
    void refill();
    // A reload: the rate and the level show log reports (the sink filters
    // by level); waits for a send in progress.
    void set_rate(uint32_t rate_limit, uint32_t rate_burst, const std::string& level);
    // A reload: datagrams go to a new destination (and from a new source
    // address or port) from the next one on. The reserve's buffers carry
    // the old headers; each is stamped again as it is next taken (its
    // stamp's generation in hash.usr), so none in flight is written.
    void retarget(const NetlogConfig& c);
    // No sends after this returns (it waits, bounded, for one in progress).
    void stop();

    Record stats() const;
    // Each datagram's send, in TSC cycles.
    HistogramSnapshot latency() const { return latency_.read(); }
    // What the prefetch works with: the buffer the next pool-first send takes
    // (nullptr when none, or when the channel is in use), and whether the
    // reserve's frames sit where the prefetch looks for them.
    const void* next_prefilled();
    bool prefetches_frames() const { return frame_offset_ != 0; }

  private:
    explicit NetlogChannel(const NetlogSetup& setup);
    struct EscapedText {
        char body[kNetlogRecordMax];
        size_t len = 0;
    };
    // Escapes rec's text within the record limit; counts a cut.
    void escape(const NetlogRecord& rec, EscapedText& text);
    size_t send_locked(const NetlogRecord& rec, const EscapedText& text, bool emergency);
    uint64_t timed(uint64_t start);
    void stamp_reserve();
    rte_mbuf* take_buffer();
    rte_mbuf* prefilled();
    void* top_prefilled() const;
    void warm_next_prefilled();
    rte_mbuf* fresh_buffer();
    uint32_t top_up_prefilled();
    void count(NetlogDrop reason, uint64_t n = 1);
    static void bump(std::atomic<uint64_t>& c, uint64_t n = 1);

    NetlogSetup setup_;
    UdpFrameTemplate template_;
    char hostname_[kSyslogHostnameMax] = {};
    SyslogOrigin origin_;            // rfc5424's headers: facility, hostname_, pid
    uint32_t stamp_generation_ = 0;  // of template_, under the lock
    TokenBucket bucket_;
    uint64_t tsc_hz_ = 0;
    uint64_t ns_per_tsc_q32_ = 0;
    size_t frame_offset_ = 0;  // from an mbuf to its frame: the pool's layout
    // The headers and a typical line: what the next send writes first.
    static constexpr size_t kWarmFrameBytes = 192;

    // The lock: a sender that finds it taken drops, never waits.
    alignas(64) std::atomic<bool> busy_{false};
    std::atomic<bool> stopped_{false};
    std::vector<void*> stack_;  // pre-filled buffers: taken from the reserve, headers in place
    std::atomic<uint32_t> stack_len_{0};  // written under the lock, read by stats()
    uint16_t ip_id_ = 0;

    NetlogCounters counters_;
    Histogram latency_;  // written under the lock
};

}  // namespace pmdfwd
