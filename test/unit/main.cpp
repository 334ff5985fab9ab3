// Main for the unit tests (no EAL, no root).
#include "catch_session.hpp"

int main(int argc, char** argv) { return run_catch_session(argc, argv); }
