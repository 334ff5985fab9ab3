// Declared endpoints bound to their handlers (see endpoint_binding.hpp).
// Telemetry threads run the dispatcher; modules bind and unbind from the
// main lcore.
#include "endpoint_binding.hpp"

#include <rte_telemetry.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <charconv>
#include <map>
#include <mutex>
#include <utility>

#include "control.hpp"

namespace pmdfwd {

namespace {

// By path: the live binding's id and handler, while its module runs.
struct Bound {
    uint64_t id = 0;
    EndpointHandler handler;
};
// Never destroyed: a binding that outlives them at exit (an appliance not
// shut down) must still find them, whatever order statics go in.
std::mutex& g_mutex = *new std::mutex;
auto& g_bound = *new std::map<std::string_view, Bound>;
auto& g_declared = *new std::map<std::string_view, const Endpoint*>;
uint64_t g_next_id = 1;

std::string clip(std::string_view s) {
    return std::string(s.substr(0, std::min<size_t>(s.size(), RTE_TEL_MAX_STRING_LEN - 1)));
}

int dispatch(const char* cmd, const char* params, rte_tel_data* d) {
    std::lock_guard lock(g_mutex);
    Reply reply(d);
    const std::string_view path(cmd);
    if (const auto bound = g_bound.find(path); bound != g_bound.end())
        return bound->second.handler(params ? std::string_view(params) : std::string_view(), reply);
    const auto declared = g_declared.find(path);
    reply.error(!control_attached() || declared == g_declared.end()
                    ? std::string_view("pmdfwd is shutting down")
                    : declared->second->unserved);
    return 0;
}

// The type a column of a page takes on the wire: a number for what counts
// or measures, text for the rest.
bool numeric_column(const Field& f) { return f.kind == Kind::counter || f.kind == Kind::gauge; }

}  // namespace

void Reply::record(const Record& r) {
    rte_tel_data_start_dict(d_);
    r.for_each_wire([&](std::string_view key, const WireValue& value) {
        const std::string name(key);
        if (const auto* u = std::get_if<uint64_t>(&value)) {
            rte_tel_data_add_dict_u64(d_, name.c_str(), *u);
        } else if (const auto* s = std::get_if<std::string>(&value)) {
            rte_tel_data_add_dict_string(d_, name.c_str(), clip(*s).c_str());
        } else {
            // A histogram's edges and counts: a u64 array, which DPDK
            // 22.11 nests one level deep.
            const auto& a = std::get<std::vector<uint64_t>>(value);
            rte_tel_data* array = rte_tel_data_alloc();
            if (!array) return;
            rte_tel_data_start_array(array, RTE_TEL_U64_VAL);
            for (size_t i = 0; i < a.size() && i < RTE_TEL_MAX_ARRAY_ENTRIES; ++i)
                rte_tel_data_add_array_u64(array, a[i]);
            if (rte_tel_data_add_dict_container(d_, name.c_str(), array, 0) != 0)
                rte_tel_data_free(array);
        }
    });
}

void Reply::error(std::string_view message) {
    rte_tel_data_start_dict(d_);
    rte_tel_data_add_dict_string(d_, "error", clip(message).c_str());
}

void Reply::ids(size_t count) {
    rte_tel_data_start_array(d_, RTE_TEL_U64_VAL);
    for (size_t i = 0; i < count; ++i) rte_tel_data_add_array_u64(d_, i);
}

void Reply::lines(const std::vector<std::string>& lines) {
    rte_tel_data_start_array(d_, RTE_TEL_STRING_VAL);
    for (const auto& line : lines) rte_tel_data_add_array_string(d_, clip(line).c_str());
}

void Reply::page(const RecordSchema& schema, std::span<const Record> rows, size_t first,
                 size_t total) {
    rte_tel_data_start_dict(d_);
    rte_tel_data_add_dict_u64(d_, "total", total);
    rte_tel_data_add_dict_u64(d_, "first", first);
    for (size_t i = 0; i < schema.fields.size(); ++i) {
        const Field& f = schema.fields[i];
        const FieldId id{uint16_t(i)};
        rte_tel_data* column = rte_tel_data_alloc();
        if (!column) return;
        if (numeric_column(f)) {
            rte_tel_data_start_array(column, RTE_TEL_U64_VAL);
            for (const Record& r : rows) {
                const uint64_t* n = r.number(id);
                rte_tel_data_add_array_u64(column, n ? *n : 0);
            }
        } else {
            rte_tel_data_start_array(column, RTE_TEL_STRING_VAL);
            for (const Record& r : rows) {
                const std::string* s = r.text(id);
                rte_tel_data_add_array_string(column, s ? clip(*s).c_str() : "-");
            }
        }
        if (rte_tel_data_add_dict_container(d_, std::string(f.key).c_str(), column, 0) != 0)
            rte_tel_data_free(column);
    }
}

// The newest binding of an endpoint serves it; an older one going away
// (an appliance replaced by another in one process) leaves it be.
EndpointBinding::EndpointBinding(const Endpoint& endpoint, EndpointHandler handler)
    : endpoint_(&endpoint) {
    std::lock_guard lock(g_mutex);
    id_ = g_next_id++;
    g_bound[endpoint.path] = Bound{id_, std::move(handler)};
}

EndpointBinding::~EndpointBinding() {
    if (!endpoint_) return;
    std::lock_guard lock(g_mutex);
    if (const auto it = g_bound.find(endpoint_->path); it != g_bound.end() && it->second.id == id_)
        g_bound.erase(it);
}

EndpointBinding::EndpointBinding(EndpointBinding&& other) noexcept
    : endpoint_(std::exchange(other.endpoint_, nullptr)), id_(other.id_) {}

void register_endpoints(std::span<const Endpoint* const> endpoints) {
    static std::once_flag registered;
    std::call_once(registered, [&] {
        std::lock_guard lock(g_mutex);
        for (const Endpoint* e : endpoints) {
            g_declared[e->path] = e;
            if (const int rc = rte_telemetry_register_cmd(std::string(e->path).c_str(), dispatch,
                                                          std::string(e->help).c_str());
                rc != 0)
                spdlog::error("telemetry: cannot register {}: {}", e->path, rc);
        }
    });
}

bool endpoint_served(const Endpoint& endpoint) {
    std::lock_guard lock(g_mutex);
    return g_bound.contains(endpoint.path);
}

std::mutex& control_mutex() { return g_mutex; }

std::vector<std::string> split_params(std::string_view p) {
    std::vector<std::string> out;
    while (!p.empty()) {
        const size_t comma = p.find(',');
        out.emplace_back(p.substr(0, comma));
        if (comma == std::string_view::npos) break;
        p.remove_prefix(comma + 1);
    }
    return out;
}

bool parse_index(std::string_view params, size_t limit, size_t& out) {
    if (params.empty()) return false;
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(params.data(), params.data() + params.size(), v);
    if (ec != std::errc() || end != params.data() + params.size() || v >= limit) return false;
    out = size_t(v);
    return true;
}

}  // namespace pmdfwd
