// The Catch2 runner for croqc's unit tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
