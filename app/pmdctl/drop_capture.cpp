// pmdctl drops --pcap (see drop_capture.hpp).
#include "drop_capture.hpp"

#include <chrono>
#include <csignal>
#include <iostream>
#include <thread>

#include "commands.hpp"
#include "pcapng_writer.hpp"
#include "protocol.hpp"
#include "record_view.hpp"
#include "renderers.hpp"

namespace pmdctl {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

void on_signal(int) { g_interrupted = 1; }

Json need_record(Result<Json> r) {
    if (!r) throw Failure(r.error().message);
    if (r->is_object() && r->contains("error")) throw Failure((*r)["error"].get<std::string>());
    return std::move(r.value());
}

std::vector<uint8_t> hex_bytes(const std::string& hex) {
    std::vector<uint8_t> out;
    const auto digit = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
        out.push_back(uint8_t(digit(hex[i]) << 4 | digit(hex[i + 1])));
    return out;
}

// "2026-12-04T19:45:02.123456789Z"
std::string utc_text(uint64_t ns) {
    const std::time_t s = std::time_t(ns / 1000000000);
    std::tm tm{};
    gmtime_r(&s, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    char out[96];
    std::snprintf(out, sizeof out, "%s.%09luZ", buf, (unsigned long)(ns % 1000000000));
    return out;
}

// Rows of /pmdfwd/drops made back into packets and written as they end.
class DropWriter {
  public:
    DropWriter(pmdfwd::PcapngWriter& out, std::vector<std::string> ports)
        : out_(out), ports_(std::move(ports)) {}

    // Reads every row from the next one on; returns packets written so far.
    uint64_t fetch(TelemetryClient& c) {
        for (;;) {
            auto page = c.query(pmdfwd::endpoints::kDrops, std::to_string(next_row_));
            if (!page) throw Failure(page.error().message);
            auto rows = rows_of_page(pmdfwd::kDropRecord, *page, pmdfwd::endpoints::kDrops.path);
            if (!rows) throw Failure(rows.error().message);
            for (const auto& row : *rows) take(row);
            next_row_ += rows->size();
            const uint64_t total = page->value("total", uint64_t(0));
            if (rows->empty() || next_row_ >= total) return written_;
        }
    }
    uint64_t written() const { return written_; }

  private:
    void take(const Json& row) {
        using pmdfwd::kDropRecord;
        constexpr FieldRef kPacket = kDropRecord.ref("packet");
        constexpr FieldRef kCaptured = kDropRecord.ref("captured");
        constexpr FieldRef kData = kDropRecord.ref("data");
        if (u64(row, kPacket) != packet_) {
            packet_ = u64(row, kPacket);
            first_ = row;
            bytes_.clear();
        }
        const auto more = hex_bytes(text(row, kData));
        bytes_.insert(bytes_.end(), more.begin(), more.end());
        if (bytes_.size() >= u64(row, kCaptured)) write();
    }

    void write() {
        using pmdfwd::kDropRecord;
        const Json& r = first_;
        const std::string port = text(r, kDropRecord.ref("port"));
        uint32_t iface = 0;
        while (iface < ports_.size() && ports_[iface] != port) ++iface;
        if (iface == ports_.size()) iface = 0;
        const uint64_t t = u64(r, kDropRecord.ref("time_ns"));
        const std::string comment = "reason " + text(r, kDropRecord.ref("reason")) + ", worker " +
                                    text(r, kDropRecord.ref("worker")) + ", port " + port +
                                    ", queue " + text(r, kDropRecord.ref("queue")) + ", time " +
                                    utc_text(t);
        const auto len = uint32_t(u64(r, kDropRecord.ref("length")));
        if (auto st = out_.write(iface, t, bytes_, len, comment); !st)
            throw Failure(st.error().message);
        ++written_;
    }

    pmdfwd::PcapngWriter& out_;
    const std::vector<std::string> ports_;
    uint64_t next_row_ = 0;
    uint64_t packet_ = 0;
    Json first_;
    std::vector<uint8_t> bytes_;
    uint64_t written_ = 0;
};

std::vector<std::string> port_names(TelemetryClient& c) {
    auto ports = c.query_each(pmdfwd::endpoints::kPorts, pmdfwd::endpoints::kPort);
    if (!ports) throw Failure(ports.error().message);
    std::vector<std::string> names;
    for (const auto& p : *ports) names.push_back(text(p, pmdfwd::kPortRecord.ref("name")));
    return names;
}

}  // namespace

void run_drop_capture(TelemetryClient& c, const DropCaptureArgs& a) {
    const std::vector<std::string> ports = port_names(c);
    auto writer = pmdfwd::PcapngWriter::create(a.pcap, ports, 65535);
    if (!writer) throw Failure(writer.error().message);
    const std::string params = std::to_string(a.count) + "," + std::to_string(a.rate) + "," +
                               (a.reason.empty() ? "-" : a.reason);
    need_record(c.query(pmdfwd::endpoints::kDropsStart, params));
    g_interrupted = 0;
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    DropWriter drops(*writer.value(), ports);
    const auto start = std::chrono::steady_clock::now();
    const auto timed_out = [&] {
        return a.timeout_s > 0 && std::chrono::steady_clock::now() - start >=
                                      std::chrono::duration<double>(a.timeout_s);
    };
    while (!g_interrupted && drops.fetch(c) < a.count && !timed_out())
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    const Json state = need_record(c.query(pmdfwd::endpoints::kDropsStop));
    drops.fetch(c);
    if (auto st = writer.value()->close(); !st) throw Failure(st.error().message);
    if (a.json) {
        Json out = state;
        out["file"] = a.pcap;
        out["written"] = drops.written();
        std::cout << out.dump(2) << '\n';
        return;
    }
    using pmdfwd::kDropCaptureRecord;
    std::cout << a.pcap << ": " << drops.written() << " dropped packet(s) written; not copied: "
              << text(state, kDropCaptureRecord.ref("rate_limited")) << " over the rate, "
              << text(state, kDropCaptureRecord.ref("ring_full")) << " with the ring full, "
              << text(state, kDropCaptureRecord.ref("over_count")) << " past the count\n";
}

}  // namespace pmdctl
