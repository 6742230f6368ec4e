# croqc_add_kernels: compile `.co` files ahead of time with croqc and link
# them into a target (docs/guide.md, "Build integration").
#
#   croqc_add_kernels(<target>
#     SOURCES a.co [b.co ...]
#     [ARCH sm_86|sm_90a]            default sm_86
#     [TARGET_KIND cuda|cpu]          default cuda; cpu runs the kernels on the CPU
#     [INCLUDE_DIRECTORIES dir ...]   -I for the generated code (the .co file's own
#                                     directory is always searched)
#     [OPTIONS opt ...])              more croqc options (-O2, -g, -DNAME=V, ...)
#
# Each `a.co` becomes `a.o` and the header `a.h` (the C++ wrappers and the
# `extern "C"` entries of library mode) in
# ${CMAKE_CURRENT_BINARY_DIR}/croqc/<target>/, which is added to the target's
# include path. croqc writes a depfile (-MD), so editing a header that a `.co`
# file includes recompiles it. The target links croqc::runtime and, for cuda,
# CUDA::cudart; for cpu, OpenMP, with the CPU runtime's CUDA shims first on
# its include path (so that its own sources can include the headers).
#
# Works both after find_package(croqc) and with croqc added by
# add_subdirectory().
include_guard(GLOBAL)

function(croqc_add_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 CK "" "ARCH;TARGET_KIND" "SOURCES;INCLUDE_DIRECTORIES;OPTIONS")
  if(CK_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "croqc_add_kernels: unknown arguments ${CK_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "croqc_add_kernels: `${target}` is not a target; create it first (add_executable, add_library)")
  endif()
  if(NOT CK_SOURCES)
    message(FATAL_ERROR "croqc_add_kernels(${target}): SOURCES is empty")
  endif()
  if(NOT CK_ARCH)
    set(CK_ARCH sm_86)
  endif()
  if(NOT CK_TARGET_KIND)
    set(CK_TARGET_KIND cuda)
  endif()
  if(NOT CK_TARGET_KIND MATCHES "^(cuda|cpu)$")
    message(FATAL_ERROR "croqc_add_kernels(${target}): TARGET_KIND is `${CK_TARGET_KIND}`; it must be cuda or cpu")
  endif()

  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/croqc/${target}")
  file(MAKE_DIRECTORY "${out_dir}")
  set(flags --target=${CK_TARGET_KIND} --arch=${CK_ARCH} ${CK_OPTIONS})
  foreach(dir IN LISTS CK_INCLUDE_DIRECTORIES)
    get_filename_component(dir "${dir}" ABSOLUTE)
    list(APPEND flags "-I${dir}")
  endforeach()
  get_target_property(type ${target} TYPE)
  get_target_property(pic ${target} POSITION_INDEPENDENT_CODE)
  if(pic OR type STREQUAL "SHARED_LIBRARY" OR type STREQUAL "MODULE_LIBRARY")
    list(APPEND flags -fPIC)
  endif()

  foreach(source IN LISTS CK_SOURCES)
    get_filename_component(source "${source}" ABSOLUTE)
    get_filename_component(stem "${source}" NAME_WE)
    set(object "${out_dir}/${stem}.o")
    set(header "${out_dir}/${stem}.h")
    add_custom_command(
      OUTPUT "${object}" "${header}"
      COMMAND ${CMAKE_COMMAND} -E env "CROQC_RUNTIME_INCLUDE=${CROQC_RUNTIME_INCLUDE_DIR}"
              $<TARGET_FILE:croqc::croqc> -c "${source}" -o "${object}" "--header=${header}"
              -MD -MF "${object}.d" ${flags}
      DEPENDS "${source}" croqc::croqc
      DEPFILE "${object}.d"
      COMMENT "croqc ${stem}.co (${CK_TARGET_KIND}, ${CK_ARCH})"
      VERBATIM)
    target_sources(${target} PRIVATE "${object}" "${header}")
  endforeach()

  target_include_directories(${target} PRIVATE "${out_dir}")
  target_link_libraries(${target} PRIVATE croqc::runtime)
  if(CK_TARGET_KIND STREQUAL "cpu")
    find_package(OpenMP REQUIRED COMPONENTS CXX)
    target_include_directories(${target} BEFORE PRIVATE "${CROQC_RUNTIME_INCLUDE_DIR}/croq/cpu/cuda")
    target_link_libraries(${target} PRIVATE OpenMP::OpenMP_CXX)
  else()
    find_package(CUDAToolkit REQUIRED)
    target_link_libraries(${target} PRIVATE CUDA::cudart)
  endif()
endfunction()
