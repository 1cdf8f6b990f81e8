# gpuadvisor_embed(TARGET NAMESPACE ns FILES name1 path1 [name2 path2 ...])
# Generates a static library exposing each file as
# `extern const std::string_view ns::name;`, regenerated when a file changes.
function(gpuadvisor_embed target)
  cmake_parse_arguments(ARG "" "NAMESPACE" "FILES" ${ARGN})
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/embedded)
  set(sources "")
  list(LENGTH ARG_FILES n)
  math(EXPR last "${n} - 1")
  foreach(i RANGE 0 ${last} 2)
    math(EXPR j "${i} + 1")
    list(GET ARG_FILES ${i} name)
    list(GET ARG_FILES ${j} path)
    set(cpp ${out_dir}/${name}.cpp)
    add_custom_command(
      OUTPUT ${cpp}
      COMMAND ${CMAKE_COMMAND} -DIN=${path} -DOUT=${cpp} -DNAME=${name}
              -DNAMESPACE=${ARG_NAMESPACE} -P ${PROJECT_SOURCE_DIR}/cmake/embed_file.cmake
      DEPENDS ${path} ${PROJECT_SOURCE_DIR}/cmake/embed_file.cmake
      COMMENT "Embedding ${name}")
    list(APPEND sources ${cpp})
  endforeach()
  add_library(${target} STATIC ${sources})
endfunction()
