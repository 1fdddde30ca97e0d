# The fuzz build's libvterm, built from the source tree SANDMAN_FUZZ_VTERM_SRC with the fuzz
# build's instrumentation (included by the top-level CMakeLists.txt when that is set), so the
# terminal target sees libvterm's branches as well as ours. The character-set tables are
# generated from their .tbl files as libvterm's own Makefile does, unless the tree has them.
find_program(PERL perl REQUIRED)
set(vt ${SANDMAN_FUZZ_VTERM_SRC})
if(NOT EXISTS ${vt}/include/vterm.h OR NOT EXISTS ${vt}/src/vterm.c)
  message(FATAL_ERROR "SANDMAN_FUZZ_VTERM_SRC=${vt} is no libvterm source tree (include/vterm.h, src/vterm.c)")
endif()
file(GLOB vt_src ${vt}/src/*.c)
file(GLOB vt_tbl ${vt}/src/encoding/*.tbl)
set(vt_gen ${CMAKE_BINARY_DIR}/vterm-gen)
set(vt_inc)
foreach(tbl ${vt_tbl})
  get_filename_component(name ${tbl} NAME_WE)
  if(EXISTS ${vt}/src/encoding/${name}.inc)
    continue()
  endif()
  add_custom_command(OUTPUT ${vt_gen}/encoding/${name}.inc
    COMMAND ${CMAKE_COMMAND} -E make_directory ${vt_gen}/encoding
    COMMAND ${PERL} -CSD ${vt}/tbl2inc_c.pl ${tbl} > ${vt_gen}/encoding/${name}.inc
    DEPENDS ${tbl} VERBATIM)
  list(APPEND vt_inc ${vt_gen}/encoding/${name}.inc)
endforeach()
add_library(sandman_vterm STATIC ${vt_src} ${vt_inc})
# libvterm's sources include "encoding/X.inc" relative to src/ or the include path.
target_include_directories(sandman_vterm PUBLIC ${vt}/include PRIVATE ${vt}/src ${vt_gen})
target_compile_options(sandman_vterm PRIVATE -std=c99 -w)
