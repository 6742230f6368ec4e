// Included by saxpy.co's host code: editing it must recompile saxpy.co
// (test/cmake/run.sh changes the version and checks the rebuild).
#pragma once
#define SAXPY_VERSION 1
