// Tables, human units and watch rates (see render.hpp). Pure functions on
// pmdctl's only thread; a field missing from a record prints as "-".
#include "render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "latency_histogram.hpp"
#include "record_fields.hpp"
#include "recycle_counts.hpp"

namespace pmdctl {

std::string format(const char* fmt, double v) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), fmt, v);
    return buf;
}

bool has(const Json& rec, const std::string& key) { return rec.is_object() && rec.contains(key); }

// A counter field; missing, negative or non-numeric reads as 0.
uint64_t u64(const Json& rec, const std::string& key) {
    if (!has(rec, key)) return 0;
    const Json& v = rec.at(key);
    if (v.is_number_unsigned()) return v.get<uint64_t>();
    if (v.is_number_integer()) return v.get<int64_t>() < 0 ? 0 : uint64_t(v.get<int64_t>());
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (!(d > 0)) return 0;
        return d >= 18446744073709551615.0 ? UINT64_MAX : uint64_t(d);
    }
    return 0;
}

std::string text(const Json& rec, const std::string& key) {
    return has(rec, key) ? scalar_text(rec.at(key)) : "-";
}

std::string count_cell(const Json& rec, const std::string& key) {
    return has(rec, key) ? human_count(u64(rec, key)) : "-";
}

namespace {

constexpr const char* kSiSuffixes[] = {"", "K", "M", "G", "T", "P", "E"};
constexpr size_t kSiSuffixCount = sizeof(kSiSuffixes) / sizeof(kSiSuffixes[0]);
// JSON rates keep 6 decimals: 1 pps in Mpps, more than any interval resolves.
constexpr double kJsonRateScale = 1e6;

std::string bytes_cell(const Json& rec, const std::string& key) {
    return has(rec, key) ? human_bytes(u64(rec, key)) : "-";
}

bool is_drop_reason(const std::string& key) { return key.starts_with("drop_"); }
bool is_burst_bucket(const std::string& key) { return key.starts_with("burst_"); }

// "burst_2_3" -> "2-3", "burst_512_up" -> "512+".
std::string burst_header(const std::string& key) {
    std::string h = key.substr(std::string_view("burst_").size());
    if (h.size() > 3 && h.compare(h.size() - 3, 3, "_up") == 0)
        return h.substr(0, h.size() - 3) + "+";
    std::replace(h.begin(), h.end(), '_', '-');
    return h;
}

// "  name: key=value ..." for every field no table showed, so fields added to
// pmdfwd reach the operator without a pmdctl change.
std::string details_line(const std::string& label, const Json& rec,
                         const std::set<std::string>& shown) {
    std::string line;
    for (const auto& [key, value] : rec.items()) {
        if (shown.count(key)) continue;
        line += ' ' + key + '=' + scalar_text(value);
    }
    return line.empty() ? "" : "  " + label + ':' + line + '\n';
}

// "p0/0 -> p1/0"; a worker with no pair shows "-" as its destination.
std::string path_cell(const Json& w) {
    std::string s = text(w, "rx_port") + '/' + text(w, "rx_queue") + " -> ";
    const std::string tx = text(w, "tx_port");
    return tx == "-" ? s + "-" : s + tx + '/' + text(w, "tx_queue");
}

std::string speed_text(uint64_t mbps) {
    if (mbps >= 1000) {
        return mbps % 1000 ? format("%.1fG", double(mbps) / 1000)
                           : std::to_string(mbps / 1000) + "G";
    }
    return std::to_string(mbps) + "M";
}

std::string link_cell(const Json& p) {
    std::string link = text(p, "link");
    const uint64_t mbps = u64(p, "speed_mbps");
    if (link == "up" && mbps) link += ' ' + speed_text(mbps);
    return link;
}

std::string worker_label(const Json& w) { return "worker " + text(w, "worker"); }

// Union of keys over records, in first-seen order.
std::vector<std::string> all_keys(const std::vector<Json>& records) {
    std::vector<std::string> keys;
    std::set<std::string> seen;
    for (const auto& r : records)
        for (const auto& [key, value] : r.items())
            if (seen.insert(key).second) keys.push_back(key);
    return keys;
}

// ---- recycle pools -----------------------------------------------------------

// The recycle counters (recycle_counts.hpp) that get a column even when zero:
// where allocations were served from and where frees went. The others (the
// failures, the main lcore's frees, foreign allocations) get one only where
// some record has them non-zero, and are named under the table otherwise.
constexpr std::string_view kMainRecycleCounts[] = {"alloc_fast",    "alloc_slow", "refill_defer",
                                                   "refill_shared", "recycled",   "deferred",
                                                   "defer_full"};

// Where a recycle pool's free objects lie, as the pool record names them.
constexpr std::string_view kRecycleLevels[] = {"free_owner_store", "free_pending",
                                               "free_defer_rings", "free_shared_ring", "overflow"};

bool is_main_recycle_count(std::string_view name) {
    return std::find(std::begin(kMainRecycleCounts), std::end(kMainRecycleCounts), name) !=
           std::end(kMainRecycleCounts);
}

// A counter name as a narrow two-line header: "alloc_fast" is "fast" under
// "alloc", "free_defer_rings" (less "free_") "rings" under "defer".
Column split_column(std::string_view name) {
    const size_t cut = name.find('_');
    if (cut == std::string_view::npos) return {std::string(name)};
    return {std::string(name.substr(cut + 1)), Align::kRight, std::string(name.substr(0, cut))};
}

bool any_has(const std::vector<Json>& records, const std::string& key) {
    return std::any_of(records.begin(), records.end(), [&](const Json& r) { return has(r, key); });
}

struct RecycleView {
    std::string title;  // the line above the table
    Column label;       // the first column: which pool or worker
    std::string label_key;
    std::string prefix;  // of the counter fields: "" in pool records, "recycle_" in worker records
    std::string every;   // "pool", "worker": for the line naming all-zero counters
    bool in_flight = false;  // end with in_use, as "in flight"
};

// One row per record, one column per recycle counter some record has, in
// recycle_counts.hpp's order; a record without them (a stock pool) shows
// dashes. The counters it accounts for are added to shown. Empty when no
// record has any of the main ones.
std::string recycle_table(const std::vector<Json>& records, const RecycleView& view,
                          std::set<std::string>& shown) {
    std::vector<std::string> keys, zero;
    for (const auto& info : pmdfwd::kRecycleCountInfo) {
        const std::string key = view.prefix + info.name;
        if (!any_has(records, key)) continue;
        const bool nonzero =
            std::any_of(records.begin(), records.end(), [&](const Json& r) { return u64(r, key); });
        if (nonzero || is_main_recycle_count(info.name))
            keys.push_back(key);
        else
            zero.push_back(info.name);
    }
    if (keys.empty()) return "";
    shown.insert(keys.begin(), keys.end());
    for (const auto& z : zero) shown.insert(view.prefix + z);
    Table t;
    t.columns.push_back(view.label);
    for (const auto& k : keys) t.columns.push_back(split_column(k.substr(view.prefix.size())));
    if (view.in_flight) t.columns.push_back({"flight", Align::kRight, "in"});
    for (const auto& r : records) {
        std::vector<std::string> row{text(r, view.label_key)};
        for (const auto& k : keys) row.push_back(count_cell(r, k));
        if (view.in_flight) row.push_back(text(r, "in_use"));
        t.rows.push_back(std::move(row));
    }
    std::string out = "\n" + view.title + "\n" + t.render();
    if (!zero.empty()) {
        out += "  zero on every " + view.every + ":";
        for (const auto& z : zero) out += ' ' + z;
        out += '\n';
    }
    return out;
}

double round_for_json(double v) { return std::round(v * kJsonRateScale) / kJsonRateScale; }

}  // namespace

