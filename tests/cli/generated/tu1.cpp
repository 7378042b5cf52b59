// First of two translation units including the generated header (see main.cpp).
#include "fixtures.hpp"

const void* tu1_data() { return fixtures::detail::container_data; }
tritonpack::library* tu1_library() { return &fixtures::library(); }
