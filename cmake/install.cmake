# cmake --install BUILD --prefix P: the programs (P/bin: rulegen, rulesdb, graphopt and the
# solver helpers rulegen-z3, rulegen-cvc5, which rulegen runs from its own folder), their data
# (P/share/rulegen: axioms.rules, machines/*.txt, rules/default.db and .pub; ir/datapath.h), the CUDA module where there is
# one (P/lib/rulegen/rulegen-cuda.so: optimizer/cuda/cuda.h), every module's headers
# (P/include/rulegen/<module>/, so that -IP/include/rulegen and #include <rulesdb/rulesdb.h>
# work), the module libraries, and two ways for another project to link them: pkg-config
# (P/lib/pkgconfig/rulegen.pc) and find_package(rulegen) (targets rulegen::<module>).
# Included from the top CMakeLists.txt once every target exists.
include(CMakePackageConfigHelpers)

# The module libraries in link order (a library before those it uses): data-flow order reversed
# (DESIGN.md: a module uses only modules to its left), then the generated ONNX code.
set(rg_order ${RG_MODULES})
list(REVERSE rg_order)
list(APPEND rg_order onnx_proto) # optimizer/cuda/'s C side is inside rg_optimizer
set(RG_INSTALL_LIBS "")
set(rg_pc_libs "")
foreach(name IN LISTS rg_order)
  if(NOT TARGET rg_${name}) # a module without code yet
    continue()
  endif()
  list(APPEND RG_INSTALL_LIBS rg_${name})
  set_target_properties(rg_${name} PROPERTIES EXPORT_NAME ${name}) # rulegen::rulesdb
  string(APPEND rg_pc_libs " -lrg_${name}")
endforeach()

# A sanitized build's libraries need the sanitizer runtimes in whatever links them (the top
# CMakeLists.txt adds them to this build's own links only).
set(rg_link_extra "")
if(RG_SANITIZE OR RG_FUZZ)
  set(rg_link_extra -fsanitize=address,undefined)
  target_link_options(rg_ir INTERFACE $<INSTALL_INTERFACE:${rg_link_extra}>)
endif()

install(TARGETS rulegen rulesdb graphopt rulegen-z3 rulegen-cvc5
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${RG_INSTALL_LIBS} EXPORT rulegenTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The CUDA module (a build with CUDA), where the installed programs look for it (P/lib/rulegen:
# optimizer/cuda/gpu_load.c); not a library to link, so in no export set.
if(TARGET rulegen-cuda)
  install(TARGETS rulegen-cuda LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/rulegen)
endif()

# Headers: each module's folder as it is (headers include each other as "ir/status.h" and
# "solvers.def"), and the C protoc-c made from onnx.proto, which optimizer/opaque/opaque.h includes.
foreach(m IN LISTS RG_MODULES)
  if(TARGET rg_${m})
    file(GLOB hdrs ${CMAKE_SOURCE_DIR}/${m}/*.h ${CMAKE_SOURCE_DIR}/${m}/*.def)
    install(FILES ${hdrs} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rulegen/${m})
  endif()
endforeach()
install(FILES ${CMAKE_BINARY_DIR}/optimizer/onnx/onnx.pb-c.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rulegen/optimizer)

install(FILES ${CMAKE_SOURCE_DIR}/verify/axioms.rules DESTINATION ${CMAKE_INSTALL_DATADIR}/rulegen)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/optimizer/cost/machines/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/rulegen/machines FILES_MATCHING PATTERN "*.txt")
# graphopt's default rule set and its public key (optimizer/optimize/default_rules.h)
install(FILES ${CMAKE_BINARY_DIR}/optimizer/rules/default.db ${CMAKE_SOURCE_DIR}/optimizer/optimize/rules/default.pub
        DESTINATION ${CMAKE_INSTALL_DATADIR}/rulegen/rules)

# pkg-config: relocatable (prefix from the .pc file's own folder), static libraries, so Libs
# carries the system libraries they use.
file(RELATIVE_PATH rg_pc_up /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
string(REGEX REPLACE "/$" "" rg_pc_up "${rg_pc_up}") # "../.."
set(rg_pc_syslibs "-lsqlite3 -lsodium -lcrypto -lprotobuf-c -lz3 -ldnnl -lgmp -lm ${OpenMP_C_FLAGS} ${rg_link_extra}")
# (no CUDA library: only the module links them, and rg_optimizer opens it with dlopen)
if(CMAKE_DL_LIBS)
  string(APPEND rg_pc_syslibs " -l${CMAKE_DL_LIBS}")
endif()
string(STRIP "${rg_pc_syslibs}" rg_pc_syslibs)
configure_file(${CMAKE_SOURCE_DIR}/cmake/rulegen.pc.in ${CMAKE_BINARY_DIR}/rulegen.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/rulegen.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# find_package(rulegen): the exported targets, the dependencies they name, the version.
set(rg_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/rulegen)
install(EXPORT rulegenTargets NAMESPACE rulegen:: DESTINATION ${rg_cmake_dir})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/rulegenConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/rulegenConfig.cmake INSTALL_DESTINATION ${rg_cmake_dir})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/rulegenConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/rulegenConfig.cmake ${CMAKE_BINARY_DIR}/rulegenConfigVersion.cmake
        DESTINATION ${rg_cmake_dir})
