// The emergency log channel (see netlog_channel.hpp). send/send_emergency run
// on any thread, refill/stop on the main lcore. Drops: rate_limited, busy,
// no_buffer, tx_full, stopped. Text past the record limit is cut and counted.
#include "netlog_channel.hpp"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pause.h>
#include <rte_prefetch.h>
#include <unistd.h>

#include <cstring>
#include <utility>

#include "netlog_api.hpp"
#include "record_schemas.hpp"

namespace pmdfwd {

namespace {

// How long the crash path waits for a sender to finish, and how long it keeps
// offering a datagram to a full TX queue: bounded, because it runs in a
// signal handler of a dying process.
constexpr uint64_t kEmergencyLockWaitUs = 50000;
constexpr uint64_t kEmergencyTxWaitUs = 10000;

// Multiplied first: a TSC of a fractional MHz (a 19.2 MHz timer) must not
// shorten the wait.
uint64_t tsc_after_us(uint64_t tsc_hz, uint64_t us) { return rte_rdtsc() + tsc_hz * us / 1000000; }

// ns = tsc * ns_per_tsc, in 32.32 fixed point: a multiply, not two divisions.
uint64_t ns_per_tsc_q32(uint64_t hz) { return (uint64_t(1000000000) << 32) / hz; }
uint64_t tsc_to_ns(uint64_t tsc, uint64_t q32) {
    return uint64_t((unsigned __int128)tsc * q32 >> 32);
}

// Set while this thread is inside the channel (a send or a refill): the crash
// handler must not enter it again from the same thread. Initial-exec: the
// library is linked into the executable, so the flag is a fixed offset from
// the thread pointer, not a __tls_get_addr call twice per send.
__attribute__((tls_model("initial-exec"))) thread_local bool t_inside = false;

struct Inside {
    Inside() { t_inside = true; }
    ~Inside() { t_inside = false; }
};

}  // namespace

bool NetlogChannel::inside_on_this_thread() { return t_inside; }

NetlogChannel::NetlogChannel(const NetlogSetup& setup)
    : setup_(setup),
      template_(UdpEndpoints{setup.src_mac, setup.config.dst_mac, setup.config.src_ip,
                             setup.config.dst_ip, setup.config.src_port, setup.config.dst_port}),
      bucket_(setup.config.rate_limit, setup.config.rate_burst),
      tsc_hz_(rte_get_tsc_hz()),
      ns_per_tsc_q32_(ns_per_tsc_q32(tsc_hz_)),
      frame_offset_(sizeof(rte_mbuf) + rte_pktmbuf_priv_size(setup.reserve) +
                    RTE_PKTMBUF_HEADROOM) {
    // RFC 5424's HOSTNAME is printable ASCII without spaces; the name is
    // read once, as the crash path cannot ask for it.
    char name[256] = {};
    size_t len = 0;
    if (gethostname(name, sizeof(name) - 1) == 0)
        for (; len < kSyslogHostnameMax && name[len] != '\0'; ++len)
            hostname_[len] = name[len] > 0x20 && name[len] < 0x7f ? name[len] : '_';
    origin_ =
        SyslogOrigin{setup.config.facility, std::string_view(hostname_, len), uint32_t(getpid())};
}

Result<std::unique_ptr<NetlogChannel>> NetlogChannel::create(const NetlogSetup& setup) {
    const uint32_t data_room = rte_pktmbuf_data_room_size(setup.reserve);
    const uint32_t room = data_room > RTE_PKTMBUF_HEADROOM ? data_room - RTE_PKTMBUF_HEADROOM : 0;
    if (room < kUdpFrameHeaderLen + kNetlogPayloadMax)
        return make_error("netlog: reserve pool buffers hold " + std::to_string(room) +
                          " bytes; a datagram needs " +
                          std::to_string(kUdpFrameHeaderLen + kNetlogPayloadMax));
    // Stamping every buffer is safe only while none is out.
    const unsigned out = setup.reserve->size - rte_mempool_avail_count(setup.reserve);
    if (out != 0)
        return make_error("netlog: the reserve pool must be the channel's alone; " +
                          std::to_string(out) + " of its " + std::to_string(setup.reserve->size) +
                          " buffers are in use");
    std::unique_ptr<NetlogChannel> ch(new NetlogChannel(setup));
    ch->stamp_reserve();
    ch->stack_.assign(setup.config.prefill, nullptr);
    ch->refill();
    return ch;
}

NetlogChannel::~NetlogChannel() {
    stop();
    rte_mempool_put_bulk(setup_.reserve, stack_.data(), stack_len_.load());  // as they were taken
    stack_len_.store(0);
}

// Under the lock there is one writer: a plain add, no locked instruction.
inline void NetlogChannel::bump(std::atomic<uint64_t>& c, uint64_t n) {
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

// Drops are counted by threads that do not hold the lock (busy, stopped) too.
void NetlogChannel::count(NetlogDrop reason, uint64_t n) {
    counters_.drops[size_t(reason)].fetch_add(n, std::memory_order_relaxed);
}

// Every buffer of the reserve carries the header template from the channel's
// creation on: no one else writes to them, a device only reads what it
// sends, and a send rewrites only the lengths, the ID and the checksum.
// Each frame is checked against the layout the prefetch assumes; one buffer
// elsewhere (an external buffer) and the prefetch leaves frames alone.
void NetlogChannel::stamp_reserve() {
    rte_mempool_obj_iter(
        setup_.reserve,
        [](rte_mempool*, void* arg, void* obj, unsigned) {
            auto* self = static_cast<NetlogChannel*>(arg);
            auto* m = static_cast<rte_mbuf*>(obj);
            uint8_t* frame = static_cast<uint8_t*>(m->buf_addr) + RTE_PKTMBUF_HEADROOM;
            std::memcpy(frame, self->template_.bytes().data(), kUdpFrameHeaderLen);
            m->hash.usr = self->stamp_generation_;
            if (frame != reinterpret_cast<uint8_t*>(m) + self->frame_offset_)
                self->frame_offset_ = 0;
        },
        this);
}

// A pre-filled buffer: taken from the reserve by refill(), which only moves
// the pointer (a buffer's lines stay in the cache of the core that last sent
// it, not the refilling core's), with the headers already in place.
rte_mbuf* NetlogChannel::prefilled() {
    const uint32_t len = stack_len_.load(std::memory_order_relaxed);
    if (len == 0) return nullptr;
    stack_len_.store(len - 1, std::memory_order_relaxed);
    auto* m = static_cast<rte_mbuf*>(stack_[len - 1]);
    // Raw from the pool: refcnt, next and nb_segs are as the free path left
    // them; the frame starts where the template was stamped.
    m->data_off = RTE_PKTMBUF_HEADROOM;
    if (unlikely(m->hash.usr != stamp_generation_)) {  // stamped before a retarget
        std::memcpy(rte_pktmbuf_mtod(m, uint8_t*), template_.bytes().data(), kUdpFrameHeaderLen);
        m->hash.usr = stamp_generation_;
    }
    return m;
}

void* NetlogChannel::top_prefilled() const {
    const uint32_t len = stack_len_.load(std::memory_order_relaxed);
    return len ? stack_[len - 1] : nullptr;
}

const void* NetlogChannel::next_prefilled() {
    if (busy_.exchange(true, std::memory_order_seq_cst)) return nullptr;
    const void* top = top_prefilled();
    busy_.store(false, std::memory_order_release);
    return top;
}

// The next pre-filled buffer is known: bring its lines to this core. Called
// at the end of a send, so that a storm's next record finds them here, and
// as a send takes the lock, so that a lone record's fetch overlaps the head's
// formatting when other work has evicted them since. Its frame's address
// follows from the pool's layout, without reading the mbuf. (An allocator
// from a cache-less ring cannot: it learns its buffer as it takes it.)
void NetlogChannel::warm_next_prefilled() {
    const auto* m = static_cast<const char*>(top_prefilled());
    if (!m) return;
    rte_prefetch0(m);
    rte_prefetch0(m + RTE_CACHE_LINE_SIZE);  // next, read by the free
    if (frame_offset_ == 0) return;
    const char* frame = m + frame_offset_;
    for (size_t off = 0; off < kWarmFrameBytes; off += RTE_CACHE_LINE_SIZE)
        rte_prefetch0(frame + off);
}

// A buffer allocated from the reserve, its headers written from the template:
// alloc-first's model of netpoll's fresh allocation, and pool-first's
// fallback (every reserve buffer already carries them; the copy keeps the
// two paths' fallback one function).
rte_mbuf* NetlogChannel::fresh_buffer() {
    rte_mbuf* m = rte_pktmbuf_alloc(setup_.reserve);
    if (m) {
        std::memcpy(rte_pktmbuf_mtod(m, uint8_t*), template_.bytes().data(), kUdpFrameHeaderLen);
        m->hash.usr = stamp_generation_;
    }
    return m;
}

// Fills the stack from the reserve: in one bulk get when the reserve has
// enough (one update of the ring's consumer index), one at a time when not.
// The buffer on top stays on top: the last send prefetched it. Returns the
// buffers added.
uint32_t NetlogChannel::top_up_prefilled() {
    const uint32_t len = stack_len_.load(std::memory_order_relaxed);
    const auto want = uint32_t(stack_.size()) - len;
    void** slots = stack_.data() + len;
    uint32_t got = 0;
    if (want != 0 && rte_mempool_get_bulk(setup_.reserve, slots, want) == 0)
        got = want;
    else
        while (got < want && rte_mempool_get(setup_.reserve, &slots[got]) == 0) ++got;
    if (len != 0 && got != 0) std::swap(stack_[len - 1], stack_[len + got - 1]);
    stack_len_.store(len + got, std::memory_order_relaxed);
    return got;
}

rte_mbuf* NetlogChannel::take_buffer() {
    const bool pool_first = setup_.config.send_path == NetlogSendPath::pool_first;
    if (pool_first)
        if (rte_mbuf* m = prefilled()) return m;
    // alloc-first, as netpoll did before: top the pool up inline, then
    // allocate; the pool only serves when allocation fails.
    if (!pool_first) bump(counters_.inline_refills, top_up_prefilled());
    if (rte_mbuf* m = fresh_buffer()) {  // pool-first: only when the stack ran dry
        bump(counters_.reserve_allocs);
        return m;
    }
    return pool_first ? nullptr : prefilled();
}

// One datagram's send ended: into the histogram, from start to now. Returns now.
uint64_t NetlogChannel::timed(uint64_t start) {
    const uint64_t now = rte_rdtsc();
    latency_.record(now - start);
    return now;
}

size_t NetlogChannel::send_locked(const NetlogRecord& rec, const EscapedText& text,
                                  bool emergency) {
    const bool pool_first = setup_.config.send_path == NetlogSendPath::pool_first;
    if (pool_first) warm_next_prefilled();
    RecordDatagrams datagrams(rec, setup_.config.format, text.body, text.len, &origin_);
    const size_t total = datagrams.count();
    // One TSC read for the bucket and the first datagram's start; each later
    // datagram's send starts where the last one ended.
    uint64_t t = rte_rdtsc();
    if (!emergency && setup_.config.rate_limit != 0 &&
        !bucket_.take(tsc_to_ns(t, ns_per_tsc_q32_), total)) {
        count(NetlogDrop::rate_limited, total);
        return 0;
    }
    size_t sent = 0;
    datagrams.for_each([&](const char* head, size_t head_len, const char* body, size_t body_len) {
        const size_t len = head_len + body_len;
        rte_mbuf* m = take_buffer();
        if (!m) {
            count(NetlogDrop::no_buffer);
            t = timed(t);
            return;
        }
        auto* frame = rte_pktmbuf_mtod(m, uint8_t*);
        std::memcpy(frame + kUdpFrameHeaderLen, head, head_len);
        std::memcpy(frame + kUdpFrameHeaderLen + head_len, body, body_len);
        template_.finish(frame, uint16_t(len), ip_id_++);
        m->data_len = uint16_t(kUdpFrameHeaderLen + len);
        m->pkt_len = m->data_len;
        const uint64_t give_up = emergency ? tsc_after_us(tsc_hz_, kEmergencyTxWaitUs) : 0;
        bool out = rte_eth_tx_burst(setup_.port_id, setup_.queue, &m, 1) == 1;
        while (!out && emergency && rte_rdtsc() < give_up) {
            rte_pause();
            out = rte_eth_tx_burst(setup_.port_id, setup_.queue, &m, 1) == 1;
        }
        if (!out) {
            rte_pktmbuf_free(m);
            count(NetlogDrop::tx_full);
        } else {
            ++sent;
            bump(counters_.datagrams);
            bump(counters_.bytes, len);
        }
        t = timed(t);
    });
    if (sent == total) bump(counters_.records);
    if (pool_first) warm_next_prefilled();
    return sent;
}

// A record longer than netconsole's limit would be refused whole by its
// receivers, and an rfc5424 one is a single datagram: its text is cut to fit
// instead, and marked.
void NetlogChannel::escape(const NetlogRecord& rec, EscapedText& text) {
    const NetlogFormat fmt = setup_.config.format;
    const EscapedLength e =
        escape_text(rec.text, text.body, netlog_text_room(rec, fmt, &origin_), fmt);
    text.len = e.len;
    if (e.cut) counters_.truncated.fetch_add(1, std::memory_order_relaxed);
}

size_t NetlogChannel::send(const NetlogRecord& rec) {
    if (stopped_.load(std::memory_order_acquire)) {
        count(NetlogDrop::stopped);
        return 0;
    }
    // Escaped before the lock is taken: other senders wait on less work.
    EscapedText text;
    escape(rec, text);
    // seq_cst here and in stop(): either stop() sees the lock taken and
    // waits, or this sees the flag.
    if (busy_.exchange(true, std::memory_order_seq_cst)) {
        count(NetlogDrop::busy);
        return 0;
    }
    const Inside inside;
    size_t sent = 0;
    if (stopped_.load(std::memory_order_seq_cst))
        count(NetlogDrop::stopped);
    else
        sent = send_locked(rec, text, false);
    busy_.store(false, std::memory_order_release);
    return sent;
}

size_t NetlogChannel::send_emergency(const NetlogRecord& rec) {
    // The crashing thread may be inside the channel itself: entering it again
    // would reuse a half-updated stack or TX queue.
    if (t_inside || stopped_.load(std::memory_order_seq_cst)) return 0;
    // Another thread's send is bounded: wait for it, never take the lock by
    // force (two threads in one TX queue would corrupt it).
    const uint64_t give_up = tsc_after_us(tsc_hz_, kEmergencyLockWaitUs);
    while (busy_.exchange(true, std::memory_order_seq_cst)) {
        if (rte_rdtsc() >= give_up) return 0;
        rte_pause();
    }
    const Inside inside;
    counters_.emergency_sends.fetch_add(1, std::memory_order_relaxed);
    EscapedText text;
    escape(rec, text);
    const size_t sent = stopped_.load(std::memory_order_seq_cst) ? 0 : send_locked(rec, text, true);
    busy_.store(false, std::memory_order_release);
    return sent;
}

void NetlogChannel::refill() {
    if (setup_.config.send_path == NetlogSendPath::alloc_first) return;  // refills inline
    if (busy_.exchange(true, std::memory_order_seq_cst)) return;  // a sender has it: next round
    const Inside inside;
    // Devices that free sent buffers only when their ring runs low (ixgbe,
    // i40e...) would keep the reserve: ask for them back when it runs low.
    if (rte_mempool_avail_count(setup_.reserve) < stack_.size())
        rte_eth_tx_done_cleanup(setup_.port_id, setup_.queue, 0);
    bump(counters_.refilled, top_up_prefilled());
    busy_.store(false, std::memory_order_release);
}

void NetlogChannel::set_rate(uint32_t rate_limit, uint32_t rate_burst, const std::string& level) {
    while (busy_.exchange(true, std::memory_order_seq_cst)) rte_pause();
    setup_.config.rate_limit = rate_limit;
    setup_.config.rate_burst = rate_burst;
    setup_.config.level = level;
    bucket_ = TokenBucket(rate_limit, rate_burst);
    busy_.store(false, std::memory_order_release);
}

void NetlogChannel::retarget(const NetlogConfig& c) {
    while (busy_.exchange(true, std::memory_order_seq_cst)) rte_pause();
    setup_.config.dst_ip = c.dst_ip;
    setup_.config.dst_mac = c.dst_mac;
    setup_.config.dst_port = c.dst_port;
    setup_.config.src_ip = c.src_ip;
    setup_.config.src_port = c.src_port;
    template_ = UdpFrameTemplate(
        UdpEndpoints{setup_.src_mac, c.dst_mac, c.src_ip, c.dst_ip, c.src_port, c.dst_port});
    ++stamp_generation_;
    busy_.store(false, std::memory_order_release);
}

void NetlogChannel::stop() {
    stopped_.store(true, std::memory_order_seq_cst);
    // A send that took the lock before the flag was seen finishes in bounded time.
    const uint64_t give_up = tsc_after_us(tsc_hz_, 1000000);
    while (busy_.load(std::memory_order_acquire) && rte_rdtsc() < give_up) rte_pause();
}

Record NetlogChannel::stats() const {
    Record r(kLogRecord);
    const NetlogConfig& c = setup_.config;
    r.set(kLogRecord.at("enabled"), "true");
    r.set(kLogRecord.at("port"), setup_.port_name);
    r.set(kLogRecord.at("queue"), setup_.queue);
    r.set(kLogRecord.at("src"), c.src_ip.to_string() + ":" + std::to_string(c.src_port));
    r.set(kLogRecord.at("dst"), c.dst_ip.to_string() + ":" + std::to_string(c.dst_port));
    r.set(kLogRecord.at("dst_mac"), c.dst_mac.to_string());
    r.set(kLogRecord.at("format"), std::string(to_string(c.format)));
    r.set(kLogRecord.at("level"), c.level);
    r.set(kLogRecord.at("send_path"), std::string(to_string(c.send_path)));
    r.set(kLogRecord.at("rate_limit"), c.rate_limit);
#define PMDFWD_SET_NETLOG(name, unit, kind, help) \
    r.set(kLogRecord.at(#name), counters_.name.load(std::memory_order_relaxed));
    PMDFWD_NETLOG_COUNTERS(PMDFWD_SET_NETLOG)
#undef PMDFWD_SET_NETLOG
    uint64_t dropped = 0;
    constexpr FieldId kFirstDrop = kLogRecord.group_first("drops");
    for (size_t i = 0; i < kNetlogDropCount; ++i) {
        const uint64_t n = counters_.drops[i].load(std::memory_order_relaxed);
        r.set(Record::next(kFirstDrop, i), n);
        dropped += n;
    }
    r.set(kLogRecord.at("dropped"), dropped);
    r.set(kLogRecord.at("reserve_size"), uint64_t(setup_.reserve->size));
    r.set(kLogRecord.at("reserve_free"), uint64_t(rte_mempool_avail_count(setup_.reserve)));
    r.set(kLogRecord.at("prefill_target"), uint64_t(stack_.size()));
    r.set(kLogRecord.at("prefilled"), uint64_t(stack_len_.load(std::memory_order_relaxed)));
    r.set(kLogRecord.at("latency"), histogram_view(latency_.read(), tsc_hz_));
    return r;
}

}  // namespace pmdfwd
