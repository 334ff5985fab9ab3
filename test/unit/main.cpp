// Catch2 main for the unit tests (no EAL, no root).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
