// The log channel's counters and drop reasons, declared once:
// X(name, unit, kind, help). The channel counts with them and the log record
// (record_schemas.hpp) reads them. Pure.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "counter_list.hpp"

namespace pmdfwd {

#define PMDFWD_NETLOG_DROPS(X)                                                                   \
    X(rate_limited, datagrams, counter, "the token bucket (netlog.rate_limit) was empty")        \
    X(busy, records, counter, "another thread was sending on the channel: a sender never waits") \
    X(no_buffer, datagrams, counter, "neither a pre-filled buffer nor the reserve had one")      \
    X(tx_full, datagrams, counter, "the channel's TX queue did not take the datagram")           \
    X(stopped, records, counter, "the channel was stopped (shutdown)")

enum class NetlogDrop : unsigned { PMDFWD_NETLOG_DROPS(PMDFWD_LIST_ENUM) count };
constexpr size_t kNetlogDropCount = size_t(NetlogDrop::count);

// Since pmdfwd started: clear stats does not reset them.
#define PMDFWD_NETLOG_COUNTERS(X)                                                               \
    X(records, records, counter, "records that left whole: every datagram of theirs was sent")  \
    X(datagrams, datagrams, counter, "datagrams sent")                                          \
    X(bytes, bytes, counter,                                                                    \
      "their UDP payload bytes, without the 42 bytes of Ethernet/IPv4/UDP header")              \
    X(refilled, mbufs, counter, "buffers the main lcore pre-filled in the background")          \
    X(inline_refills, mbufs, counter, "buffers pre-filled inside a send (alloc-first only)")    \
    X(reserve_allocs, datagrams, counter,                                                       \
      "datagrams whose buffer was allocated from the reserve inside the send (pool-first: "     \
      "only once the pre-filled buffers ran out; alloc-first: normally every one)")             \
    X(emergency_sends, records, counter,                                                        \
      "records sent by the crash handler on a fatal signal (no rate limit; a bounded wait for " \
      "the channel)")                                                                           \
    X(truncated, records, counter,                                                              \
      "records whose text was cut, and ended with ...[truncated], to keep the record below "    \
      "netconsole's 8192 bytes (counted when cut, whether then sent or dropped)")

// Written under the channel's lock (emergency_sends by the crash handler,
// truncated by any sender before it takes the lock), read by any thread.
struct NetlogCounters {
    PMDFWD_NETLOG_COUNTERS(PMDFWD_LIST_ATOMIC)
    std::atomic<uint64_t> drops[kNetlogDropCount] = {};
};

}  // namespace pmdfwd
