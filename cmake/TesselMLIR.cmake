#===- TesselMLIR.cmake - Find LLVM/MLIR 22.1 and set up AddMLIR ----------===#
#
# Debian's llvm-22-dev / libmlir-22-dev. Everything links the shared libMLIR.so
# and libLLVM.so, which keeps each tool's link to seconds.
#
#===----------------------------------------------------------------------===#
set(MLIR_DIR /usr/lib/llvm-22/lib/cmake/mlir CACHE PATH "MLIR cmake dir")
set(LLVM_DIR /usr/lib/llvm-22/lib/cmake/llvm CACHE PATH "LLVM cmake dir")
find_package(MLIR 22.1 REQUIRED CONFIG)
find_package(LLVM 22.1 REQUIRED CONFIG)
message(STATUS "Using MLIR ${LLVM_PACKAGE_VERSION} from ${MLIR_DIR}")

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
set(LLVM_RUNTIME_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/bin)
set(LLVM_LIBRARY_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/lib)
set(MLIR_BINARY_DIR ${CMAKE_BINARY_DIR})
include(TableGen)
include(AddLLVM)
include(AddMLIR)

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
include_directories(${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
separate_arguments(TESSEL_LLVM_DEFS NATIVE_COMMAND ${LLVM_DEFINITIONS})
add_definitions(${TESSEL_LLVM_DEFS})
# Tessel's own code builds with -Wall (not -Werror: a new compiler's new
# warning must not break the build). LLVM's and MLIR's headers are SYSTEM
# includes above, so their warnings stay quiet.
set(TESSEL_COMPILER_WARNINGS -Wall)
if(NOT LLVM_ENABLE_RTTI)
  # Files that include LLVM headers follow LLVM's no-RTTI build.
  set(TESSEL_NO_RTTI -fno-rtti)
endif()

# The single shared MLIR and LLVM libraries.
set(TESSEL_MLIR_LIBS MLIR)
set(TESSEL_LLVM_LIBS LLVM)

# Tessel's compiler libraries: plain add_library against the dylibs.
function(tessel_compiler_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_compile_options(${name} PRIVATE ${TESSEL_NO_RTTI}
                         ${TESSEL_COMPILER_WARNINGS})
  target_link_libraries(${name} PUBLIC ${ARG_LINK} ${TESSEL_MLIR_LIBS} ${TESSEL_LLVM_LIBS})
endfunction()
