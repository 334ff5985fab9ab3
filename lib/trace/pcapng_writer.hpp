// A pcapng file (draft-ietf-opsawg-pcapng) of Ethernet frames, each with a
// comment: what the drop capture writes, one frame a dropped packet and its
// reason, worker, port and time in the comment, which Wireshark shows and
// `tshark -T fields -e frame.comment` prints. DPDK 22.11's rte_pcapng has
// no per-packet comment, hence this. No DPDK: the frames are bytes.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"

namespace pmdfwd {

class PcapngWriter {
  public:
    // Opens (truncates) path and writes the section header and one
    // Ethernet interface per name, nanosecond timestamps, frames cut at
    // snaplen.
    static Result<std::unique_ptr<PcapngWriter>> create(const std::string& path,
                                                        std::span<const std::string> interfaces,
                                                        uint32_t snaplen = 65535);
    ~PcapngWriter();
    PcapngWriter(const PcapngWriter&) = delete;
    PcapngWriter& operator=(const PcapngWriter&) = delete;

    // One enhanced packet block; frame is cut at snaplen, original_len is
    // the frame's length on the wire.
    Status write(uint32_t interface, uint64_t time_ns, std::span<const uint8_t> frame,
                 uint32_t original_len, std::string_view comment);
    // Flushes and closes; an error if any write failed.
    Status close();

  private:
    PcapngWriter() = default;
    Status put(const std::vector<uint8_t>& block);
    std::FILE* file_ = nullptr;
    std::string path_;
    uint32_t interfaces_ = 0;
    uint32_t snaplen_ = 0;
};

}  // namespace pmdfwd
