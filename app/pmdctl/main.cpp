// pmdctl: asks a running pmdfwd questions over its DPDK telemetry socket and
// prints tables for people or --json for scripts. Single thread, no DPDK.
// The commands are commands.cpp's table; this file builds the command line
// from it and dispatches. Exit codes: 0 ok, 1 pmdfwd unreachable or a
// command failed, 2 usage error.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <string>

#include "commands.hpp"
#include "telemetry_client.hpp"

namespace {

using pmdctl::Command;
using pmdctl::CommandArgs;
using pmdctl::Failure;
using pmdctl::Json;
using pmdctl::TelemetryClient;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

int run(int argc, char** argv) {
    pmdctl::CommandLine line;
    const Command* cmd = nullptr;
    try {
        cmd = &line.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return line.exit(e) == 0 ? kExitOk : kExitUsage;
    }
    const CommandArgs& args = line.args;
    const std::string& file_prefix = line.file_prefix;

    std::optional<TelemetryClient> client;
    if (!cmd->offline) {
        const std::string path =
            pmdctl::telemetry_socket_path(pmdctl::runtime_env_from_process(), file_prefix);
        auto connected = TelemetryClient::connect(path, file_prefix);
        if (!connected) throw Failure(connected.error().message);
        client.emplace(std::move(connected.value()));
    }
    TelemetryClient* c = client ? &*client : nullptr;
    if (cmd->run) {
        cmd->run(*c, args);
    } else {
        const Json reply = cmd->fetch(c, args);
        if (args.json)
            std::cout << reply.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
        else
            std::cout << cmd->render(c, reply, args);
    }
    std::cout.flush();
    if (!std::cout) throw Failure("writing to stdout failed");
    return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pmdctl: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "pmdctl: unexpected error\n");
    }
    return kExitFailed;
}
