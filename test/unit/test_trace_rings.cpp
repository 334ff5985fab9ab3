// The packet trace's and drop capture's rings (lib/trace/fastpath): what a
// reader takes is whole, in order, and never a slot being written.
#include <catch2/catch.hpp>
#include <thread>

#include "drop_ring.hpp"
#include "trace_ring.hpp"

using namespace pmdfwd;

namespace {

TraceRecord numbered_record(uint64_t i) {
    TraceRecord r;
    r.tsc = i;
    r.pkt_len = uint32_t(i);
    r.head_len = kTraceHeadBytes;
    std::memset(r.head, int(i & 0xff), sizeof r.head);
    r.add({.kind = TraceStepKind::received, .value = uint32_t(i)});
    return r;
}

bool record_whole(const TraceRecord& r) {
    for (const uint8_t b : r.head)
        if (b != (r.tsc & 0xff)) return false;
    return r.pkt_len == uint32_t(r.tsc) && r.steps == 1 && r.step[0].value == uint32_t(r.tsc);
}

}  // namespace

TEST_CASE("trace ring: keeps the last size records, older ones read as gone", "[trace]") {
    TraceRing ring(4);
    for (uint64_t i = 0; i < 6; ++i) ring.push(numbered_record(i));
    CHECK(ring.written() == 6);
    TraceRecord r;
    CHECK_FALSE(ring.read(0, r));
    CHECK_FALSE(ring.read(1, r));
    for (uint64_t i = 2; i < 6; ++i) {
        REQUIRE(ring.read(i, r));
        CHECK(r.tsc == i);
        CHECK(record_whole(r));
    }
    CHECK_FALSE(ring.read(6, r));  // not written yet
}

TEST_CASE("trace ring: a reader beside a writer takes only whole records", "[trace]") {
    TraceRing ring(8);
    constexpr uint64_t kRecords = 200000;
    std::thread writer([&] {
        for (uint64_t i = 0; i < kRecords; ++i) ring.push(numbered_record(i));
    });
    uint64_t whole = 0, torn = 0;
    while (ring.written() < kRecords) {
        const uint64_t w = ring.written();
        for (uint64_t i = w > 8 ? w - 8 : 0; i < w; ++i) {
            TraceRecord r;
            if (!ring.read(i, r)) continue;
            (r.tsc == i && record_whole(r) ? whole : torn)++;
        }
    }
    writer.join();
    CHECK(torn == 0);
    CHECK(whole > 0);
}

TEST_CASE("drop ring: first in, first out; a full ring refuses", "[trace]") {
    DropRing ring(4);
    for (int i = 0; i < 4; ++i) {
        DropCopy* c = ring.reserve();
        REQUIRE(c);
        c->pkt_len = uint32_t(100 + i);
        ring.commit();
    }
    CHECK(ring.reserve() == nullptr);
    for (int i = 0; i < 4; ++i) {
        const DropCopy* c = ring.peek();
        REQUIRE(c);
        CHECK(c->pkt_len == uint32_t(100 + i));
        ring.release();
    }
    CHECK(ring.peek() == nullptr);
    CHECK(ring.reserve() != nullptr);
}

TEST_CASE("drop ring: a consumer beside a producer sees every copy once, in order", "[trace]") {
    DropRing ring(16);
    constexpr uint32_t kCopies = 100000;
    std::thread producer([&] {
        for (uint32_t i = 0; i < kCopies;) {
            DropCopy* c = ring.reserve();
            if (!c) continue;
            c->pkt_len = i;
            c->data[0] = uint8_t(i);
            ring.commit();
            ++i;
        }
    });
    uint32_t next = 0;
    bool in_order = true;
    while (next < kCopies) {
        const DropCopy* c = ring.peek();
        if (!c) continue;
        in_order = in_order && c->pkt_len == next && c->data[0] == uint8_t(next);
        ring.release();
        ++next;
    }
    producer.join();
    CHECK(in_order);
    CHECK(ring.peek() == nullptr);
}
