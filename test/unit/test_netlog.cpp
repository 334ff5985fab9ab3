// The log channel's pure parts: netconsole wire format and fragments, the
// UDP frame template, the latency histogram, the token bucket, the crash
// ring, and the [netlog] config and its TX queue in the plan.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "config_loader.hpp"
#include "netlog_format.hpp"
#include "plan.hpp"
#include "recent_records.hpp"
#include "token_bucket.hpp"
#include "udp_frame.hpp"

using namespace pmdfwd;

namespace {

std::vector<std::string> datagrams(const NetlogRecord& r, NetlogFormat f) {
    std::vector<std::string> out;
    const size_t n =
        for_each_datagram(r, f, [&](const char* h, size_t hl, const char* b, size_t bl) {
            out.push_back(std::string(h, hl) + std::string(b, bl));
        });
    CHECK(n == out.size());
    return out;
}

NetlogRecord rec(std::string_view text, uint64_t seq = 42, uint8_t level = 6) {
    NetlogRecord r;
    r.level = level;
    r.seq = seq;
    r.timestamp_us = 1234567;
    r.text = text;
    return r;
}

// Joins the bodies of ncfrag fragments in offset order, checking each header.
std::string reassemble(const std::vector<std::string>& frags, const std::string& head) {
    std::string body;
    for (const auto& f : frags) {
        REQUIRE(f.size() <= kNetlogPayloadMax);
        REQUIRE(f.rfind(head + ",ncfrag=", 0) == 0);
        const size_t semi = f.find(';');
        const std::string field = f.substr(head.size() + 8, semi - head.size() - 8);
        const size_t offset = std::stoul(field.substr(0, field.find('/')));
        CHECK(offset == body.size());
        body += f.substr(semi + 1);
    }
    return body;
}

}  // namespace

TEST_CASE("netlog format: extended is netconsole's <level>,<seq>,<ts>,<flags>;<text>", "[netlog]") {
    CHECK(datagrams(rec("hello"), NetlogFormat::extended) ==
          std::vector<std::string>{"6,42,1234567,-;hello\n"});
    NetlogRecord cont = rec("more", 43, 3);
    cont.continuation = true;
    CHECK(datagrams(cont, NetlogFormat::extended) ==
          std::vector<std::string>{"3,43,1234567,c;more\n"});
    CHECK(datagrams(rec("hello"), NetlogFormat::plain) == std::vector<std::string>{"hello\n"});
    CHECK(datagrams(rec(""), NetlogFormat::extended) ==
          std::vector<std::string>{"6,42,1234567,-;\n"});
}

TEST_CASE("netlog format: one record is one line, escaped as the kernel does", "[netlog]") {
    CHECK(datagrams(rec("a\nb\\c\x01"), NetlogFormat::extended)[0] ==
          "6,42,1234567,-;a\\x0ab\\x5cc\\x01\n");
    CHECK(datagrams(rec("caf\xc3\xa9"), NetlogFormat::extended)[0] ==
          "6,42,1234567,-;caf\\xc3\\xa9\n");
    // plain keeps UTF-8 and backslashes, but still never breaks the line.
    CHECK(datagrams(rec("caf\xc3\xa9 a\\b\tc"), NetlogFormat::plain)[0] ==
          "caf\xc3\xa9 a\\b\\x09c\n");
}

TEST_CASE("netlog format: long records are cut into ncfrag fragments of at most 1000 bytes",
          "[netlog]") {
    std::string text;
    for (int i = 0; text.size() < 2500; ++i) text += "word" + std::to_string(i) + " ";
    const auto frags = datagrams(rec(text, 7), NetlogFormat::extended);
    REQUIRE(frags.size() == 3);
    const std::string total = "/" + std::to_string(text.size() + 1) + ";";
    for (const auto& f : frags) CHECK(f.find(total) != std::string::npos);
    CHECK(reassemble(frags, "6,7,1234567,-") == text + "\n");
    // Exactly 1000 bytes fits one datagram; one more does not.
    const std::string head = "6,42,1234567,-;";
    const std::string fits(kNetlogPayloadMax - head.size() - 1, 'x');
    CHECK(datagrams(rec(fits), NetlogFormat::extended).size() == 1);
    CHECK(datagrams(rec(fits + "y"), NetlogFormat::extended).size() == 2);
    // plain: bare 1000-byte chunks.
    const auto plain = datagrams(rec(text), NetlogFormat::plain);
    REQUIRE(plain.size() == 3);
    CHECK(plain[0].size() == 1000);
    CHECK(plain[0] + plain[1] + plain[2] == text + "\n");
}

