// pmdctl's command table and the command line made from it: every command
// has help, a way to run and its section in docs/cli.md; the words parse to
// the command they name, options included; a missing or unknown word is a
// usage error. No socket.
#include <catch2/catch.hpp>
#include <set>

#include "commands.hpp"
#include "source_file.hpp"

using namespace pmdctl;

namespace {

std::string words_of(const Command& c) {
    std::string out;
    for (const auto w : c.words) out += (out.empty() ? "" : " ") + std::string(w);
    return out;
}

// Parses `line` (words after "pmdctl") with a fresh command line.
struct Parsed {
    CommandLine cli;
    const Command* cmd = nullptr;
    explicit Parsed(std::vector<std::string> line) {
        std::vector<const char*> argv{"pmdctl"};
        for (const auto& w : line) argv.push_back(w.c_str());
        cmd = &cli.parse(int(argv.size()), argv.data());
    }
};

std::string docs() { return read_source_file("docs/cli.md"); }

}  // namespace

TEST_CASE("command table: every command has help, a way to run, a docs section", "[commands]") {
    const std::string cli_md = docs();
    REQUIRE_FALSE(cli_md.empty());
    std::set<std::string> seen;
    for (const auto& c : commands()) {
        const std::string words = words_of(c);
        INFO(words);
        CHECK(seen.insert(words).second);
        CHECK_FALSE(c.help.empty());
        CHECK((c.run || (c.fetch && c.render)));
        if (c.words.size() > 1) {
            bool grouped = false;
            for (const auto& g : command_groups()) grouped = grouped || g.word == c.words.front();
            CHECK(grouped);
        }
        CHECK(cli_md.find("| `" + words) != std::string::npos);  // the table of commands
        CHECK(cli_md.find("\n### " + words + "\n") != std::string::npos);
    }
    // And no section of ## Commands for a command the table lacks.
    const size_t from = cli_md.find("\n## Commands\n"), to = cli_md.find("\n## ", from + 1);
    REQUIRE(from != std::string::npos);
    for (size_t at = cli_md.find("\n### ", from); at < to; at = cli_md.find("\n### ", at + 1)) {
        const std::string heading = cli_md.substr(at + 5, cli_md.find('\n', at + 5) - at - 5);
        INFO(heading);
        CHECK(seen.count(heading));
    }
}

TEST_CASE("command line: words, options and global flags reach their command", "[commands]") {
    {
        Parsed p({"show", "latency", "--histogram"});
        CHECK(words_of(*p.cmd) == "show latency");
        CHECK(p.cli.args.histogram);
        CHECK_FALSE(p.cli.args.json);
    }
    {
        Parsed p({"--json", "-f", "pfx", "show", "ports"});
        CHECK(words_of(*p.cmd) == "show ports");
        CHECK(p.cli.args.json);
        CHECK(p.cli.file_prefix == "pfx");
    }
    {
        Parsed p({"stats", "--json"});  // a global flag after the command
        CHECK(words_of(*p.cmd) == "stats");
        CHECK(p.cli.args.json);
        CHECK(p.cli.file_prefix == std::string(kDefaultFilePrefix));
    }
    {
        Parsed p({"watch", "-i", "0.25", "-c", "3"});
        CHECK(words_of(*p.cmd) == "watch");
        CHECK(p.cli.args.interval_s == 0.25);
        CHECK(p.cli.args.count == 3);
        CHECK(p.cmd->run);
    }
    {
        Parsed p({"clear", "stats"});
        CHECK(words_of(*p.cmd) == "clear stats");
    }
    {
        Parsed p({"fields", "--markdown"});
        CHECK(p.cmd->offline);
        CHECK(p.cli.args.markdown);
    }
    {
        Parsed p({"show", "xstats", "--all"});
        CHECK(p.cli.args.all);
    }
}

TEST_CASE("command line: a missing, unknown or bad word is a usage error", "[commands]") {
    const auto message = [](std::vector<std::string> line) -> std::string {
        try {
            Parsed p(std::move(line));
        } catch (const CLI::ParseError& e) {
            return e.what();
        }
        return "(parsed)";
    };
    CHECK(message({}) ==
          "pmdctl needs one of: show, route, trace, drops, reload, config, log, stats, clear, "
          "shutdown, watch, fields, endpoints, completion, metrics");
    CHECK(
        message({"show"}) ==
        "show needs one of: ports, workers, pools, plan, latency, log, xstats, routes, neighbours, "
        "router, config");
    CHECK(message({"clear"}) == "clear needs one of: stats");
    CHECK(message({"bogus"}).find("bogus") != std::string::npos);
    CHECK(message({"show", "bogus"}).find("bogus") != std::string::npos);
    CHECK(message({"watch", "-i", "0.001"}).find("0.01 to 3600") != std::string::npos);
    CHECK(message({"watch", "-c", "-1"}).find("whole number") != std::string::npos);
    CHECK(message({"stats", "--histogram"}) != "(parsed)");  // another command's option
    // A comma would split one value into two of the request's parameters.
    CHECK(message({"route", "add", "10.9.0.0/16", "--via", "10.61.1.2,b"})
              .find("'10.61.1.2,b' holds a comma") != std::string::npos);
    CHECK(message({"route", "add", "10.9.0.0/16,x"}).find("holds a comma") != std::string::npos);
    CHECK(message({"route", "add", "10.9.0.0/16", "--port", "a b"}).find("space") !=
          std::string::npos);
    CHECK(message({"route", "del", "::/0,1"}).find("holds a comma") != std::string::npos);
    CHECK(message({"route", "add", "10.9.0.0/16", "--via", "10.61.1.2", "--port", "wan"}) ==
          "(parsed)");
}
