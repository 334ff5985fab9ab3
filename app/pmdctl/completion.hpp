// Bash completion for pmdctl, generated from the command table (commands.cpp):
// the command words, each command's options, and values where they are
// known: drop reasons from their list, files for file arguments, and the
// ports of the pmdfwd named by --file-prefix, asked for as completion runs
// (`pmdctl show ports --json`).
#pragma once

#include <string>

namespace pmdctl {

std::string bash_completion();

}  // namespace pmdctl