namespace {

// A record as a receiver puts it together: the head and ';' of its first
// datagram and its whole text, fragments reassembled in order. Checks that
// every fragment names the same total, and that it is the text's length.
std::string received_record(const NetlogRecord& r, NetlogFormat f) {
    const auto frags = datagrams(r, f);
    if (f == NetlogFormat::plain) {
        std::string all;
        for (const auto& d : frags) all += d;
        return all;
    }
    if (frags.size() == 1) return frags[0];
    const std::string head = frags[0].substr(0, frags[0].find(",ncfrag="));
    const std::string text = reassemble(frags, head);
    for (const auto& d : frags)
        CHECK(d.find("/" + std::to_string(text.size()) + ";") != std::string::npos);
    return head + ";" + text;
}

bool ends_cut(const std::string& record) {
    const std::string tail = std::string(kNetlogCutMark) + "\n";
    return record.size() >= tail.size() && record.substr(record.size() - tail.size()) == tail;
}

// Undoes the extended format's \xNN escapes.
std::string unescape(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x') {
            out += char(std::stoi(s.substr(i + 2, 2), nullptr, 16));
            i += 3;
        } else {
            out += s[i];
        }
    }
    return out;
}

// Whole UTF-8 characters only (the structure; overlongs do not matter here).
bool whole_utf8(const std::string& s) {
    for (size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const size_t n = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
        if (n == 0 || i + n > s.size()) return false;
        for (size_t k = 1; k < n; ++k)
            if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
        i += n;
    }
    return true;
}

}  // namespace

TEST_CASE("netlog format: a record of 8191 bytes goes whole; 8192 and more is cut and marked",
          "[netlog]") {
    // "6,42,1234567,-;" is 15 bytes: text + 16 is the record.
    const std::string head = "6,42,1234567,-;";
    const std::string fits(kNetlogRecordMax - head.size() - 1, 'w');
    const std::string whole = received_record(rec(fits), NetlogFormat::extended);
    CHECK(whole.size() == 8191);
    CHECK(whole == head + fits + "\n");
    CHECK(datagrams(rec(fits), NetlogFormat::extended)[0].find(",ncfrag=0/8176;") !=
          std::string::npos);
    for (const size_t over : {size_t(1), size_t(2), size_t(500), size_t(16384)}) {
        INFO("text of " << fits.size() + over << " bytes");
        const std::string text = fits + std::string(over, 'v');
        const std::string cut = received_record(rec(text), NetlogFormat::extended);
        CHECK(cut.size() == 8191);  // the cut fills the room: all plain bytes
        CHECK(ends_cut(cut));
        CHECK(cut == head + fits.substr(0, fits.size() - kNetlogCutMark.size()) +
                         std::string(kNetlogCutMark) + "\n");
    }
    // plain has no head: the text and its newline are the record.
    const std::string plain_fits(kNetlogRecordMax - 1, 'p');
    CHECK(received_record(rec(plain_fits), NetlogFormat::plain) == plain_fits + "\n");
    const std::string plain_cut = received_record(rec(plain_fits + "q"), NetlogFormat::plain);
    CHECK(plain_cut.size() == 8191);
    CHECK(ends_cut(plain_cut));
    CHECK(datagrams(rec(std::string(20000, 'p')), NetlogFormat::plain).size() == 9);
}

