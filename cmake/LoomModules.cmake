# loom_add_module(PATH DEPS ...): a static library loom_<PATH with / as _> from
# src/loom/PATH/*.cpp (not recursive: a subfolder is its own module). A folder with no sources
# yet becomes an interface target, so modules appear as they are written.
set(LOOM_ALL_MODULES "")

function(loom_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-unused-parameter)
endfunction()

function(loom_add_module path)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/loom/${path}/*.cpp)
  string(REPLACE "/" "_" name ${path})
  set(target loom_${name})
  if(NOT sources)
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(${target} INTERFACE ${ARG_DEPS})
  else()
    add_library(${target} STATIC ${sources})
    target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(${target} PUBLIC ${ARG_DEPS})
    loom_warnings(${target})
  endif()
  set(LOOM_ALL_MODULES ${LOOM_ALL_MODULES} ${target} PARENT_SCOPE)
endfunction()
