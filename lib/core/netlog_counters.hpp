// The log channel's counters and drop reasons, declared once:
// X(name, unit, help). The channel counts with them and the log record
// (record_schemas.hpp) reads them. Pure.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace pmdfwd {

#define PMDFWD_NETLOG_DROPS(X)                                                          \
    X(rate_limited, datagrams, "the token bucket (netlog.rate_limit) was empty")        \
    X(busy, records, "another thread was sending on the channel: a sender never waits") \
    X(no_buffer, datagrams, "neither a pre-filled buffer nor the reserve had one")      \
    X(tx_full, datagrams, "the channel's TX queue did not take the datagram")           \
    X(stopped, records, "the channel was stopped (shutdown)")

enum class NetlogDrop : unsigned {
#define PMDFWD_NETLOG_DROP_ENUM(name, unit, help) name,
    PMDFWD_NETLOG_DROPS(PMDFWD_NETLOG_DROP_ENUM)
#undef PMDFWD_NETLOG_DROP_ENUM
        count
};
constexpr size_t kNetlogDropCount = size_t(NetlogDrop::count);

// Since pmdfwd started: clear stats does not reset them.
#define PMDFWD_NETLOG_COUNTERS(X)                                                                \
    X(records, records, "records that left whole: every datagram of theirs was sent")            \
    X(datagrams, datagrams, "datagrams sent")                                                    \
    X(bytes, bytes, "their UDP payload bytes, without the 42 bytes of Ethernet/IPv4/UDP header") \
    X(refilled, mbufs, "buffers the main lcore pre-filled in the background")                    \
    X(inline_refills, mbufs, "buffers pre-filled inside a send (alloc-first only)")              \
    X(reserve_allocs, datagrams,                                                                 \
      "datagrams whose buffer was allocated from the reserve inside the send (pool-first: "      \
      "only once the pre-filled buffers ran out; alloc-first: normally every one)")              \
    X(emergency_sends, records,                                                                  \
      "records sent by the crash handler on a fatal signal (no rate limit; a bounded wait for "  \
      "the channel)")                                                                            \
    X(truncated, records,                                                                        \
      "records whose text was cut, and ended with ...[truncated], to keep the record below "     \
      "netconsole's 8192 bytes (counted when cut, whether then sent or dropped)")

// Written under the channel's lock (emergency_sends by the crash handler,
// truncated by any sender before it takes the lock), read by any thread.
struct NetlogCounters {
#define PMDFWD_NETLOG_COUNTER(name, unit, help) std::atomic<uint64_t> name{0};
    PMDFWD_NETLOG_COUNTERS(PMDFWD_NETLOG_COUNTER)
#undef PMDFWD_NETLOG_COUNTER
    std::atomic<uint64_t> drops[kNetlogDropCount] = {};
};

}  // namespace pmdfwd
