# stencilcConfig.cmake -- the CMake package of stencilc (docs/embedding.md).
#
#   find_package(stencilc CONFIG REQUIRED)      # -Dstencilc_DIR=$(stencilc --cmake-dir)
#   stencilc_add_stencil(heat path/to/heat3d.stn)
#   target_link_libraries(mysim PRIVATE stencilc::heat)
#
# stencilc_add_stencil(TARGET FILE) runs `stencilc FILE --emit=lib` at build time, again whenever
# FILE changes, into ${CMAKE_CURRENT_BINARY_DIR}/stencilc/TARGET, and defines stencilc::TARGET:
# the static library of the stencil (kernels, simulation API, runtime) with its include folder
# (NAME.h, NAME_api.h, stn_rt.h) and what it links against (OpenMP, libaio, hwloc, libpmem, libm, and libhdf5
# when found).
#
# The stencilc command: STENCILC_EXECUTABLE if set, else `stencilc` in the Python environment
# this package was installed into, else on PATH.
cmake_minimum_required(VERSION 3.19)

if(NOT STENCILC_EXECUTABLE)
  find_program(STENCILC_EXECUTABLE NAMES stencilc
               HINTS "${CMAKE_CURRENT_LIST_DIR}/../../../../../../bin"   # <venv>/lib/pythonX.Y/site-packages/stencilc/_data/cmake
                     "${CMAKE_CURRENT_LIST_DIR}/../.venv/bin")           # a source checkout
endif()
if(NOT STENCILC_EXECUTABLE)
  set(stencilc_FOUND FALSE)
  set(stencilc_NOT_FOUND_MESSAGE "the stencilc command was not found: put it on PATH or set STENCILC_EXECUTABLE")
  return()
endif()
execute_process(COMMAND "${STENCILC_EXECUTABLE}" --version OUTPUT_VARIABLE _stencilc_version
                RESULT_VARIABLE _stencilc_rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _stencilc_rc EQUAL 0)
  set(stencilc_FOUND FALSE)
  set(stencilc_NOT_FOUND_MESSAGE "${STENCILC_EXECUTABLE} --version failed (${_stencilc_rc})")
  return()
endif()
string(REGEX REPLACE "^stencilc " "" stencilc_VERSION "${_stencilc_version}")

include(CMakeFindDependencyMacro)
find_dependency(OpenMP COMPONENTS C)

function(stencilc_add_stencil target stn)
  get_filename_component(stn "${stn}" ABSOLUTE)
  if(NOT EXISTS "${stn}")
    message(FATAL_ERROR "stencilc_add_stencil(${target}): no file ${stn}")
  endif()
  # the stencil's name names its library and headers: read it from the IR (configure again when it changes)
  execute_process(COMMAND "${STENCILC_EXECUTABLE}" "${stn}" --emit=ir OUTPUT_VARIABLE ir ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "stencilc_add_stencil(${target}): stencilc cannot compile ${stn}:\n${err}")
  endif()
  string(REGEX MATCH "\nstencil ([A-Za-z_][A-Za-z0-9_]*):" _ "${ir}")
  set(name "${CMAKE_MATCH_1}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${stn}")
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/stencilc/${target}")
  add_custom_command(
    OUTPUT "${dir}/lib/lib${name}.a" "${dir}/include/${name}_api.h" "${dir}/include/${name}.h"
    COMMAND "${STENCILC_EXECUTABLE}" "${stn}" --emit=lib -o "${dir}"
    DEPENDS "${stn}"
    COMMENT "stencilc: ${stn} -> lib${name}.a"
    VERBATIM)
  add_custom_target(stencilc_${target}_lib DEPENDS "${dir}/lib/lib${name}.a")
  file(MAKE_DIRECTORY "${dir}/include")
  add_library(stencilc_${target} INTERFACE)
  add_dependencies(stencilc_${target} stencilc_${target}_lib)
  target_include_directories(stencilc_${target} INTERFACE "${dir}/include")
  target_link_libraries(stencilc_${target} INTERFACE "${dir}/lib/lib${name}.a" OpenMP::OpenMP_C aio hwloc pmem m)
  # libhdf5 when this machine has it: stencilc built the runtime with it (--save-to; docs/snapshots.md)
  find_package(HDF5 COMPONENTS C HL QUIET)
  if(HDF5_FOUND)
    target_link_libraries(stencilc_${target} INTERFACE ${HDF5_HL_LIBRARIES} ${HDF5_C_LIBRARIES})
  endif()
  add_library(stencilc::${target} ALIAS stencilc_${target})
  set(${target}_STENCIL_NAME "${name}" PARENT_SCOPE)
endfunction()