TEST_CASE("netlog format: every record stays below 8192 bytes, whatever its head and escapes",
          "[netlog]") {
    // The widest head (20-digit sequence and timestamp) and the narrowest;
    // plain text, and text whose every byte becomes a 4-byte escape; every
    // length whose record ends near the limit.
    NetlogRecord wide = rec("");
    wide.seq = UINT64_MAX;
    wide.timestamp_us = UINT64_MAX;
    NetlogRecord narrow = rec("");
    narrow.seq = 0;
    narrow.timestamp_us = 0;
    for (const NetlogRecord& base : {wide, narrow})
        for (const char fill : {'a', '\x01'})
            for (size_t len = fill == 'a' ? 8100 : 2010; len < (fill == 'a' ? 8200 : 2060); ++len) {
                const std::string text(len, fill);
                NetlogRecord r = base;
                r.text = text;
                const size_t head = std::to_string(r.level).size() + std::to_string(r.seq).size() +
                                    std::to_string(r.timestamp_us).size() + 5;
                const size_t escaped = fill == 'a' ? len : 4 * len;
                const std::string got = received_record(r, NetlogFormat::extended);
                INFO("head " << head << ", text " << len << " bytes of " << int(fill));
                REQUIRE(got.size() <= kNetlogRecordMax);
                REQUIRE(ends_cut(got) == (head + escaped + 1 > kNetlogRecordMax));
                if (!ends_cut(got)) REQUIRE(got.size() == head + escaped + 1);
                // An escape is never cut in two.
                if (fill != 'a' && ends_cut(got)) {
                    const std::string kept =
                        got.substr(head, got.size() - head - kNetlogCutMark.size() - 1);
                    REQUIRE(kept.size() % 4 == 0);
                    REQUIRE(unescape(kept) == std::string(kept.size() / 4, '\x01'));
                }
            }
}

