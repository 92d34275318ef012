# Every dependency comes from a Debian package (scripts/setup installs them); nothing is
# downloaded at configure or build time. Each is found through CMAKE_PREFIX_PATH first, so a
# prefix of unpacked packages works too (scripts/device-check), and LibTorch may be any build:
# Debian's CPU one by default, or one the user names (-DCMAKE_PREFIX_PATH or -DTorch_DIR), such
# as the LibTorch inside a pip or conda CUDA PyTorch (README, "GPU build").

# Any LibTorch, checked once found: its C++ ABI (TORCH_CXX_FLAGS) applies to all of Loom, since
# std::string and friends cross between the modules with and without LibTorch, and it must be the
# C++11 ABI of the Debian libraries Loom links (abseil, fmt, spdlog).
function(loom_check_torch)
  if(TORCH_CXX_FLAGS MATCHES "_GLIBCXX_USE_CXX11_ABI=0")
    message(FATAL_ERROR "Loom: the LibTorch at ${TORCH_INSTALL_PREFIX} is built with the pre-C++11 ABI "
            "(_GLIBCXX_USE_CXX11_ABI=0), but Loom's other libraries use the C++11 ABI: use a cxx11-ABI LibTorch "
            "(a pip PyTorch 2.7 or later, or a libtorch-cxx11-abi archive)")
  endif()
  if(TORCH_CUDA_LIBRARIES OR CAFFE2_USE_CUDA)
    # Loom compiles no CUDA kernels of its own: its GPU work is LibTorch's, built for that
    # LibTorch's architectures; it calls the CUDA runtime for the GPU's free memory only.
    find_package(CUDAToolkit REQUIRED)
    set(LOOM_WITH_CUDA ON PARENT_SCOPE)
    set(gpu "CUDA ${CUDAToolkit_VERSION} (runtime at ${CUDAToolkit_LIBRARY_DIR})")
  else()
    set(gpu "CPU only (--device cuda will be refused)")
  endif()
  message(STATUS "Loom: LibTorch ${Torch_VERSION} from ${TORCH_INSTALL_PREFIX} (${TORCH_CXX_FLAGS}); ${gpu}")
endfunction()

