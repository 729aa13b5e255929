# Install the headers, both libraries, a CMake package (find_package(RTI1516e) or
# find_package(Trellis), targets RTI1516e::rti1516e and RTI1516e::fedtime1516e) and
# pkg-config files (rti1516e.pc, fedtime1516e.pc).
#
#   include/RTI/...            the standard's headers (-I$PREFIX/include)
#   include/rti1516e/RTI       the same headers where OpenRTI puts them (-I$PREFIX/include/rti1516e)
#   lib/librti1516e.so.1.0.0   stripped, RUNPATH $ORIGIN; its debug info in lib/.debug/
#   lib/libfedtime1516e.so.1.0.0
#   lib/cmake/RTI1516e, lib/cmake/Trellis, lib/pkgconfig
#   share/trellis/foms         the standard MIM and the demo FOM (TRELLIS_FOM_DIR, fomdir)
#   bin/trellis                the router and tools, when TRELLIS_CLI_BINARY names it
include(CMakePackageConfigHelpers)

set(TRELLIS_FOM_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/trellis/foms)
install(FILES ${TRELLIS_REPO_ROOT}/foms/HLAstandardMIM.xml ${TRELLIS_REPO_ROOT}/foms/trellis-demo.xml
  DESTINATION ${TRELLIS_FOM_INSTALL_DIR})
# The `trellis` binary a federate needs to run a router: built by cargo (scripts/cpp-install
# names it), installed beside the libraries.
set(TRELLIS_CLI_BINARY "" CACHE FILEPATH "The trellis binary to install into bin/ (none: not installed)")
if(TRELLIS_CLI_BINARY)
  install(PROGRAMS ${TRELLIS_CLI_BINARY} DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME trellis)
endif()

install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/RTI DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# Many federates' build files say -I$PREFIX/include/rti1516e (OpenRTI's layout): a relative
# link there to the one copy of the headers.
install(CODE "
  set(rti_link \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_INCLUDEDIR}/rti1516e/RTI\")
  file(MAKE_DIRECTORY \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_INCLUDEDIR}/rti1516e\")
  file(REMOVE_RECURSE \"\${rti_link}\")
  message(STATUS \"Installing: \${rti_link} -> ../RTI\")
  execute_process(COMMAND \"${CMAKE_COMMAND}\" -E create_symlink ../RTI \"\${rti_link}\"
                  RESULT_VARIABLE link_result)
  if(NOT link_result EQUAL 0)
    message(FATAL_ERROR \"could not link \${rti_link} to ../RTI\")
  endif()
")

install(TARGETS rti1516e fedtime1516e EXPORT RTI1516eTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# Installed libraries are stripped; their debug information goes to lib/.debug/<file>.debug,
# linked by a .gnu_debuglink section, where gdb looks for it. (librti1516e carries the Rust
# federate library, whose debug information is most of its size.) The build tree keeps the
# unstripped libraries the tests run against.
find_program(TRELLIS_OBJCOPY NAMES objcopy ${CMAKE_OBJCOPY})
if(TRELLIS_OBJCOPY)
  foreach(library rti1516e fedtime1516e)
    install(CODE "
      set(lib \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:${library}>\")
      set(debug_dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/.debug\")
      set(debug \"\${debug_dir}/$<TARGET_FILE_NAME:${library}>.debug\")
      file(MAKE_DIRECTORY \"\${debug_dir}\")
      message(STATUS \"Splitting debug info: \${debug}\")
      execute_process(COMMAND \"${TRELLIS_OBJCOPY}\" --only-keep-debug \"\${lib}\" \"\${debug}\"
                      RESULT_VARIABLE keep_result)
      execute_process(COMMAND \"${TRELLIS_OBJCOPY}\" --strip-unneeded
                              \"--add-gnu-debuglink=\${debug}\" \"\${lib}\"
                      RESULT_VARIABLE strip_result)
      if(NOT keep_result EQUAL 0 OR NOT strip_result EQUAL 0)
        message(FATAL_ERROR \"objcopy could not split the debug info of \${lib}\")
      endif()
    ")
  endforeach()
else()
  message(WARNING "objcopy not found: the installed libraries keep their debug information")
endif()

set(TRELLIS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/RTI1516e)
install(EXPORT RTI1516eTargets NAMESPACE RTI1516e:: DESTINATION ${TRELLIS_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/RTI1516eConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/RTI1516eConfig.cmake INSTALL_DESTINATION ${TRELLIS_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_LIBDIR TRELLIS_FOM_INSTALL_DIR)
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

# The .pc files find the prefix relative to themselves: as many levels up as the libdir is
# deep (lib/pkgconfig: two; Debian's multiarch lib/x86_64-linux-gnu/pkgconfig: three).
file(RELATIVE_PATH TRELLIS_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" TRELLIS_PC_TO_PREFIX "${TRELLIS_PC_TO_PREFIX}")
foreach(library rti1516e fedtime1516e)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${library}.pc.in ${CMAKE_CURRENT_BINARY_DIR}/${library}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${library}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
