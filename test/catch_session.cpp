// Catch2's implementation, compiled once for both test binaries; each
// binary's main.cpp sets up what it needs and runs the session.
#define CATCH_CONFIG_RUNNER
#include "catch_session.hpp"

#include <catch2/catch.hpp>

int run_catch_session(int argc, char** argv) { return Catch::Session().run(argc, argv); }
