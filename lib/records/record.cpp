// Record lookup and log lines (see record.hpp).
#include "record.hpp"

namespace pmdfwd {

std::optional<WireValue> Record::get(std::string_view wire_key) const {
    std::optional<WireValue> out;
    for_each_wire([&](std::string_view key, const WireValue& v) {
        if (!out && key == wire_key) out = v;
    });
    return out;
}

WireValue Record::histogram_wire_value(const HistogramView& h, size_t i) {
    // In kHistogramWire's order.
    switch (i) {
        case 0:
            return h.count;
        case 1:
            return h.sum_ns;
        case 2:
            return h.min_ns;
        case 3:
            return h.avg_ns();
        case 4:
            return h.percentile_ns(0.50);
        case 5:
            return h.percentile_ns(0.90);
        case 6:
            return h.percentile_ns(0.99);
        case 7:
            return h.percentile_ns(0.999);
        case 8:
            return h.max_ns;
        case 9:
            return h.le_ns;
        default:
            return h.counts;
    }
}
static_assert(std::size(kHistogramWire) == 11);

std::string Record::to_line() const {
    std::string out;
    for_each_wire([&](std::string_view key, const WireValue& value) {
        if (!out.empty()) out += ' ';
        out += std::string(key) + '=';
        if (const auto* u = std::get_if<uint64_t>(&value)) {
            out += std::to_string(*u);
        } else if (const auto* s = std::get_if<std::string>(&value)) {
            out += *s;
        } else {
            const auto& a = std::get<std::vector<uint64_t>>(value);
            for (size_t i = 0; i < a.size(); ++i) out += (i ? "," : "") + std::to_string(a[i]);
        }
    });
    return out;
}

}  // namespace pmdfwd
