// A pcapng file of commented Ethernet frames (see pcapng_writer.hpp). Blocks
// in the host's byte order, as the format allows: the section header's
// magic tells readers which.
#include "pcapng_writer.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace pmdfwd {

namespace {

constexpr uint32_t kSectionHeader = 0x0A0D0D0A, kInterface = 1, kEnhancedPacket = 6;
constexpr uint32_t kByteOrderMagic = 0x1A2B3C4D;
constexpr uint16_t kOptEnd = 0, kOptComment = 1, kIfName = 2, kIfTsResol = 9;
constexpr uint16_t kLinkEthernet = 1;

// resize and memcpy, not insert: GCC 12 sees an overflow in a vector's
// insert of a few bytes that is not there (-Wstringop-overflow).
void append(std::vector<uint8_t>& b, const void* bytes, size_t n) {
    const size_t at = b.size();
    b.resize(at + n);
    if (n) std::memcpy(b.data() + at, bytes, n);
}
void put32(std::vector<uint8_t>& b, uint32_t v) { append(b, &v, 4); }
void put16(std::vector<uint8_t>& b, uint16_t v) { append(b, &v, 2); }
void pad4(std::vector<uint8_t>& b) { b.resize((b.size() + 3) & ~size_t(3), 0); }

void option(std::vector<uint8_t>& b, uint16_t code, std::string_view value) {
    put16(b, code);
    put16(b, uint16_t(value.size()));
    append(b, value.data(), value.size());
    pad4(b);
}

// type, total length, body, total length again.
std::vector<uint8_t> block(uint32_t type, const std::vector<uint8_t>& body) {
    std::vector<uint8_t> b;
    const uint32_t total = uint32_t(12 + body.size());
    put32(b, type);
    put32(b, total);
    append(b, body.data(), body.size());
    put32(b, total);
    return b;
}

void end_options(std::vector<uint8_t>& b) {
    put16(b, kOptEnd);
    put16(b, 0);
}

}  // namespace

Result<std::unique_ptr<PcapngWriter>> PcapngWriter::create(const std::string& path,
                                                           std::span<const std::string> interfaces,
                                                           uint32_t snaplen) {
    std::unique_ptr<PcapngWriter> w(new PcapngWriter());
    w->path_ = path;
    w->snaplen_ = snaplen;
    w->file_ = std::fopen(path.c_str(), "wb");
    if (!w->file_) return make_error(path + ": " + std::strerror(errno));
    std::vector<uint8_t> shb;
    put32(shb, kByteOrderMagic);
    put16(shb, 1);  // version 1.0
    put16(shb, 0);
    put32(shb, 0xffffffff);  // section length: not given
    put32(shb, 0xffffffff);
    end_options(shb);
    if (auto st = w->put(block(kSectionHeader, shb)); !st) return st.error();
    for (const std::string& name : interfaces) {
        std::vector<uint8_t> idb;
        put16(idb, kLinkEthernet);
        put16(idb, 0);
        put32(idb, snaplen);
        option(idb, kIfName, name);
        option(idb, kIfTsResol, std::string_view("\x09", 1));  // 10^-9 s
        end_options(idb);
        if (auto st = w->put(block(kInterface, idb)); !st) return st.error();
        w->interfaces_++;
    }
    return w;
}

PcapngWriter::~PcapngWriter() {
    if (file_) std::fclose(file_);
}

Status PcapngWriter::put(const std::vector<uint8_t>& b) {
    if (std::fwrite(b.data(), 1, b.size(), file_) != b.size())
        return make_error(path_ + ": " + std::strerror(errno));
    return Ok{};
}

Status PcapngWriter::write(uint32_t interface, uint64_t time_ns, std::span<const uint8_t> frame,
                           uint32_t original_len, std::string_view comment) {
    if (!file_) return make_error(path_ + ": closed");
    if (interface >= interfaces_)
        return make_error("pcapng: no interface " + std::to_string(interface));
    const uint32_t captured = uint32_t(std::min<size_t>(frame.size(), snaplen_));
    std::vector<uint8_t> epb;
    epb.reserve(32 + captured + comment.size());
    put32(epb, interface);
    put32(epb, uint32_t(time_ns >> 32));
    put32(epb, uint32_t(time_ns));
    put32(epb, captured);
    put32(epb, original_len);
    append(epb, frame.data(), captured);
    pad4(epb);
    // An option holds at most 65535 bytes.
    if (!comment.empty()) option(epb, kOptComment, comment.substr(0, 0xffff));
    end_options(epb);
    return put(block(kEnhancedPacket, epb));
}

Status PcapngWriter::close() {
    if (!file_) return Ok{};
    const bool flushed = std::fflush(file_) == 0;
    const int e = errno;
    const bool closed = std::fclose(file_) == 0;
    file_ = nullptr;
    if (!flushed || !closed) return make_error(path_ + ": " + std::strerror(flushed ? errno : e));
    return Ok{};
}

}  // namespace pmdfwd
