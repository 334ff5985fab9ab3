// pmdgen's sequence accounting (sequence_tracker.hpp): loss, reordering,
// duplicates and late arrivals, and agreement with a reference count on a
// long shuffled stream.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <set>
#include <vector>

#include "sequence_tracker.hpp"

using namespace pmdfwd;

TEST_CASE("sequence tracker: loss, reordering, duplicates, late arrivals", "[pmdgen]") {
    SequenceTracker t;
    for (const uint64_t s : {0, 1, 3, 2, 4, 4, 6, 7, 5, 9})  // 8 lost; 2 and 5 late; 4 twice
        t.receive(s);
    CHECK(t.received() == 10);
    CHECK(t.unique() == 9);
    CHECK(t.duplicates() == 1);
    CHECK(t.reordered() == 2);
    CHECK(t.lost(10) == 1);
    CHECK(t.late() == 0);

    // A number older than the window: counted late and reordered, not a copy.
    t.receive(SequenceTracker::kWindow + 100);
    t.receive(20);
    CHECK(t.late() == 1);
    CHECK(t.reordered() == 3);
    // A new number far ahead must not inherit stale "seen" bits.
    SequenceTracker u;
    u.receive(5);
    u.receive(5 + SequenceTracker::kWindow);
    u.receive(5 + 2 * SequenceTracker::kWindow - 1);
    u.receive(5 + SequenceTracker::kWindow + 1);
    CHECK(u.duplicates() == 0);
    CHECK(u.unique() == 4);
}

TEST_CASE("sequence tracker: agrees with a reference on a shuffled stream", "[pmdgen]") {
    std::mt19937_64 rng(7);
    std::vector<uint64_t> stream;
    for (uint64_t s = 0; s < 50000; ++s) {
        if (rng() % 50 == 0) continue;  // lost
        stream.push_back(s);
        if (rng() % 100 == 0) stream.push_back(s);  // duplicated
    }
    for (size_t i = 0; i + 1 < stream.size(); ++i)
        if (rng() % 30 == 0) std::swap(stream[i], stream[i + 1]);  // local reordering
    SequenceTracker t;
    std::set<uint64_t> seen;
    uint64_t dups = 0, reordered = 0, highest = 0;
    bool any = false;
    for (const uint64_t s : stream) {
        t.receive(s);
        if (!seen.insert(s).second) {
            dups++;
            continue;
        }
        if (any && s < highest) reordered++;
        highest = any ? std::max(highest, s) : s;
        any = true;
    }
    CHECK(t.unique() == seen.size());
    CHECK(t.duplicates() == dups);
    CHECK(t.reordered() == reordered);
    CHECK(t.lost(50000) == 50000 - seen.size());
}
