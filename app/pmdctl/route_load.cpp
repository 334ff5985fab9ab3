// pmdctl route load (see route_load.hpp).
#include "route_load.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "record_view.hpp"
#include "router_api.hpp"
#include "telemetry_filter.hpp"

namespace pmdctl {

namespace {

struct Word {
    std::string text;
    size_t column;  // 1 up
};

std::vector<Word> words_of(const std::string& line) {
    std::vector<Word> words;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (i >= line.size() || line[i] == '#') break;
        const size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '#') ++i;
        words.push_back({line.substr(start, i - start), start + 1});
    }
    return words;
}

// A word that goes into a request as it is: no separator of the request
// (',' between parameters, ';' between items) and nothing unprintable.
std::string bad_character(const Word& w) {
    for (const char c : w.text)
        if (c == ',' || c == ';' || c == '"' || c == '\\' || uint8_t(c) < 0x21 || uint8_t(c) > 0x7e)
            return "'" + w.text + "' holds '" + std::string(1, c) + "'";
    return {};
}

}  // namespace

pmdfwd::Result<std::vector<RouteLoadBatch>> plan_route_load(std::istream& in,
                                                            const std::string& file,
                                                            size_t max_params) {
    std::vector<RouteLoadBatch> batches(1);
    std::string path_now;  // the batch's last `=` item
    std::string line;
    size_t number = 0;
    const auto error_at = [&](size_t column, const std::string& why) {
        return pmdfwd::make_error(file + ":" + std::to_string(number) + ":" +
                                  std::to_string(column) + ": " + why);
    };
    const auto put = [&](const std::string& item) {
        RouteLoadBatch& b = batches.back();
        b.params += (b.params.empty() ? "" : ";") + item;
        b.lines.push_back(number);
    };
    while (std::getline(in, line)) {
        ++number;
        std::vector<Word> w = words_of(line);
        if (w.empty()) continue;
        for (const Word& word : w)
            if (const std::string why = bad_character(word); !why.empty())
                return error_at(word.column, why);
        bool remove = false;
        if (w[0].text == "add" || w[0].text == "del") {
            remove = w[0].text == "del";
            w.erase(w.begin());
            if (w.empty()) return error_at(line.size() + 1, "a prefix must follow");
        }
        const Word& prefix = w[0];
        std::string via = "-", port;
        for (size_t i = 1; i < w.size(); i += 2) {
            if (remove) return error_at(w[i].column, "del takes a prefix only");
            if (i + 1 >= w.size())
                return error_at(w[i].column, "'" + w[i].text + "' needs a value");
            if (w[i].text == "via" && via == "-")
                via = w[i + 1].text;
            else if (w[i].text == "port" && port.empty())
                port = w[i + 1].text;
            else
                return error_at(w[i].column, "'" + w[i].text +
                                                 "': expected via GATEWAY or port NAME, once each");
        }
        if (!remove && via == "-" && port.empty())
            return error_at(prefix.column + prefix.text.size(),
                            "a route needs via GATEWAY, port NAME or both");
        const std::string path = remove ? "" : "=" + via + (port.empty() ? "" : "," + port);
        const std::string item = (remove ? "-" : "+") + prefix.text;
        const size_t more = item.size() + 1 + (remove || path == path_now ? 0 : path.size() + 1);
        if (more > max_params) return error_at(prefix.column, "the line is too long for a request");
        if (batches.back().params.size() + more > max_params) {
            batches.emplace_back();
            path_now.clear();
        }
        if (!remove && path != path_now) {
            put(path);
            path_now = path;
        }
        put(item);
    }
    if (in.bad()) return pmdfwd::make_error(file + ": cannot read it");
    if (batches.back().params.empty()) batches.pop_back();
    return batches;
}

void run_route_load(TelemetryClient& client, const std::string& file, bool json) {
    std::ifstream in(file);
    if (!in) throw Failure(file + ": cannot open it");
    // The request is "/pmdfwd/route_batch," and the parameters.
    const auto& ep = pmdfwd::endpoints::kRouteBatch;
    const size_t max_params = pmdfwd::kTelemetryMaxRequest - ep.path.size() - 1;
    auto planned = plan_route_load(in, file, max_params);
    if (!planned) throw Failure(planned.error().message);
    constexpr size_t kRefusalsShown = 20;
    constexpr FieldRef kAdded = pmdfwd::kRouteBatchRecord.ref("added");
    constexpr FieldRef kDeleted = pmdfwd::kRouteBatchRecord.ref("deleted");
    constexpr FieldRef kRefused = pmdfwd::kRouteBatchRecord.ref("refused");
    constexpr FieldRef kFirstRefused = pmdfwd::kRouteBatchRecord.ref("first_refused");
    constexpr FieldRef kError = pmdfwd::kRouteBatchRecord.ref("refusal");
    uint64_t added = 0, deleted = 0, refused = 0, shown = 0;
    const auto start = std::chrono::steady_clock::now();
    for (const RouteLoadBatch& b : *planned) {
        auto reply = client.query(ep, b.params);
        if (!reply) throw Failure(reply.error().message);
        const Json& r = *reply;
        added += u64(r, kAdded);
        deleted += u64(r, kDeleted);
        const uint64_t no = u64(r, kRefused);
        refused += no;
        if (no && shown < kRefusalsShown) {
            const uint64_t at = u64(r, kFirstRefused);
            const size_t line = at < b.lines.size() ? b.lines[at] : 0;
            std::fprintf(
                stderr, "pmdctl: %s:%zu: %s%s\n", file.c_str(), line, text(r, kError).c_str(),
                no > 1
                    ? (" (and " + std::to_string(no - 1) + " more of the lines around it)").c_str()
                    : "");
            ++shown;
        }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double rate = seconds > 0 ? double(added + deleted + refused) / seconds : 0;
    if (json) {
        std::cout << Json{{"added", added},     {"deleted", deleted},
                          {"refused", refused}, {"requests", planned->size()},
                          {"seconds", seconds}, {"changes_per_second", uint64_t(rate)}}
                         .dump(2)
                  << '\n';
    } else {
        char summary[256];
        std::snprintf(summary, sizeof summary,
                      "%s: %lu added or replaced, %lu deleted, %lu refused, in %zu requests, "
                      "%.2f s (%.0f changes a second)\n",
                      file.c_str(), (unsigned long)added, (unsigned long)deleted,
                      (unsigned long)refused, planned->size(), seconds, rate);
        std::cout << summary;
    }
    std::cout.flush();
    if (refused)
        throw Failure(std::to_string(refused) +
                      " change(s) refused (the lines above; the rest "
                      "were applied)");
}

}  // namespace pmdctl
