# Install the headers, both libraries, a CMake package (find_package(RTI1516e) or
# find_package(Trellis), targets RTI1516e::rti1516e and RTI1516e::fedtime1516e) and
# pkg-config files (rti1516e.pc, fedtime1516e.pc).
include(CMakePackageConfigHelpers)

install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/RTI DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS rti1516e fedtime1516e EXPORT RTI1516eTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(TRELLIS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/RTI1516e)
install(EXPORT RTI1516eTargets NAMESPACE RTI1516e:: DESTINATION ${TRELLIS_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/RTI1516eConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/RTI1516eConfig.cmake INSTALL_DESTINATION ${TRELLIS_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/RTI1516eConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/RTI1516eConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/RTI1516eConfigVersion.cmake DESTINATION ${TRELLIS_CMAKE_DIR})

# find_package(Trellis) gives the same targets, also as Trellis::rti1516e / Trellis::fedtime1516e.
set(TRELLIS_ALIAS_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Trellis)
configure_file(${CMAKE_CURRENT_LIST_DIR}/TrellisConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/TrellisConfig.cmake @ONLY)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/TrellisConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/TrellisConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/TrellisConfigVersion.cmake DESTINATION ${TRELLIS_ALIAS_DIR})

foreach(library rti1516e fedtime1516e)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${library}.pc.in ${CMAKE_CURRENT_BINARY_DIR}/${library}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${library}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
