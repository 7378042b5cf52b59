// TRITONPACK_SEPARATE defined but tritonpack::runtime not linked: the link fails naming the
// separate-mode calls (tritonpack::typed::separate::...). Built only by
// generated_header_separate_without_runtime, which expects that.
#include "fixtures.hpp"

int main() { fixtures::vector_add(nullptr, nullptr, nullptr, 16, 1.0f); }
