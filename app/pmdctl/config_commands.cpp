// pmdctl reload, show config, config save (see config_commands.hpp).
#include "config_commands.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "protocol.hpp"
#include "record_view.hpp"

namespace pmdctl {

namespace {

std::vector<std::string> lines_of(Result<Json> r) {
    if (!r) throw Failure(r.error().message);
    if (r->is_object() && r->contains("error")) throw Failure((*r)["error"].get<std::string>());
    if (!r->is_array()) throw Failure("unexpected answer: " + r->dump());
    std::vector<std::string> out;
    for (const auto& l : *r) out.push_back(l.is_string() ? l.get<std::string>() : l.dump());
    return out;
}

}  // namespace

void run_reload(TelemetryClient& c, bool dry_run, bool json) {
    const auto lines =
        lines_of(c.query(pmdfwd::endpoints::kReload, dry_run ? "dry-run" : std::string_view()));
    if (json)
        std::cout << Json(lines).dump(2) << '\n';
    else
        for (const auto& l : lines) std::cout << l << '\n';
    std::cout.flush();
    if (lines.empty() || lines[0].starts_with("error") || lines[0].starts_with("refused"))
        throw Failure(lines.empty() ? "no answer" : lines[0]);
}

std::string running_config(TelemetryClient& c) {
    auto rows = c.query_pages(pmdfwd::endpoints::kConfig);
    if (!rows) throw Failure(rows.error().message);
    std::string out;
    for (const auto& row : *rows) {
        const std::string l = text(row, pmdfwd::kConfigLineRecord.ref("line"));
        if (!l.empty() && l.back() == '\\')
            out += l.substr(0, l.size() - 1);
        else
            out += l + "\n";
    }
    return out;
}

void run_config_save(TelemetryClient& c, const std::string& file, bool json) {
    std::string path = file;
    if (path.empty()) {
        auto info = c.query(pmdfwd::endpoints::kInfo);
        if (!info) throw Failure(info.error().message);
        path = text(*info, pmdfwd::kInfoRecord.ref("config"));
        if (path.empty() || path == "-") throw Failure("pmdfwd names no config file; give one");
    }
    const std::string body =
        "# Saved by pmdctl config save: pmdfwd's running config.\n" + running_config(c);
    // Beside the file, so that the rename stays on one file system.
    const std::string tmp = path + ".tmp." + std::to_string(getpid());
    // Written and synced whole before it takes the file's name: a crash
    // leaves the old file or the new one, never half of one.
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw Failure(tmp + ": " + std::strerror(errno));
    size_t done = 0;
    while (done < body.size()) {
        const ssize_t n = ::write(fd, body.data() + done, body.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += size_t(n);
    }
    const bool ok = done == body.size() && ::fsync(fd) == 0;
    ::close(fd);
    if (!ok) {
        std::remove(tmp.c_str());
        throw Failure(tmp + ": cannot write it");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::remove(tmp.c_str());
        throw Failure(path + ": " + ec.message());
    }
    if (json)
        std::cout << Json{{"file", path}, {"bytes", body.size()}}.dump(2) << '\n';
    else
        std::cout << "running config saved to " << path << '\n';
}

}  // namespace pmdctl
