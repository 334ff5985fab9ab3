// The drop capture's pcapng file read back by tshark, the reader operators
// use: every frame once, in order, with its bytes, lengths, interface and
// comment; a comment with commas and spaces kept whole.
#include <unistd.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "pcapng_writer.hpp"

using namespace pmdfwd;

namespace {

std::string run(const std::string& command) {
    std::string out;
    std::FILE* p = popen(command.c_str(), "r");
    if (!p) return out;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    pclose(p);
    return out;
}

std::vector<uint8_t> frame_of(uint8_t seed, size_t len) {
    std::vector<uint8_t> f(len);
    for (size_t i = 0; i < len; ++i) f[i] = uint8_t(seed + i * 7);
    f[12] = 0x88;  // the local experimental ethertype: tshark shows the rest as data
    f[13] = 0xb5;
    return f;
}

std::string hex(const std::vector<uint8_t>& bytes) {
    std::string s;
    char two[3];
    for (const uint8_t b : bytes) {
        std::snprintf(two, sizeof two, "%02x", b);
        s += two;
    }
    return s;
}

}  // namespace

TEST_CASE("pcapng writer: tshark reads every frame with its comment", "[trace][pcapng]") {
    char path[] = "/tmp/pmdfwd-pcapng-XXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    const std::vector<std::string> ports{"p0", "p1"};
    auto made = PcapngWriter::create(path, ports, 96);
    REQUIRE(made);
    PcapngWriter& w = *made.value();
    const auto a = frame_of(1, 64), b = frame_of(2, 60), c = frame_of(3, 200);
    REQUIRE(w.write(0, 1'000'000'123, a, 64, "reason=bad_header worker=0 port=p0"));
    REQUIRE(w.write(1, 2'000'000'000, b, 60, "reason=no_route, worker 1, port p1"));
    REQUIRE(w.write(0, 3'000'000'000, c, 200, "reason=oversize"));  // cut at 96
    CHECK_FALSE(w.write(2, 0, a, 64, "no such interface"));
    REQUIRE(w.close());

    const std::string fields = run("tshark -r " + std::string(path) +
                                   " -T fields -E 'separator=;' -e frame.interface_name "
                                   "-e frame.len -e frame.cap_len -e frame.comment "
                                   "-e frame.time_epoch 2>/dev/null");
    CHECK(fields ==
          "p0;64;64;reason=bad_header worker=0 port=p0;1.000000123\n"
          "p1;60;60;reason=no_route, worker 1, port p1;2.000000000\n"
          "p0;200;96;reason=oversize;3.000000000\n");
    // The bytes: the Ethernet addresses, and the rest as tshark's data.
    const auto payload = [](const std::vector<uint8_t>& f, size_t captured) {
        return hex(std::vector<uint8_t>(f.begin() + 14, f.begin() + long(captured)));
    };
    const std::string data = run("tshark -r " + std::string(path) +
                                 " -T fields -E 'separator=;' -e eth.dst -e eth.src -e data.data "
                                 "2>/dev/null");
    CHECK(data == "01:08:0f:16:1d:24;2b:32:39:40:47:4e;" + payload(a, 64) + "\n" +
                      "02:09:10:17:1e:25;2c:33:3a:41:48:4f;" + payload(b, 60) + "\n" +
                      "03:0a:11:18:1f:26;2d:34:3b:42:49:50;" + payload(c, 96) + "\n");
    unlink(path);
}
