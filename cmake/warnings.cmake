# Warning and sanitizer flags live in an INTERFACE target so that they apply to
# this project's targets only, never to dependents or dependencies.
add_library(gpuadvisor_warnings INTERFACE)
target_compile_options(gpuadvisor_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual
  -Wnull-dereference -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
if(GPUADVISOR_WERROR)
  target_compile_options(gpuadvisor_warnings INTERFACE -Werror)
endif()
target_compile_definitions(gpuadvisor_warnings INTERFACE
  $<$<CONFIG:Debug>:_GLIBCXX_ASSERTIONS>)

# clang 14 miscompiles `if consteval`, which libstdc++ 12 uses for
# std::is_constant_evaluated() in C++23 mode: fmt 9 then prints doubles with
# one significant digit ("7000" for 6727). Without the feature macro
# libstdc++ falls back to __builtin_is_constant_evaluated(), which is right.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 15)
  add_compile_options(-U__cpp_if_consteval)
endif()

if(GPUADVISOR_SANITIZE OR GPUADVISOR_BUILD_FUZZ)
  # Applied globally on purpose: every object in the process must be
  # instrumented for ASan to see container overflows across targets.
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
# Coverage instrumentation for libFuzzer: the library and the fuzz targets
# (fuzz/CMakeLists.txt) get it; the tests and the CLI link the same library
# without it (the sanitizer runtimes define the coverage callbacks), so one
# build serves the test suite and the fuzzers.
set(GPUADVISOR_FUZZ_FLAGS $<$<BOOL:${GPUADVISOR_BUILD_FUZZ}>:-fsanitize=fuzzer-no-link>)
