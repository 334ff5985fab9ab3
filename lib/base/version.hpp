// The version pmdfwd, pmdctl and telemetry report.
#pragma once

namespace pmdfwd {
constexpr const char* kVersion = "0.1.0";
}
