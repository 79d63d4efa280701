# cmake -DSRC=<source tree> -DOUT=<header> [-DGIT=<git>] -P gitrev.cmake: writes OUT defining
# RG_GIT_REV, the revision SRC is checked out at ("-dirty" when tracked files differ from it;
# "unknown" when SRC is not the top of a git checkout, e.g. an unpacked tarball inside another
# repository). Run at every build (cli/CMakeLists.txt), it rewrites OUT only when the text
# changes, so a new commit rebuilds cli/version.c and nothing else does.
set(rev unknown)
if(GIT)
  execute_process(COMMAND ${GIT} -C ${SRC} rev-parse --show-toplevel
                  OUTPUT_VARIABLE top RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  file(REAL_PATH "${SRC}" src_real)
  if(rc EQUAL 0 AND NOT top STREQUAL "")
    file(REAL_PATH "${top}" top_real)
  endif()
  if(rc EQUAL 0 AND top_real STREQUAL src_real)
    execute_process(COMMAND ${GIT} -C ${SRC} rev-parse --short=12 HEAD
                    OUTPUT_VARIABLE head RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(rc EQUAL 0 AND NOT head STREQUAL "")
      set(rev ${head})
      execute_process(COMMAND ${GIT} -C ${SRC} status --porcelain --untracked-files=no
                      OUTPUT_VARIABLE changed RESULT_VARIABLE rc ERROR_QUIET)
      if(rc EQUAL 0 AND NOT changed STREQUAL "")
        string(APPEND rev "-dirty")
      endif()
    endif()
  endif()
endif()
set(text "/* Made by cmake/gitrev.cmake at build time: do not edit. */\n#define RG_GIT_REV \"${rev}\"\n")
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
