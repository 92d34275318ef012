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

# loom_torch_pch(TARGET): TARGET's sources that include LibTorch or the nn / loader / train modules start from
# LibTorch's <torch/torch.h>, precompiled once in loom_nn and reused by every such target, which
# cuts their compile time by about a third (LOOM_PCH, on by default); its other sources, for which
# the header would only add time, compile as they are. Sources still include what they use: the
# build must also pass with -DLOOM_PCH=OFF.
function(loom_torch_pch target)
  if(NOT LOOM_PCH)
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  foreach(source ${sources})
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${source_dir})
    file(STRINGS ${source} uses REGEX "#include [<\"](torch/|ATen/|loom/(nn|loader|train)/)")
    if(NOT uses)
      set_source_files_properties(${source} TARGET_DIRECTORY ${target} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endforeach()
  if(target STREQUAL "loom_nn")
    target_precompile_headers(loom_nn PRIVATE <torch/torch.h>)
    return()
  endif()
  target_precompile_headers(${target} REUSE_FROM loom_nn)
  # Executables compile as -fPIE, which GCC will not mix with the header's -fPIC.
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    target_compile_options(${target} PRIVATE -fPIC)
  endif()
endfunction()
