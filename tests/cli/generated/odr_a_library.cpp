// One of two libraries named `odr` in one program (see odr_main.cpp): this translation unit uses
// the first one's library(), so it brings that library()'s definition and its container data.
#include <tritonpack/tritonpack.hpp>  // library::size(), in separate mode too

#include "odr_both/odr.hpp"

std::size_t use_first_library() { return odr::library().size(); }