TEST_CASE("netlog format: a cut never splits a UTF-8 character", "[netlog]") {
    // 2-, 3- and 4-byte characters, after every count of ASCII bytes that
    // puts the cut at each byte of one, in both formats.
    for (const std::string ch : {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"})
        for (const auto f : {NetlogFormat::extended, NetlogFormat::plain})
            for (size_t pad = 0; pad < 16; ++pad) {
                std::string text(pad, 'a');
                while (text.size() < 3 * kNetlogRecordMax) text += ch;
                const std::string got = received_record(rec(text), f);
                INFO("character of " << ch.size() << " bytes, pad " << pad);
                REQUIRE(got.size() <= kNetlogRecordMax);
                REQUIRE(ends_cut(got));
                std::string kept = got.substr(0, got.size() - kNetlogCutMark.size() - 1);
                if (f == NetlogFormat::extended) kept = unescape(kept.substr(kept.find(';') + 1));
                CHECK(whole_utf8(kept));
                // Only the unfinished character was given up.
                const size_t unit = f == NetlogFormat::extended ? 4 : 1;
                CHECK(got.size() + unit * ch.size() > kNetlogRecordMax);
            }
    // A cut inside bytes that are not UTF-8 gives up nothing.
    const std::string junk(9000, '\x80');
    CHECK(received_record(rec(junk), NetlogFormat::plain).size() == kNetlogRecordMax);
}

namespace {

std::string syslog_message(const NetlogRecord& r, const SyslogOrigin& o) {
    const auto d = for_each_datagram(
        r, NetlogFormat::rfc5424, [&](const char*, size_t, const char*, size_t) {}, &o);
    CHECK(d == 1);
    std::string out;
    for_each_datagram(
        r, NetlogFormat::rfc5424,
        [&](const char* h, size_t hl, const char* b, size_t bl) {
            out = std::string(h, hl) + std::string(b, bl);
        },
        &o);
    return out;
}

std::string rfc3339(uint64_t us) {
    char buf[32];
    return std::string(buf, format_rfc3339_utc(us, buf, sizeof(buf)));
}

}  // namespace

TEST_CASE("netlog format: rfc5424 is one RFC 5424 message per datagram", "[netlog]") {
    const SyslogOrigin origin{SyslogFacility::daemon, "host1", 77};
    NetlogRecord r = rec("hello");
    r.worker = "3";
    // daemon (3) * 8 + info (6) = 30; no newline after the message.
    CHECK(syslog_message(r, origin) ==
          "<30>1 1970-01-01T00:00:01.234567Z host1 pmdfwd 77 - "
          "[pmdfwd@32473 seq=\"42\" worker=\"3\"] hello");
    // A crash report's records say so in MSGID; local7 (23) * 8 + emerg (0).
    NetlogRecord crash = rec("pmdfwd: end of crash report", 9, 0);
    crash.crash = true;
    crash.worker = "main";
    CHECK(syslog_message(crash, SyslogOrigin{SyslogFacility::local7, "h", 1}) ==
          "<184>1 1970-01-01T00:00:01.234567Z h pmdfwd 1 crash "
          "[pmdfwd@32473 seq=\"9\" worker=\"main\"] pmdfwd: end of crash report");
    // No hostname is the NILVALUE; a worker's '"', '\\' and ']' are escaped,
    // what is not printable ASCII replaced, and the text's control characters
    // escaped as in the plain format (UTF-8 kept).
    NetlogRecord odd = rec("caf\xc3\xa9\tx");
    odd.worker = "a\"b]c\\\x01";
    CHECK(syslog_message(odd, SyslogOrigin{SyslogFacility::user, "", 5}) ==
          "<14>1 1970-01-01T00:00:01.234567Z - pmdfwd 5 - "
          "[pmdfwd@32473 seq=\"42\" worker=\"a\\\"b\\]c\\\\?\"] caf\xc3\xa9\\x09x");
}

TEST_CASE("netlog format: the rfc5424 header's length is counted as it is written", "[netlog]") {
    char head[kSyslogHeadMax];
    const std::string long_host(80, 'x');  // past kSyslogHostnameMax: cut
    for (const std::string_view host :
         {std::string_view(), std::string_view("h"), std::string_view("edge1.example.org"),
          std::string_view(long_host)})
        for (const std::string_view worker : {"", "0", "main", "a\"b]c\\", "pmdfwd-telemetry-x"})
            for (const uint64_t seq : {uint64_t(0), uint64_t(9), uint64_t(10), UINT64_MAX})
                for (const bool crash : {false, true})
                    for (const uint8_t level : {uint8_t(0), uint8_t(7)}) {
                        NetlogRecord r = rec("x", seq, level);
                        r.worker = worker;
                        r.crash = crash;
                        const SyslogOrigin o{SyslogFacility::local7, host, 4294967295u};
                        INFO("host " << host.size() << ", worker " << worker << ", seq " << seq);
                        CHECK(syslog_header_length(r, o) ==
                              format_syslog_header(r, o, head, sizeof(head)));
                    }
}

TEST_CASE("netlog format: rfc5424 timestamps are RFC 3339 in UTC, to the microsecond", "[netlog]") {
    CHECK(rfc3339(0) == "1970-01-01T00:00:00.000000Z");
    CHECK(rfc3339(1796422976000001ull) == "2026-12-04T22:22:56.000001Z");
    CHECK(rfc3339(1709251199999999ull) == "2024-02-29T23:59:59.999999Z");
    CHECK(rfc3339(951868800000000ull) == "2000-03-01T00:00:00.000000Z");
    CHECK(rfc3339(4107585600500000ull) == "2100-03-01T12:00:00.500000Z");
}

TEST_CASE("netlog format: an rfc5424 record longer than one datagram is cut and marked",
          "[netlog]") {
    const std::string host(kSyslogHostnameMax, 'h');  // the longest, with the longest pid
    const SyslogOrigin origin{SyslogFacility::daemon, host, 4294967295u};
    NetlogRecord r = rec("");
    r.seq = UINT64_MAX;
    r.worker = "pmdfwd-telemetr";
    for (const char fill : {'a', '\x01'})
        for (size_t len = 0; len < 1200; len += 7) {
            const std::string text(len, fill);
            r.text = text;
            const std::string got = syslog_message(r, origin);
            const size_t head = got.find("\"] ") + 3;
            const size_t escaped = fill == 'a' ? len : 4 * len;
            INFO("text of " << len << " bytes of " << int(fill));
            REQUIRE(got.size() <= kSyslogMessageMax);
            REQUIRE(head <= kSyslogHeadMax);
            const bool cut = got.size() >= kNetlogCutMark.size() &&
                             got.substr(got.size() - kNetlogCutMark.size()) == kNetlogCutMark;
            REQUIRE(cut == (head + escaped > kSyslogMessageMax));
            if (!cut) REQUIRE(got.size() == head + escaped);
            if (cut && fill == 'a') REQUIRE(got.size() == kSyslogMessageMax);
        }
}

TEST_CASE("netlog format: spdlog levels map to syslog severities", "[netlog]") {
    CHECK(syslog_severity(0) == 7);  // trace -> debug
    CHECK(syslog_severity(1) == 7);
    CHECK(syslog_severity(2) == 6);  // info
    CHECK(syslog_severity(3) == 4);  // warning
    CHECK(syslog_severity(4) == 3);  // err
    CHECK(syslog_severity(5) == 2);  // crit
}

TEST_CASE("udp frame: template, lengths and a valid IPv4 checksum", "[netlog]") {
    CHECK(Ipv4Addr::parse("10.1.2.3")->host_order == 0x0a010203u);
    CHECK(Ipv4Addr::parse("10.1.2.3")->to_string() == "10.1.2.3");
    for (const char* bad :
         {"", "10.1.2", "10.1.2.3.4", "256.1.1.1", "1.2.3.04", "a.b.c.d", "1.2.3.4 "})
        CHECK_FALSE(Ipv4Addr::parse(bad).has_value());

    UdpEndpoints ep;
    ep.src_mac = *MacAddr::parse("02:00:00:00:00:aa");
    ep.dst_mac = *MacAddr::parse("02:00:00:00:00:bb");
    ep.src_ip = *Ipv4Addr::parse("192.168.7.1");
    ep.dst_ip = *Ipv4Addr::parse("192.168.7.2");
    ep.src_port = 6665;
    ep.dst_port = 6666;
    const UdpFrameTemplate t(ep);
    for (const uint16_t len : {uint16_t(0), uint16_t(1), uint16_t(999), uint16_t(1000)}) {
        for (const uint16_t id : {uint16_t(0), uint16_t(1), uint16_t(0xffff)}) {
            std::vector<uint8_t> f(t.bytes().begin(), t.bytes().end());
            f.resize(kUdpFrameHeaderLen + len, 'p');
            t.finish(f.data(), len, id);
            CHECK(f[12] == 0x08);
            CHECK(f[13] == 0x00);
            CHECK((f[16] << 8 | f[17]) == 28 + len);  // IPv4 total length
            CHECK((f[18] << 8 | f[19]) == id);
            CHECK(f[23] == 17);
            CHECK(ipv4_header_checksum(f.data() + 14, 20) == 0);  // sums to 0xffff
            CHECK((f[34] << 8 | f[35]) == 6665);
            CHECK((f[36] << 8 | f[37]) == 6666);
            CHECK((f[38] << 8 | f[39]) == 8 + len);  // UDP length
            CHECK(std::equal(f.begin(), f.begin() + 6, ep.dst_mac.bytes.begin()));
            CHECK(std::equal(f.begin() + 6, f.begin() + 12, ep.src_mac.bytes.begin()));
        }
    }
}

TEST_CASE("token bucket: a burst, then the rate", "[netlog]") {
    TokenBucket b(1000, 5);  // 1000/s: one per ms
    uint64_t now = 1000000000;
    int taken = 0;
    for (int i = 0; i < 10; ++i) taken += b.take(now);
    CHECK(taken == 5);
    CHECK_FALSE(b.take(now + 500000));  // half a millisecond: not yet
    CHECK(b.take(now + 1000000));
    CHECK_FALSE(b.take(now + 1000000));
    taken = 0;
    for (int i = 0; i < 100; ++i) taken += b.take(now + 1000000000);  // a second later: burst only
    CHECK(taken == 5);
    // A storm of takes 1 us apart at 100/s: the rate gets through, not zero.
    TokenBucket slow(100, 5);
    int passed = 0;
    for (uint64_t t = 0; t < 1000000; ++t) passed += slow.take(2000000000 + t * 1000);
    CHECK(passed >= 5 + 99);
    CHECK(passed <= 5 + 101);
    TokenBucket unlimited(0, 1);
    for (int i = 0; i < 1000; ++i) CHECK(unlimited.take(0));
}

TEST_CASE("recent records: the last 64, oldest first, whole", "[netlog]") {
    RecentRecords ring;
    std::vector<std::string> texts;
    for (uint64_t seq = 0; seq < 100; ++seq) {
        texts.push_back("record " + std::to_string(seq));
        ring.put(rec(texts.back(), seq));
    }
    std::vector<uint64_t> seqs;
    ring.for_each(100, [&](const NetlogRecord& r) {
        CHECK(std::string(r.text) == texts[r.seq]);
        seqs.push_back(r.seq);
    });
    REQUIRE(seqs.size() == RecentRecords::kSlots);
    CHECK(seqs.front() == 100 - RecentRecords::kSlots);
    CHECK(seqs.back() == 99);
    // A long text is kept cut, not overrun.
    const std::string long_text(2000, 'q');
    ring.put(rec(long_text, 100));
    ring.for_each(101, [&](const NetlogRecord& r) {
        if (r.seq == 100) CHECK(r.text.size() == RecentRecords::kTextMax);
    });
}

namespace {

const char* kNetlogConfig = R"([eal]
lcores = "0-2"

[[port]]
name = "p0"
devargs = "net_null0"

[[port]]
name = "p1"
devargs = "net_tap0,iface=nl0"

[forward]
pairs = [["p0", "p1"], ["p1", "p0"]]

[netlog]
enabled = true
port = "p1"
src_ip = "10.9.0.1"
dst_ip = "10.9.0.2"
dst_mac = "02:00:00:00:09:02"
dst_port = 6666
level = "debug"
format = "plain"
reserve = 256
prefill = 32
rate_limit = 100
)";

}  // namespace

TEST_CASE("netlog config: every key, and the channel's own TX queue in the plan",
          "[netlog][config]") {
    auto loaded = parse_config(kNetlogConfig, "netlog.toml");
    REQUIRE(std::holds_alternative<Config>(loaded));
    const Config& cfg = std::get<Config>(loaded);
    CHECK(cfg.netlog.enabled);
    CHECK(cfg.netlog.port == "p1");
    CHECK(cfg.netlog.dst_ip.to_string() == "10.9.0.2");
    CHECK(cfg.netlog.dst_mac.to_string() == "02:00:00:00:09:02");
    CHECK(cfg.netlog.format == NetlogFormat::plain);
    CHECK(cfg.netlog.facility == SyslogFacility::daemon);  // the default
    std::string syslog_text = kNetlogConfig;
    syslog_text.replace(syslog_text.find("format = \"plain\""), 16,
                        "format = \"rfc5424\"\nfacility = \"local3\"");
    const auto syslog_cfg = parse_config(syslog_text, "netlog.toml");
    REQUIRE(std::holds_alternative<Config>(syslog_cfg));
    CHECK(std::get<Config>(syslog_cfg).netlog.format == NetlogFormat::rfc5424);
    CHECK(std::get<Config>(syslog_cfg).netlog.facility == SyslogFacility::local3);
    CHECK(cfg.netlog.level == "debug");
    CHECK(cfg.netlog.reserve == 256);
    CHECK(cfg.netlog.prefill == 32);
    CHECK(cfg.netlog.rate_limit == 100);
    CHECK(cfg.netlog.send_path == NetlogSendPath::pool_first);

    auto planned = build_plan(cfg);
    REQUIRE(std::holds_alternative<Plan>(planned));
    const Plan& plan = std::get<Plan>(planned);
    // Worker 0 sends to p1 on txq 0; the channel gets txq 1, never a worker's.
    CHECK(plan.ports[1].tx_queues == 2);
    CHECK(plan.ports[1].netlog_queue == 1);
    CHECK(plan.ports[0].netlog_queue == -1);
    const auto lines = render_plan(cfg, plan);
    CHECK(std::find(lines.begin(), lines.end(),
                    "netlog: plain records at debug and above to 10.9.0.2:6666 via 'p1' txq 1") !=
          lines.end());

    // With tx = "owner" the channel's queue comes after the owners'.
    Config owner = cfg;
    owner.ports[1].tx = TxMode::owner;
    const Plan op = std::get<Plan>(build_plan(owner));
    CHECK(op.ports[1].tx_queues == 2);
    CHECK(op.ports[1].netlog_queue == 1);

    // Device limits count the channel's queue: one TX queue is not enough
    // for a worker and the channel, so auto hands off... and still needs 2.
    std::vector<PortLimits> limits = {{"net_null", 16, 16}, {"net_tap", 1, 1}};
    auto refused = build_plan(cfg, &limits);
    REQUIRE(std::holds_alternative<ConfigError>(refused));
    CHECK(std::get<ConfigError>(refused).message ==
          "port 'p1' (net_tap) cannot set up a tx queue for its workers and one for the log "
          "channel; put [netlog] on another port");
}

TEST_CASE("netlog config: errors name the key", "[netlog][config]") {
    const auto error_of = [](std::string text) {
        auto r = parse_config(text, "netlog.toml");
        REQUIRE(std::holds_alternative<ConfigError>(r));
        const auto& e = std::get<ConfigError>(r);
        return std::to_string(e.line) + ":" + std::to_string(e.column) + " " + e.key + ": " +
               e.message;
    };
    const std::string base = kNetlogConfig;
    const auto with = [&](const std::string& from, const std::string& to) {
        std::string s = base;
        s.replace(s.find(from), from.size(), to);
        return s;
    };
    CHECK(error_of(with("dst_ip = \"10.9.0.2\"\n", "")) ==
          "15:1 netlog.dst_ip: is required when enabled = true");
    CHECK(error_of(with("10.9.0.2", "10.9.0")) ==
          "19:10 netlog.dst_ip: '10.9.0' is not an address like \"10.0.0.2\"");
    CHECK(error_of(with("port = \"p1\"", "port = \"p9\"")) ==
          "17:8 netlog.port: names port 'p9', which is not a configured [[port]]");
    CHECK(error_of(with("prefill = 32", "prefill = 200")) ==
          "24:11 netlog.reserve: reserve 256 is too small for prefill 200: the channel's TX "
          "queue holds up to 128 sent buffers; make reserve at least 360");
    CHECK(error_of(with("level = \"debug\"", "level = \"off\"")) ==
          "22:9 netlog.level: level \"off\" sends nothing; set enabled = false instead");
    CHECK(error_of(with("format = \"plain\"", "format = \"json\"")) ==
          "23:10 netlog.format: unknown format 'json' (expected \"extended\", \"plain\" or "
          "\"rfc5424\")");
    CHECK(error_of(with("format = \"plain\"", "format = \"rfc5424\"\nfacility = \"local8\"")) ==
          "24:12 netlog.facility: unknown facility 'local8' (expected \"kern\", \"user\", "
          "\"mail\", \"daemon\", \"auth\", \"syslog\", \"lpr\", \"news\", \"uucp\", \"cron\", "
          "\"authpriv\", \"ftp\", \"local0\", \"local1\", \"local2\", \"local3\", \"local4\", "
          "\"local5\", \"local6\" or \"local7\")");
    CHECK(error_of(with("level = \"debug\"", "level = \"loud\"")) ==
          "22:9 netlog.level: unknown level 'loud' (expected trace, debug, info, warn, error, "
          "critical or off)");
    CHECK(error_of(with("rate_limit = 100", "rate_limit = -1")) ==
          "26:14 netlog.rate_limit: value -1 is out of range [0, 10000000]");
    // Disabled, nothing else is needed.
    CHECK(
        std::holds_alternative<Config>(parse_config("[netlog]\nenabled = false\n", "netlog.toml")));
}

namespace {

// The escape rule one byte at a time, with the cut: text whose escapes and
// newline do not fit in cap is cut, and as many whole bytes (each with its
// escape) as the cut mark needs are given back. (Its texts have no UTF-8:
// the cut's step back over a character is tested above.)
std::string escape_reference(std::string_view text, NetlogFormat f, size_t cap) {
    std::vector<std::string> tokens;
    size_t size = 0;
    bool cut = false;
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        const bool esc = f == NetlogFormat::extended ? c < 0x20 || c >= 0x7f || c == '\\'
                                                     : c < 0x20 || c == 0x7f;
        static const char* hex = "0123456789abcdef";
        tokens.push_back(esc ? std::string("\\x") + hex[c >> 4] + hex[c & 15] : std::string(1, ch));
        size += tokens.back().size();
        if (size + 1 > cap) {
            cut = true;
            break;
        }
    }
    // Cut: whole tokens give way to the mark.
    while (cut && size + kNetlogCutMark.size() + 1 > cap) {
        size -= tokens.back().size();
        tokens.pop_back();
    }
    std::string out;
    for (const auto& t : tokens) out += t;
    return out + (cut ? std::string(kNetlogCutMark) + "\n" : "\n");
}

}  // namespace