// ---- formatting --------------------------------------------------------------

std::string human_count(uint64_t n) {
    if (n < 1000) return std::to_string(n);
    double v = double(n);
    size_t suffix = 0;
    while (v >= 1000 && suffix + 1 < kSiSuffixCount) {
        v /= 1000;
        ++suffix;
    }
    // Pick the decimals that keep 3 significant digits after rounding; 999.6K
    // rounds to 1000, so it moves up a suffix instead.
    for (;;) {
        for (int decimals = 2; decimals >= 0; --decimals) {
            const double scale = std::pow(10.0, decimals);
            const double rounded = std::round(v * scale) / scale;
            if (rounded < 1000 / scale) {
                const char* fmt = decimals == 2 ? "%.2f" : decimals == 1 ? "%.1f" : "%.0f";
                return format(fmt, rounded) + kSiSuffixes[suffix];
            }
        }
        if (suffix + 1 == kSiSuffixCount) return format("%.0f", v) + kSiSuffixes[suffix];
        v /= 1000;
        ++suffix;
    }
}

std::string human_bytes(uint64_t n) { return human_count(n) + "B"; }

std::string percent(uint64_t part, uint64_t whole) {
    if (!whole) return "-";
    return format("%.1f%%", double(part) * 100.0 / double(whole));
}

