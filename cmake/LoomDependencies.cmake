# Every dependency comes from a Debian package (scripts/setup installs them); nothing is
# downloaded at configure or build time.
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

set(BLA_VENDOR OpenBLAS)
find_package(BLAS REQUIRED)

find_path(METIS_INCLUDE_DIR metis.h REQUIRED)
find_library(METIS_LIBRARY metis REQUIRED)
add_library(Metis::Metis UNKNOWN IMPORTED)
set_target_properties(Metis::Metis PROPERTIES IMPORTED_LOCATION ${METIS_LIBRARY}
                      INTERFACE_INCLUDE_DIRECTORIES ${METIS_INCLUDE_DIR})

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
set(LOOM_OPENBLAS_OPENMP_DIR "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp")
if(EXISTS "${LOOM_OPENBLAS_OPENMP_DIR}/libblas.so.3")
  add_link_options("LINKER:--disable-new-dtags" "LINKER:-rpath,${LOOM_OPENBLAS_OPENMP_DIR}")
  message(STATUS "Loom: BLAS from ${LOOM_OPENBLAS_OPENMP_DIR} (OpenMP flavour of OpenBLAS)")
else()
  message(WARNING "Loom: ${LOOM_OPENBLAS_OPENMP_DIR} not found; install libopenblas0-openmp (BLAS threads will compete with OpenMP's)")
endif()