find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED)
find_package(MPI REQUIRED COMPONENTS CXX)
find_package(ZLIB REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(CLI11 REQUIRED)
find_package(absl REQUIRED)
find_package(Torch REQUIRED)
loom_check_torch()
add_compile_options(${TORCH_CXX_FLAGS})
# A pip PyTorch's LibTorch (libtorch.so, libtorch_cpu.so) carries its own copy of libstdc++'s
# std::filesystem and exports it; a binary that lists it before libstdc++ binds its own
# std::filesystem calls to that copy, whose remove_all jumped to address 0 (seen on the GPU device
# machine, PyTorch 2.11: tests/cuda crashed removing their scratch folders). Every Loom binary
# lists libstdc++ first, so that the C++ library's calls go to the C++ library.
add_link_options("LINKER:--push-state,--no-as-needed" "-lstdc++" "LINKER:--pop-state")

# OpenBLAS, the OpenMP flavour where it is installed (see below); cblas.h: Debian's alternatives link
# one flavour's header into include/<arch>, an unpacked prefix has only the flavours' own folders.
set(LOOM_OPENBLAS_OPENMP_DIR "")
foreach(prefix ${CMAKE_PREFIX_PATH} /usr)
  set(dir "${prefix}/lib/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp")
  if(NOT LOOM_OPENBLAS_OPENMP_DIR AND EXISTS "${dir}/libblas.so.3")
    set(LOOM_OPENBLAS_OPENMP_DIR "${dir}")
  endif()
endforeach()
if(LOOM_OPENBLAS_OPENMP_DIR)
  find_library(OPENBLAS_LIBRARY NAMES openblas libopenblas.so.0 PATHS ${LOOM_OPENBLAS_OPENMP_DIR} NO_DEFAULT_PATH REQUIRED)
else()
  find_library(OPENBLAS_LIBRARY openblas REQUIRED)
endif()
find_path(CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas-openmp ${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp REQUIRED)
add_library(BLAS::BLAS UNKNOWN IMPORTED)
set_target_properties(BLAS::BLAS PROPERTIES IMPORTED_LOCATION ${OPENBLAS_LIBRARY}
                      INTERFACE_INCLUDE_DIRECTORIES ${CBLAS_INCLUDE_DIR})

find_path(METIS_INCLUDE_DIR metis.h REQUIRED)
find_library(METIS_LIBRARY metis REQUIRED)
add_library(Metis::Metis UNKNOWN IMPORTED)
set_target_properties(Metis::Metis PROPERTIES IMPORTED_LOCATION ${METIS_LIBRARY}
                      INTERFACE_INCLUDE_DIRECTORIES ${METIS_INCLUDE_DIR})

# PT-Scotch for `loom partition --method ptscotch`: Debian's 64-bit build (libptscotch-dev puts it
# under scotch-int64/; its default headers use 32-bit numbers, too few for papers100M's edges).
# Optional: without it the method says how to get it, and everything else builds.
set(scotch_prefixes ${CMAKE_PREFIX_PATH} /usr)
list(TRANSFORM scotch_prefixes APPEND /include/scotch-int64 OUTPUT_VARIABLE scotch_include_dirs)
list(TRANSFORM scotch_prefixes APPEND /lib/${CMAKE_LIBRARY_ARCHITECTURE}/scotch-int64 OUTPUT_VARIABLE scotch_lib_dirs)
find_path(PTSCOTCH_INCLUDE_DIR ptscotch.h PATHS ${scotch_include_dirs} NO_DEFAULT_PATH)
find_library(PTSCOTCH_LIBRARY ptscotch PATHS ${scotch_lib_dirs} NO_DEFAULT_PATH)
find_library(PTSCOTCH_ERR_LIBRARY ptscotcherr PATHS ${scotch_lib_dirs} NO_DEFAULT_PATH)
find_library(SCOTCH_LIBRARY scotch PATHS ${scotch_lib_dirs} NO_DEFAULT_PATH)
if(PTSCOTCH_INCLUDE_DIR AND PTSCOTCH_LIBRARY AND PTSCOTCH_ERR_LIBRARY AND SCOTCH_LIBRARY)
  set(LOOM_WITH_PTSCOTCH ON)
  add_library(PTScotch::PTScotch INTERFACE IMPORTED)
  set_target_properties(PTScotch::PTScotch PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${PTSCOTCH_INCLUDE_DIR}
                        INTERFACE_LINK_LIBRARIES "${PTSCOTCH_LIBRARY};${SCOTCH_LIBRARY};${PTSCOTCH_ERR_LIBRARY}")
  message(STATUS "PT-Scotch: ${PTSCOTCH_LIBRARY} (--method ptscotch)")
else()
  set(LOOM_WITH_PTSCOTCH OFF)
  message(STATUS "PT-Scotch not found (apt-get install libptscotch-dev): --method ptscotch will say so")
endif()

find_path(HTTPLIB_INCLUDE_DIR httplib.h REQUIRED)
find_library(HTTPLIB_LIBRARY cpp-httplib)
add_library(httplib::httplib INTERFACE IMPORTED)
set_target_properties(httplib::httplib PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${HTTPLIB_INCLUDE_DIR})
if(HTTPLIB_LIBRARY)
  target_link_libraries(httplib::httplib INTERFACE ${HTTPLIB_LIBRARY})
  target_compile_definitions(httplib::httplib INTERFACE CPPHTTPLIB_USE_COMPILED_LIB=1)
endif()

# Debian installs OpenBLAS in two flavours behind update-alternatives and the pthread one wins by
# priority; its own spinning thread pool then fights OpenMP's for the cores (measured: Facebook
# 3-layer SAGE epochs 2.2 s with it, 1.35 s with the OpenMP flavour, on 2 cores). Loom's binaries
# look in the OpenMP flavour's directory first, as DT_RPATH so that LibTorch's own lookups of
# libblas.so.3 / liblapack.so.3 find it too, without changing the system's choice.
if(LOOM_OPENBLAS_OPENMP_DIR)
  add_link_options("LINKER:--disable-new-dtags" "LINKER:-rpath,${LOOM_OPENBLAS_OPENMP_DIR}")
  message(STATUS "Loom: BLAS from ${LOOM_OPENBLAS_OPENMP_DIR} (OpenMP flavour of OpenBLAS)")
else()
  message(WARNING "Loom: OpenBLAS's OpenMP flavour not found; install libopenblas0-openmp (BLAS threads will compete with OpenMP's)")
endif()
