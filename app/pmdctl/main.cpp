// pmdctl: asks a running pmdfwd questions over its DPDK telemetry socket and
// prints tables for people or --json for scripts. Single thread, no DPDK.
// The commands are commands.cpp's table; this file builds the command line
// from it and dispatches. Exit codes: 0 ok, 1 pmdfwd unreachable or a
// command failed, 2 usage error.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <iostream>
#include <map>
#include <string>

#include "commands.hpp"
#include "telemetry_client.hpp"
#include "version.hpp"

namespace {

using pmdctl::Command;
using pmdctl::CommandArgs;
using pmdctl::Failure;
using pmdctl::Json;
using pmdctl::TelemetryClient;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

// "pmdctl needs one of: show, stats, ..." when a word that groups commands
// (or nothing at all) was given without the command it needs.
void require_command(const CLI::App& app, const std::vector<const CLI::App*>& parents) {
    for (const CLI::App* parent : parents) {
        if (!parent->parsed() || !parent->get_subcommands().empty()) continue;
        std::string names;
        for (const CLI::App* sub : parent->get_subcommands({}))
            names += (names.empty() ? "" : ", ") + sub->get_name();
        const std::string who = parent == &app ? "pmdctl" : parent->get_name();
        throw CLI::RequiredError(who + " needs one of: " + names, CLI::ExitCodes::RequiredError);
    }
}

int run(int argc, char** argv) {
    std::string file_prefix{pmdctl::kDefaultFilePrefix};
    CommandArgs args;
    CLI::App app{"pmdctl: query and control a running pmdfwd over its DPDK telemetry socket"};
    app.set_version_flag("--version", pmdfwd::kVersion);
    // Global flags may also follow the command: `pmdctl show ports --json`.
    app.fallthrough();
    // At most one command; a missing one is reported after parsing, so that an
    // unknown word is named as such rather than as "a subcommand is required".
    app.require_subcommand(-1);
    app.add_option("-f,--file-prefix", file_prefix,
                   "EAL file prefix of the pmdfwd to talk to (its [eal] file_prefix)")
        ->capture_default_str();
    app.add_flag("--json", args.json, "Print the raw records as JSON instead of tables");

    // The command line from the table, in its order: a group word where its
    // first command stands, each command under its word.
    std::map<std::string_view, CLI::App*> groups;
    const auto group = [&](std::string_view word) {
        if (auto it = groups.find(word); it != groups.end()) return it->second;
        std::string help;
        for (const auto& g : pmdctl::command_groups())
            if (g.word == word) help = g.help;
        CLI::App* sub = app.add_subcommand(std::string(word), help);
        sub->require_subcommand(-1);
        return groups[word] = sub;
    };
    std::vector<std::pair<const CLI::App*, const Command*>> leaves;
    for (const Command& cmd : pmdctl::commands()) {
        CLI::App* parent = cmd.words.size() > 1 ? group(cmd.words.front()) : &app;
        CLI::App* sub =
            parent->add_subcommand(std::string(cmd.words.back()), std::string(cmd.help));
        if (cmd.options) cmd.options(*sub, args);
        leaves.emplace_back(sub, &cmd);
    }

    try {
        app.parse(argc, argv);
        std::vector<const CLI::App*> parents{&app};
        for (const auto& [word, g] : groups) parents.push_back(g);
        require_command(app, parents);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? kExitOk : kExitUsage;
    }
    const Command* cmd = nullptr;
    for (const auto& [sub, c] : leaves)
        if (sub->parsed()) cmd = c;
    if (!cmd) return kExitUsage;  // require_command has ruled this out

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