TEST_CASE("netlog format: the block-at-a-time escape agrees with the byte rule", "[netlog]") {
    // 7: bytes only; 8: one word; 19: a 16-byte block and a byte tail; 27: a
    // block, a word and a tail; 40: two blocks and a word.
    for (const size_t len : {size_t(7), size_t(8), size_t(19), size_t(27), size_t(40)})
        for (const auto f : {NetlogFormat::extended, NetlogFormat::plain})
            for (int byte = 0; byte < 256; ++byte)
                for (size_t pos = 0; pos < len; ++pos) {
                    std::string text(len, 'a');
                    text[pos] = char(byte);
                    char out[256];
                    const EscapedLength e = escape_text(text, out, sizeof(out), f);
                    REQUIRE_FALSE(e.cut);
                    REQUIRE(std::string(out, e.len) == escape_reference(text, f, sizeof(out)));
                }
}

TEST_CASE("netlog format: text is cut where the room ends, never past it", "[netlog]") {
    // Plain runs that end in a block, a word or bytes, with escapes between
    // them, against every room from the smallest that holds the cut mark.
    const std::string texts[] = {std::string(45, 'p'),
                                 std::string(21, 'p') + "\x01" + std::string(20, 'q') + "\\z",
                                 "\x7f" + std::string(17, 'r') + "\n\n" + std::string(9, 's')};
    for (const auto& text : texts)
        for (const auto f : {NetlogFormat::extended, NetlogFormat::plain})
            for (size_t cap = kNetlogCutMark.size() + 1; cap < 90; ++cap) {
                std::vector<char> out(cap + 16, '#');  // canaries past cap
                const EscapedLength e = escape_text(text, out.data(), cap, f);
                REQUIRE(e.len <= cap);
                const std::string expected = escape_reference(text, f, cap);
                REQUIRE(std::string(out.data(), e.len) == expected);
                REQUIRE(e.cut == (expected.find(kNetlogCutMark) != std::string::npos));
                for (size_t k = cap; k < out.size(); ++k) REQUIRE(out[k] == '#');
            }
}

