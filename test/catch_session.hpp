// Runs Catch2's test session over the command line (catch_session.cpp):
// Catch2 declares its Session only where its implementation is compiled.
#pragma once

int run_catch_session(int argc, char** argv);
