// pmdctl's bash completion (see completion.hpp).
#include "completion.hpp"

#include <map>
#include <set>

#include "commands.hpp"
#include "drop_reasons.hpp"

namespace pmdctl {

namespace {

std::string joined(const std::set<std::string>& words) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
    return out;
}

// The long and short names of a subcommand's options, as its command's
// `options` adds them to a CLI11 app of its own.
struct CommandWords {
    std::set<std::string> options;
    bool takes_file = false;  // a positional FILE (route load, config save)
};

CommandWords words_of(const Command& cmd) {
    CLI::App app;
    CommandArgs args;
    if (cmd.options) cmd.options(app, args);
    CommandWords w;
    w.options = {"--help", "--json"};
    for (const CLI::Option* o : app.get_options()) {
        for (const auto& l : o->get_lnames()) w.options.insert("--" + l);
        for (const auto& s : o->get_snames()) w.options.insert("-" + s);
        if (o->get_lnames().empty() && o->get_snames().empty() && o->get_name() == "file")
            w.takes_file = true;
    }
    return w;
}

}  // namespace

std::string bash_completion() {
    std::set<std::string> top{"--file-prefix", "--json", "--help", "--version"};
    std::map<std::string, std::set<std::string>> second;  // group word -> its commands
    std::map<std::string, CommandWords> options;          // "show ports" -> its options
    for (const Command& cmd : commands()) {
        top.insert(std::string(cmd.words.front()));
        std::string path;
        for (const auto w : cmd.words) path += (path.empty() ? "" : " ") + std::string(w);
        if (cmd.words.size() > 1)
            second[std::string(cmd.words.front())].insert(std::string(cmd.words.back()));
        options[path] = words_of(cmd);
    }
    std::set<std::string> reasons(std::begin(pmdfwd::kDropReasonNames),
                                  std::end(pmdfwd::kDropReasonNames));
    std::string s = R"SH(# bash completion for pmdctl, generated from its command table by
# `pmdctl completion`: do not edit.
_pmdctl_ports() {
    pmdctl ${1:+--file-prefix "$1"} --json show ports 2>/dev/null |
        sed -n 's/^ *"name": "\(.*\)",\{0,1\}$/\1/p'
}

_pmdctl() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local i prefix= words=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            -f | --file-prefix) prefix=${COMP_WORDS[i+1]}; ((i++)) ;;
            -*) ;;
            *) words+=("${COMP_WORDS[i]}") ;;
        esac
    done
    case $prev in
        -f | --file-prefix)
            COMPREPLY=($(compgen -W "$(ls /var/run/dpdk 2>/dev/null)" -- "$cur")); return ;;
        --port)
            COMPREPLY=($(compgen -W "$(_pmdctl_ports "$prefix")" -- "$cur")); return ;;
        --reason)
            COMPREPLY=($(compgen -W ")SH" +
                    joined(reasons) + R"SH(" -- "$cur")); return ;;
        --pcap)
            COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    local cmd="${words[*]}"
    case $cmd in
        "") COMPREPLY=($(compgen -W ")SH" +
                    joined(top) + R"SH(" -- "$cur")) ;;
)SH";
    for (const auto& [group, subs] : second)
        s += "        \"" + group + "\") COMPREPLY=($(compgen -W \"" + joined(subs) +
             "\" -- \"$cur\")) ;;\n";
    for (const auto& [path, w] : options)
        s += "        \"" + path + "\") COMPREPLY=($(compgen -W \"" + joined(w.options) +
             "\" -- \"$cur\")" + (w.takes_file ? " $(compgen -f -- \"$cur\")" : "") + ") ;;\n";
    s += R"SH(    esac
}
complete -F _pmdctl pmdctl
)SH";
    return s;
}

}  // namespace pmdctl
