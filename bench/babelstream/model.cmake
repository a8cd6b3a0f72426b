# bench/babelstream/model.cmake -- BabelStream's "kk" model: KKStream.cpp on kk's CMake package, the kernels of
# kk_stream.kk.c compiled by kkcc for every target the installed kk has (kk_add_kernels, docs/build-systems.md).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

register_flag_optional(CMAKE_CXX_COMPILER "Any C++17 compiler" "c++")
register_flag_optional(kk_DIR "The directory of an installed kk's kkConfig.cmake (<libdir>/cmake/kk)" "")
# kk's own cache variables KK_KKCC_FLAGS (more kkcc flags: -march=native;--cuda-arch=sm_90) and KK_KERNEL_TARGETS
# (host;cuda) choose how the kernels are built; they are CMake lists, which BabelStream's flag registry cannot
# hold, so they are not registered with it.

macro(setup)
    set(CMAKE_CXX_STANDARD 17)
    enable_language(C)
    find_package(kk 0.1 REQUIRED)
    register_link_library(kk::kk)
endmacro()

macro(setup_target NAME)
    kk_add_kernels(${NAME} ${CMAKE_CURRENT_SOURCE_DIR}/src/kk/kk_stream.kk.c
                   DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/kk/kk_stream.h)
endmacro()
