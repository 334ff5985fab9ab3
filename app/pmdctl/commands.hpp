// pmdctl's commands, one table: each command's words, help, what it asks
// pmdfwd (what --json prints) and how it draws that for people. main()
// builds the command line, --help and dispatch from it.
#pragma once

#include <CLI/CLI.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "telemetry_client.hpp"

namespace pmdctl {

// Every command's options; each command reads its own.
struct CommandArgs {
    bool json = false;
    bool histogram = false;         // show latency --histogram
    bool all = false;               // show xstats --all
    bool markdown = false;          // fields --markdown
    double interval_s = 1.0;        // watch -i
    uint64_t count = 0;             // watch -c; 0: until interrupted
    std::string prefix;             // route add / del
    std::vector<std::string> vias;  // route add --via, once per path
    std::string port;               // route add --port
    std::string file;               // route load, config save
    uint64_t bytes = 0;             // log test
    uint64_t log_count = 1;         // log test --count
    std::string columns;            // fields --columns
    std::string filter;             // trace start --filter
    uint64_t trace_count = 50;      // trace start --count
    bool drops = false;             // trace start --drops
    bool continuous = false;        // trace start --continuous
    std::string pcap;               // drops --pcap
    uint64_t drop_count = 100;      // drops --count
    uint64_t rate = 1000;           // drops --rate
    std::string reason;             // drops --reason
    double timeout_s = 0;           // drops --timeout
    bool dry_run = false;           // reload --dry-run
};

struct Command {
    std::vector<std::string_view> words;  // {"show", "ports"}
    std::string_view help;
    // The endpoints it asks (endpoint.hpp): a test holds every declared
    // endpoint to a command.
    std::vector<const pmdfwd::Endpoint*> asks;
    // Asks pmdfwd (client is null for an offline command): what --json prints.
    Json (*fetch)(TelemetryClient* client, const CommandArgs& a) = nullptr;
    // The text for people, from what fetch returned (it may ask for more).
    std::string (*render)(TelemetryClient* client, const Json& fetched,
                          const CommandArgs& a) = nullptr;
    // Adds the command's own options to its subcommand.
    void (*options)(CLI::App& sub, CommandArgs& a) = nullptr;
    bool offline = false;  // needs no running pmdfwd
    // Runs in place of fetch and render: commands that keep printing (watch).
    void (*run)(TelemetryClient& client, const CommandArgs& a) = nullptr;
};

// A word that groups commands ("show", "clear") and its help.
struct CommandGroup {
    std::string_view word;
    std::string_view help;
};

std::span<const Command> commands();
std::span<const CommandGroup> command_groups();

// The command line, made from the table: global options, a group word where
// its first command stands, each command under its word with its options.
class CommandLine {
  public:
    CommandLine();
    CommandLine(const CommandLine&) = delete;
    CommandLine& operator=(const CommandLine&) = delete;

    // The command given, with args and file_prefix filled in. Throws
    // CLI::ParseError (CLI::CallForHelp and friends included) for anything
    // else: a bad or unknown word, a group word without its command, none.
    const Command& parse(int argc, const char* const* argv);
    // What main prints for a ParseError, and its exit code (0 for --help).
    int exit(const CLI::Error& e) { return app_.exit(e); }

    CommandArgs args;
    std::string file_prefix{kDefaultFilePrefix};

  private:
    CLI::App app_{"pmdctl: query and control a running pmdfwd over its DPDK telemetry socket"};
    std::vector<std::pair<std::string_view, CLI::App*>> groups_;
    std::vector<std::pair<const CLI::App*, const Command*>> leaves_;
};

// Carries an error sentence from deep in a command up to main, which prints
// it and exits 1.
struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace pmdctl
