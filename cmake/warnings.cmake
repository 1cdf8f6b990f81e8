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

if(GPUADVISOR_SANITIZE)
  # Applied globally on purpose: every object in the process must be
  # instrumented for ASan to see container overflows across targets.
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()

if(GPUADVISOR_BUILD_FUZZ)
  # Coverage instrumentation for libFuzzer plus ASan/UBSan in every object.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
