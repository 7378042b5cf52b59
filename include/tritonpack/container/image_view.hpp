// tritonpack/container/image_view.hpp — one image's bytes as a load hands them to the driver
// (container::decode_view, container/reader.hpp): where they lie, not a copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

class container;

// One image's bytes as a load hands them to the driver, checked like decode_image's but not
// copied out: a view of the frame prefix decoded for it (held here), of the container's own bytes
// (a stored frame), or of the buffer a coded image was put back into. A first load thus skips an
// allocation and a copy of the image, and their page faults. The container's bytes must outlive
// it, as they must outlive the container.
class image_view {
 public:
  const std::uint8_t* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  // The bytes in a vector of their own (moved out when they were put back into one), with room
  // for the NUL a PTX gets before the driver JIT-compiles it.
  std::vector<std::uint8_t> take() {
    if (!restored_.empty() && data_ == restored_.data()) return std::move(restored_);
    std::vector<std::uint8_t> out;
    out.reserve(size_ + 1);
    out.assign(data_, data_ + size_);
    return out;
  }

 private:
  friend class container;
  std::unique_ptr<std::uint8_t[]> frame_;  // the decoded frame prefix, when the frame is coded
  std::vector<std::uint8_t> restored_;     // the image put back together, or realigned
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

TRITONPACK_END_NAMESPACE
