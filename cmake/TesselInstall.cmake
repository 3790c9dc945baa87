#===- cmake/TesselInstall.cmake - `cmake --install`: tools, runtime, package -===#
#
#   P/bin/               tessel-compile, tessel-opt, tessel-run, tessel-bench
#   P/include/tessel/    tessel.h (C API), tessel.hpp (C++ wrapper)
#   P/lib/               libtessel.so (exports tessel_* only), libtessel.a
#   P/lib/cmake/Tessel/  TesselConfig.cmake (+ version): Tessel::runtime
#                        (shared) and Tessel::runtime_static
#   P/lib/pkgconfig/     tessel.pc
#
# Paths are the issue's literal layout (lib, not a multiarch libdir), and
# everything is relative to P, chosen at install time: the package files
# find their prefix from where they lie. The runtime needs nothing from
# LLVM or MLIR; the compiler tools keep a run path to Debian's libMLIR.so
# (outside the build tree) and nothing else.
#
#===----------------------------------------------------------------------===#

include(CMakePackageConfigHelpers)

set(TESSEL_INSTALL_CMAKEDIR lib/cmake/Tessel)

foreach(tool tessel-compile tessel-opt tessel-run tessel-bench)
  if(TARGET ${tool})
    set_target_properties(${tool} PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
    install(TARGETS ${tool} RUNTIME DESTINATION bin COMPONENT tools)
  endif()
endforeach()

if(TARGET tessel)
  set_target_properties(tessel PROPERTIES EXPORT_NAME runtime)
  set_target_properties(tessel_static PROPERTIES EXPORT_NAME runtime_static)
  install(TARGETS tessel tessel_static EXPORT TesselTargets
    LIBRARY DESTINATION lib COMPONENT runtime
    ARCHIVE DESTINATION lib COMPONENT runtime
    INCLUDES DESTINATION include)
  install(FILES runtime/include/tessel/tessel.h runtime/include/tessel/tessel.hpp
    DESTINATION include/tessel COMPONENT runtime)
  install(EXPORT TesselTargets NAMESPACE Tessel::
    DESTINATION ${TESSEL_INSTALL_CMAKEDIR} COMPONENT runtime)

  configure_package_config_file(cmake/TesselConfig.cmake.in
    ${CMAKE_CURRENT_BINARY_DIR}/TesselConfig.cmake
    INSTALL_DESTINATION ${TESSEL_INSTALL_CMAKEDIR})
  write_basic_package_version_file(
    ${CMAKE_CURRENT_BINARY_DIR}/TesselConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/TesselConfig.cmake
                ${CMAKE_CURRENT_BINARY_DIR}/TesselConfigVersion.cmake
    DESTINATION ${TESSEL_INSTALL_CMAKEDIR} COMPONENT runtime)

  configure_file(cmake/tessel.pc.in ${CMAKE_CURRENT_BINARY_DIR}/tessel.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tessel.pc
    DESTINATION lib/pkgconfig COMPONENT runtime)
endif()
