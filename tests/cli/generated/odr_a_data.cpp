// One of two libraries named `odr` in one program (see odr_main.cpp): this translation unit uses
// only the first one's container data (its address, which the optimiser cannot fold away), so that
// is the data the linker keeps under the name.
#include "odr_both/odr.hpp"

std::size_t use_first_library() {
  const void* volatile data = odr::detail::container_data;
  return data != nullptr;
}