std::string human_duration(uint64_t seconds) {
    const uint64_t h = seconds / 3600, m = seconds / 60 % 60, s = seconds % 60;
    char buf[48];
    if (h)
        std::snprintf(buf, sizeof(buf), "%luh%02lum%02lus", h, m, s);
    else if (m)
        std::snprintf(buf, sizeof(buf), "%lum%02lus", m, s);
    else
        std::snprintf(buf, sizeof(buf), "%lus", s);
    return buf;
}

std::string human_ns(uint64_t ns) {
    if (ns < 1000) return std::to_string(ns) + "ns";
    std::string s = human_count(ns);  // "1.02K", "16.4K", "1.05M", "2.15G"
    const char suffix = s.back();
    s.pop_back();
    if (suffix == 'K') return s + "us";
    if (suffix == 'M') return s + "ms";
    if (suffix == 'G') return s + "s";
    return format("%.0fs", double(ns) / 1e9);  // 1000 s and more: whole seconds
}

std::string scalar_text(const Json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
    if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
    if (v.is_number_float()) return format("%g", v.get<double>());
    return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// ---- tables ------------------------------------------------------------------

std::string Table::render() const {
    std::vector<size_t> widths(columns.size(), 0);
    bool over_line = false;
    if (show_header)
        for (size_t c = 0; c < columns.size(); ++c) {
            widths[c] = std::max(columns[c].header.size(), columns[c].over.size());
            over_line = over_line || !columns[c].over.empty();
        }
    for (const auto& row : rows)
        for (size_t c = 0; c < columns.size() && c < row.size(); ++c)
            widths[c] = std::max(widths[c], row[c].size());

    auto line = [&](auto&& cell_at) {
        std::string out;
        for (size_t c = 0; c < columns.size(); ++c) {
            const std::string& cell = cell_at(c);
            const std::string pad(widths[c] - cell.size(), ' ');
            if (c) out += "  ";
            out += columns[c].align == Align::kLeft ? cell + pad : pad + cell;
        }
        out.erase(out.find_last_not_of(' ') + 1);
        return out + '\n';
    };
    static const std::string kEmpty;
    std::string out;
    if (over_line) out += line([&](size_t c) -> const std::string& { return columns[c].over; });
    if (show_header) out += line([&](size_t c) -> const std::string& { return columns[c].header; });
    for (const auto& row : rows)
        out +=
            line([&](size_t c) -> const std::string& { return c < row.size() ? row[c] : kEmpty; });
    return out;
}

// ---- commands ----------------------------------------------------------------

std::string render_ports(const std::vector<Json>& ports) {
    if (ports.empty()) return "no ports\n";
    Table t;
    t.columns = {{"port", Align::kLeft},
                 {"driver", Align::kLeft},
                 {"link", Align::kLeft},
                 {"rx_pkts"},
                 {"tx_pkts"},
                 {"rx_bytes"},
                 {"tx_bytes"},
                 {"imissed"},
                 {"ierrors"},
                 {"oerrors"},
                 {"rx_nombuf"}};
    const std::set<std::string> shown = {"name",     "driver",   "link",    "speed_mbps",
                                         "ipackets", "opackets", "ibytes",  "obytes",
                                         "imissed",  "ierrors",  "oerrors", "rx_nombuf"};
    std::string details;
    for (const auto& p : ports) {
        t.rows.push_back({text(p, "name"), text(p, "driver"), link_cell(p),
                          count_cell(p, "ipackets"), count_cell(p, "opackets"),
                          bytes_cell(p, "ibytes"), bytes_cell(p, "obytes"),
                          count_cell(p, "imissed"), count_cell(p, "ierrors"),
                          count_cell(p, "oerrors"), count_cell(p, "rx_nombuf")});
        details += details_line(text(p, "name"), p, shown);
    }
    return t.render() + (details.empty() ? "" : "\n" + details);
}

std::string render_workers(const std::vector<Json>& workers) {
    if (workers.empty()) return "no workers\n";
    Table t;
    t.columns = {{"worker"},      {"lcore"},      {"rx -> tx", Align::kLeft},
                 {"rx_pkts"},     {"tx_pkts"},    {"drops"},
                 {"handoff_out"}, {"handoff_in"}, {"empty%"},
                 {"busy%"},       {"cyc/pkt"}};
    std::set<std::string> shown = {"worker",      "lcore",         "rx_port",        "rx_queue",
                                   "tx_port",     "tx_queue",      "rx_pkts",        "tx_pkts",
                                   "drops",       "handoff_out",   "handoff_in",     "polls",
                                   "empty_polls", "busy_permille", "cycles_per_pkt", "full_bursts"};
    for (const auto& w : workers) {
        const std::string busy =
            has(w, "busy_permille") ? format("%.1f%%", double(u64(w, "busy_permille")) / 10) : "-";
        t.rows.push_back(
            {text(w, "worker"), text(w, "lcore"), path_cell(w), count_cell(w, "rx_pkts"),
             count_cell(w, "tx_pkts"), count_cell(w, "drops"), count_cell(w, "handoff_out"),
             count_cell(w, "handoff_in"), percent(u64(w, "empty_polls"), u64(w, "polls")), busy,
             text(w, "cycles_per_pkt")});
    }
    std::string out = t.render();
    if (has(workers.front(), "poll")) out += render_time_split(workers);
    shown.insert(kTimeSplitKeys.begin(), kTimeSplitKeys.end());
    for (const auto& key : all_keys(workers))
        if (key.starts_with("latency_")) shown.insert(key);  // `pmdctl show latency`

    // Drop reasons: only the ones that happened, only on workers that had them.
    std::vector<std::string> reasons;
    std::vector<std::string> bursts;
    for (const auto& key : all_keys(workers)) {
        if (is_drop_reason(key)) {
            shown.insert(key);
            for (const auto& w : workers)
                if (u64(w, key)) {
                    reasons.push_back(key);
                    break;
                }
        } else if (is_burst_bucket(key)) {
            shown.insert(key);
            bursts.push_back(key);
        }
    }
    out += "\ndrops by reason:";
    if (reasons.empty()) {
        out += " none\n";
    } else {
        out += '\n';
        Table d;
        d.columns.push_back({"worker"});
        for (const auto& r : reasons)
            d.columns.push_back({r.substr(std::string_view("drop_").size())});
        for (const auto& w : workers) {
            bool any = false;
            std::vector<std::string> row{text(w, "worker")};
            for (const auto& r : reasons) {
                any = any || u64(w, r);
                row.push_back(count_cell(w, r));
            }
            if (any) d.rows.push_back(std::move(row));
        }
        out += d.render();
    }

    if (!bursts.empty()) {
        out += "\nrx burst sizes (polls that returned packets):\n";
        Table b;
        b.columns.push_back({"worker"});
        for (const auto& k : bursts) b.columns.push_back({burst_header(k)});
        const bool full = has(workers.front(), "full_bursts");
        if (full) b.columns.push_back({"full"});
        for (const auto& w : workers) {
            std::vector<std::string> row{text(w, "worker")};
            for (const auto& k : bursts) row.push_back(count_cell(w, k));
            if (full) row.push_back(count_cell(w, "full_bursts"));
            b.rows.push_back(std::move(row));
        }
        out += b.render();
    }

    out +=
        recycle_table(workers,
                      {.title = "recycle counters on each worker's lcore (since the last clear):",
                       .label = {"worker"},
                       .label_key = "worker",
                       .prefix = "recycle_",
                       .every = "worker"},
                      shown);

    std::string details;
    for (const auto& w : workers) details += details_line(worker_label(w), w, shown);
    if (!details.empty()) out += "\nother counters:\n" + details;
    return out;
}

std::string render_pools(const std::vector<Json>& pools) {
    if (pools.empty()) return "no pools\n";
    Table t;
    t.columns = {{"name", Align::kLeft},
                 {"ops", Align::kLeft},
                 {"owner"},
                 {"socket"},
                 {"size"},
                 {"cache_size"},
                 {"avail"},
                 {"in_use"},
                 {"use%"},
                 {"present_unclamped"}};
    std::set<std::string> shown = {"name",       "ops",   "owner_lcore", "socket",           "size",
                                   "cache_size", "avail", "in_use",      "present_unclamped"};
    for (const auto& p : pools) {
        const std::string use =
            has(p, "in_use") ? percent(u64(p, "in_use"), u64(p, "size")) : std::string("-");
        t.rows.push_back({text(p, "name"), text(p, "ops"), text(p, "owner_lcore"),
                          text(p, "socket"), text(p, "size"), text(p, "cache_size"),
                          text(p, "avail"), text(p, "in_use"), use, text(p, "present_unclamped")});
    }
    std::string out = t.render();

    out += recycle_table(pools,
                         {.title = "recycle counters (since the last clear):",
                          .label = {"pool", Align::kLeft},
                          .label_key = "name",
                          .prefix = "",
                          .every = "pool",
                          .in_flight = true},
                         shown);

    std::vector<std::string> levels;
    for (const auto& k : kRecycleLevels)
        if (any_has(pools, std::string(k))) levels.emplace_back(k);
    if (!levels.empty()) {
        Table l;
        l.columns.push_back({"pool", Align::kLeft});
        for (const auto& k : levels) {
            shown.insert(k);
            const std::string_view level_prefix = "free_";
            l.columns.push_back(
                split_column(k.starts_with(level_prefix) ? k.substr(level_prefix.size()) : k));
        }
        for (const auto& p : pools) {
            std::vector<std::string> row{text(p, "name")};
            for (const auto& k : levels) row.push_back(text(p, k));
            l.rows.push_back(std::move(row));
        }
        out += "\nfree objects by place:\n" + l.render();
    }

    std::string details;
    for (const auto& p : pools) details += details_line(text(p, "name"), p, shown);
    if (!details.empty()) out += "\nother fields:\n" + details;
    return out;
}

std::string render_xstats(const std::vector<std::pair<std::string, Json>>& ports, bool all) {
    std::string out;
    for (const auto& [name, xstats] : ports) {
        Table t;
        t.show_header = false;
        t.columns = {{"name", Align::kLeft}, {"value", Align::kRight}};
        size_t hidden = 0;
        if (xstats.is_object()) {
            for (const auto& [key, value] : xstats.items()) {
                if (!all && value.is_number() && value == 0) {
                    ++hidden;
                    continue;
                }
                t.rows.push_back({"  " + key, scalar_text(value)});
            }
        }
        out += (out.empty() ? "" : "\n") + name + ":\n" + t.render();
        if (hidden)
            out += "  (" + std::to_string(hidden) + " zero counters hidden; --all shows them)\n";
    }
    return out.empty() ? "no ports\n" : out;
}

namespace {

constexpr std::string_view kLatencyBucketPrefix = "latency_bucket_";

// The bucket index of a "latency_bucket_<i>" key; nullopt for any other key.
std::optional<size_t> latency_bucket_index(const std::string& key) {
    if (!key.starts_with(kLatencyBucketPrefix)) return std::nullopt;
    const std::string digits = key.substr(kLatencyBucketPrefix.size());
    if (digits.empty() || digits.size() > 2 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    const size_t i = std::stoul(digits);
    return i < 64 ? std::optional<size_t>(i) : std::nullopt;
}

// "[256ns, 512ns)"; bucket 0 also holds 0 and 1; the last bucket pmdfwd has
// (latency_bucket() clamps into it) has no upper bound.
std::string latency_bucket_label(size_t i) {
    const std::string lo = i == 0 ? "0" : human_ns(uint64_t(1) << i);
    const bool open = i + 1 >= pmdfwd::kLatencyBuckets || i == 63;
    return "[" + lo + ", " + (open ? std::string("...") : human_ns(uint64_t(2) << i)) + ")";
}

bool is_off(const Json& log) {
    if (!log.is_object() || !log.contains("enabled")) return false;
    const Json& e = log.at("enabled");
    return (e.is_string() && e.get<std::string>() == "false") || (e.is_boolean() && !e.get<bool>());
}

}  // namespace

std::string render_latency_histogram(const Json& log, size_t bar_width) {
    std::map<size_t, uint64_t> buckets;
    if (log.is_object())
        for (const auto& [key, value] : log.items())
            if (const auto i = latency_bucket_index(key); i && u64(log, key))
                buckets[*i] = u64(log, key);
    if (buckets.empty()) return "";
    const size_t first = buckets.begin()->first, last = buckets.rbegin()->first;
    uint64_t most = 0;
    for (const auto& [i, n] : buckets) most = std::max(most, n);

    // Every bucket from the first non-empty one to the last, empty ones too,
    // as bpftrace prints them: labels left-aligned, counts right-aligned.
    std::vector<std::pair<std::string, std::string>> rows;
    size_t label_w = 0, count_w = 0;
    for (size_t i = first; i <= last; ++i) {
        const auto it = buckets.find(i);
        rows.emplace_back(latency_bucket_label(i),
                          std::to_string(it == buckets.end() ? 0 : it->second));
        label_w = std::max(label_w, rows.back().first.size());
        count_w = std::max(count_w, rows.back().second.size());
    }
    std::string out;
    for (size_t i = first; i <= last; ++i) {
        const auto& [label, count] = rows[i - first];
        const auto it = buckets.find(i);
        const uint64_t n = it == buckets.end() ? 0 : it->second;
        const size_t bar =
            std::min(bar_width, size_t(double(n) * double(bar_width) / double(most)));
        out += label + std::string(label_w - label.size(), ' ') + "  " +
               std::string(count_w - count.size(), ' ') + count + " |" + std::string(bar, '@') +
               std::string(bar_width - bar, ' ') + "|\n";
    }
    return out;
}

std::string render_log(const Json& log) {
    if (is_off(log)) return "log channel: off (set [netlog] enabled = true)\n";

    // Every field read here is marked shown; the rest go to "other fields".
    std::set<std::string> shown = {"enabled"};
    const auto str = [&](const std::string& key) {
        shown.insert(key);
        return text(log, key);
    };
    const auto num = [&](const std::string& key) {
        shown.insert(key);
        return count_cell(log, key);
    };
    const auto bytes = [&](const std::string& key) {
        shown.insert(key);
        return bytes_cell(log, key);
    };
    const auto ns = [&](const std::string& key) {
        shown.insert(key);
        return has(log, key) ? human_ns(u64(log, key)) : std::string("-");
    };

    Table t;
    t.show_header = false;
    t.columns = {{"key", Align::kLeft}, {"value", Align::kLeft}};
    t.rows.push_back({"destination", str("dst") + " (" + str("dst_mac") + ") from " + str("src") +
                                         " via " + str("port") + " txq " + str("queue")});
    t.rows.push_back({"format", str("format")});
    t.rows.push_back({"level", str("level")});
    t.rows.push_back({"send path", str("send_path")});
    std::string rate = str("rate_limit");
    if (has(log, "rate_limit")) rate = u64(log, "rate_limit") ? rate + " datagrams/s" : "none";
    t.rows.push_back({"rate limit", rate});
    t.rows.push_back({"sent", num("records") + " records, " + num("datagrams") + " datagrams, " +
                                  bytes("bytes")});
    // Drop reasons: only the ones that happened, in pmdfwd's order.
    std::string dropped = num("dropped");
    std::string sep = ": ";
    if (log.is_object())
        for (const auto& [key, value] : log.items()) {
            if (!is_drop_reason(key)) continue;
            shown.insert(key);
            if (!u64(log, key)) continue;
            dropped += sep + key.substr(std::string_view("drop_").size()) + ' ' + num(key);
            sep = ", ";
        }
    t.rows.push_back({"dropped", dropped});
    t.rows.push_back({"reserve", str("reserve_free") + '/' + str("reserve_size") + " free"});
    t.rows.push_back({"pre-filled", str("prefilled") + '/' + str("prefill_target") + ", refilled " +
                                        num("refilled") + ", inline refills " +
                                        num("inline_refills") + ", reserve allocs " +
                                        num("reserve_allocs")});
    t.rows.push_back({"emergency", num("emergency_sends") + " sends"});
    std::string out = t.render();

    const std::string histogram = render_latency_histogram(log);
    if (log.is_object())
        for (const auto& [key, value] : log.items())
            if (latency_bucket_index(key)) shown.insert(key);
    const std::string sends = num("latency_count");
    const std::string line = "p50 <= " + ns("latency_p50_ns") + "  p90 <= " + ns("latency_p90_ns") +
                             "  p99 <= " + ns("latency_p99_ns") + "  max " + ns("latency_max_ns") +
                             "  avg " + ns("latency_avg_ns") + '\n';
    if (!u64(log, "latency_count") && histogram.empty()) {
        out += "\nsend latency: no sends yet\n";
    } else {
        out += "\nsend latency (" + sends +
               " datagrams, each from taking its buffer to the TX queue):\n" + histogram + line +
               "(p50/p90/p99: the upper edge of the log2 bucket the percentile falls in)\n";
    }

    const std::string details = details_line("log", log, shown);
    if (!details.empty()) out += "\nother fields:\n" + details;
    return out;
}

std::string render_plan(const Json& info, const Json& plan_lines) {
    Table t;
    t.show_header = false;
    t.columns = {{"key", Align::kLeft}, {"value", Align::kLeft}};
    if (info.is_object()) {
        for (const auto& [key, value] : info.items()) {
            std::string v = scalar_text(value);
            if (key == "uptime_s" && (value.is_number_unsigned() || value.is_number_integer()))
                v += " (" + human_duration(u64(info, key)) + ")";
            t.rows.push_back({key, v});
        }
    }
    std::string out = t.render();
    if (plan_lines.is_array()) {
        out += "\nplan:\n";
        for (const auto& line : plan_lines) out += "  " + scalar_text(line) + '\n';
    }
    return out;
}

std::string render_stats(const Json& totals, const std::vector<Json>& workers) {
    Table t;
    t.show_header = false;
    t.columns = {{"key", Align::kLeft}, {"value"}, {"human"}};
    if (totals.is_object()) {
        for (const auto& [key, value] : totals.items()) {
            std::string human;
            // Ratios (busy_permille, cycles_per_pkt) read better raw.
            const bool ratio = key.find("per") != std::string::npos;
            const bool number = value.is_number_unsigned() || value.is_number_integer();
            if (number && !ratio && u64(totals, key) >= 1000)
                human = key.find("bytes") != std::string::npos ? human_bytes(u64(totals, key))
                                                               : human_count(u64(totals, key));
            t.rows.push_back({key, scalar_text(value), human});
        }
    }
    std::string out = "totals:\n" + t.render();
    if (workers.empty()) return out;

    Table w;
    w.show_header = false;
    w.columns = {{"w", Align::kLeft},
                 {"lcore", Align::kLeft},
                 {"path", Align::kLeft},
                 {"rx", Align::kLeft},
                 {"rx_v"},
                 {"tx", Align::kLeft},
                 {"tx_v"},
                 {"d", Align::kLeft},
                 {"d_v"},
                 {"handoff", Align::kLeft},
                 {"out_v"},
                 {"in", Align::kLeft},
                 {"in_v"},
                 {"busy", Align::kLeft},
                 {"busy_v"}};
    for (const auto& r : workers) {
        const std::string busy =
            has(r, "busy_permille") ? format("%.1f%%", double(u64(r, "busy_permille")) / 10) : "-";
        w.rows.push_back({worker_label(r), "lcore " + text(r, "lcore"), path_cell(r), "rx",
                          count_cell(r, "rx_pkts"), "tx", count_cell(r, "tx_pkts"), "drops",
                          count_cell(r, "drops"), "handoff out", count_cell(r, "handoff_out"), "in",
                          count_cell(r, "handoff_in"), "busy", busy});
    }
    return out + "\nper worker:\n" + w.render();
}

// ---- watch -------------------------------------------------------------------

WorkerCounters worker_counters(const Json& w) {
    WorkerCounters c;
    c.worker = u64(w, "worker");
    c.rx_pkts = u64(w, "rx_pkts");
    c.rx_bytes = u64(w, "rx_bytes");
    c.tx_pkts = u64(w, "tx_pkts");
    c.tx_bytes = u64(w, "tx_bytes");
    c.drops = u64(w, "drops");
    return c;
}

std::vector<RateRow> compute_rates(const Snapshot& prev, const Snapshot& cur) {
    const double dt = cur.t_s - prev.t_s;
    auto delta = [](uint64_t now, uint64_t before) { return now >= before ? now - before : now; };
    auto fill_rates = [dt](RateRow& r) {
        if (dt <= 0) return;
        r.rx_mpps = double(r.rx_pkts) / dt / 1e6;
        r.tx_mpps = double(r.tx_pkts) / dt / 1e6;
        r.rx_gbps = double(r.rx_bytes) * 8 / dt / 1e9;
        r.tx_gbps = double(r.tx_bytes) * 8 / dt / 1e9;
        r.drops_per_s = double(r.drops) / dt;
    };
    std::map<uint64_t, const WorkerCounters*> before;
    for (const auto& w : prev.workers) before[w.worker] = &w;

    std::vector<RateRow> rows;
    RateRow total;
    for (const auto& w : cur.workers) {
        const auto it = before.find(w.worker);
        if (it == before.end()) continue;
        const WorkerCounters& p = *it->second;
        RateRow r;
        r.worker = w.worker;
        r.rx_pkts = delta(w.rx_pkts, p.rx_pkts);
        r.rx_bytes = delta(w.rx_bytes, p.rx_bytes);
        r.tx_pkts = delta(w.tx_pkts, p.tx_pkts);
        r.tx_bytes = delta(w.tx_bytes, p.tx_bytes);
        r.drops = delta(w.drops, p.drops);
        fill_rates(r);
        total.rx_pkts += r.rx_pkts;
        total.rx_bytes += r.rx_bytes;
        total.tx_pkts += r.tx_pkts;
        total.tx_bytes += r.tx_bytes;
        total.drops += r.drops;
        rows.push_back(std::move(r));
    }
    fill_rates(total);
    rows.push_back(std::move(total));
    return rows;
}

std::string render_rates(const std::vector<RateRow>& rows, double elapsed_s, double interval_s) {
    Table t;
    t.columns = {{"worker", Align::kLeft},
                 {"rx Mpps"},
                 {"tx Mpps"},
                 {"rx Gbit/s"},
                 {"tx Gbit/s"},
                 {"drops/s"}};
    for (const auto& r : rows) {
        t.rows.push_back({r.worker ? std::to_string(*r.worker) : "total", format("%.3f", r.rx_mpps),
                          format("%.3f", r.tx_mpps), format("%.3f", r.rx_gbps),
                          format("%.3f", r.tx_gbps),
                          human_count(uint64_t(std::llround(r.drops_per_s)))});
    }
    return format("t=%.2fs", elapsed_s) + format("  interval %.2fs\n", interval_s) + t.render();
}

Json rates_json(const std::vector<RateRow>& rows, double elapsed_s, double interval_s) {
    auto row_json = [](const RateRow& r) {
        Json j;
        if (r.worker) j["worker"] = *r.worker;
        j["rx_pkts"] = r.rx_pkts;
        j["tx_pkts"] = r.tx_pkts;
        j["rx_bytes"] = r.rx_bytes;
        j["tx_bytes"] = r.tx_bytes;
        j["drops"] = r.drops;
        j["rx_mpps"] = round_for_json(r.rx_mpps);
        j["tx_mpps"] = round_for_json(r.tx_mpps);
        j["rx_gbps"] = round_for_json(r.rx_gbps);
        j["tx_gbps"] = round_for_json(r.tx_gbps);
        j["drops_per_s"] = round_for_json(r.drops_per_s);
        return j;
    };
    Json out;
    out["t_s"] = round_for_json(elapsed_s);
    out["interval_s"] = round_for_json(interval_s);
    out["workers"] = Json::array();
    for (const auto& r : rows) {
        if (r.worker)
            out["workers"].push_back(row_json(r));
        else
            out["total"] = row_json(r);
    }
    return out;
}

}  // namespace pmdctl
