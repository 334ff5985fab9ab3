// pmdctl's config commands: reload [--dry-run], show config and config save
// [FILE] (the running config, written atomically: a temporary file beside
// FILE, then renamed over it).
#pragma once

#include <string>

#include "telemetry_client.hpp"

namespace pmdctl {

// The lines of /pmdfwd/reload; a Failure (exit 1) when it was refused or
// the file has an error, after printing them.
void run_reload(TelemetryClient& client, bool dry_run, bool json);
// The running config's text, its continued lines joined.
std::string running_config(TelemetryClient& client);
// Writes the running config to file (empty: the file pmdfwd was started
// with, from /pmdfwd/info) and says where.
void run_config_save(TelemetryClient& client, const std::string& file, bool json);

}  // namespace pmdctl
