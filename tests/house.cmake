# The structure docs/DESIGN.md promises (tests/regress/check_house.py): public headers only across
# modules and from tools/ and bench/, the folder list, tools/ thin, no function over 60 lines.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME house COMMAND ${Python3_EXECUTABLE} ${RG_TEST_ROOT}/regress/check_house.py ${CMAKE_SOURCE_DIR})
