// The control protocol as a whole (see protocol.hpp).
#include "protocol.hpp"

namespace pmdfwd {

std::string endpoint_paths(const RecordSchema& s) {
    std::string out;
    for (const Endpoint* e : kEndpoints)
        if (e->schema == &s) out += (out.empty() ? "" : ", ") + std::string(e->path);
    return out;
}

const std::vector<RecordMetrics>& exported_metrics() {
    static const std::vector<RecordMetrics> all = [] {
        std::vector<RecordMetrics> v;
        for (const RecordSchema* s : kScrapedSchemas)
            v.push_back(record_metrics(*s, endpoint_paths(*s)));
        return v;
    }();
    return all;
}

std::string metrics_markdown() { return metrics_markdown(exported_metrics()); }

}  // namespace pmdfwd
