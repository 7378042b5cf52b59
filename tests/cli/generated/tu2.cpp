// Second translation unit including the generated header (see main.cpp).
#include "fixtures.hpp"

const void* tu2_data() { return fixtures::detail::container_data; }
tritonpack::library* tu2_library() { return &fixtures::library(); }