TEST_CASE("netlog format: the head is formatted once; counting agrees with sending", "[netlog]") {
    // Every digit count, at both ends, and the extremes of each field.
    std::vector<uint64_t> values = {0, 12345678901, UINT64_MAX};
    for (uint64_t p = 10; p != 10000000000000000000u; p *= 10)
        values.insert(values.end(), {p - 1, p});
    values.push_back(10000000000000000000u - 1);
    values.push_back(10000000000000000000u);
    for (const uint64_t v : values) {
        NetlogRecord r = rec("x", v);
        r.timestamp_us = v;
        const auto d = datagrams(r, NetlogFormat::extended);
        REQUIRE(d.size() == 1);
        CHECK(d[0] == "6," + std::to_string(v) + "," + std::to_string(v) + ",-;x\n");
    }
    // Around every place the datagram count changes, in both formats.
    for (const auto f : {NetlogFormat::extended, NetlogFormat::plain})
        for (size_t len = 1; len < 3 * kNetlogPayloadMax + 100; ++len) {
            const std::string text(len, 'a');
            char body[4 * kNetlogPayloadMax];
            const size_t body_len = escape_text(text, body, sizeof(body), f).len;
            const NetlogRecord r = rec(text, 18446744073709551615u);
            RecordDatagrams dg(r, f, body, body_len);
            const size_t counted = dg.count();
            size_t emitted = 0, bytes = 0;
            CHECK(dg.for_each([&](const char*, size_t hl, const char*, size_t bl) {
                ++emitted;
                bytes += bl;
                REQUIRE(hl + bl <= kNetlogPayloadMax);
            }) == counted);
            REQUIRE(emitted == counted);
            REQUIRE(bytes == body_len);
        }
}
