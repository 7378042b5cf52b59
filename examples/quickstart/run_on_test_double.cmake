# One binary, either vendor: runs the quickstart executable, unchanged, against a test-double
# driver and checks what the double recorded (ctest example.quickstart.fake_hip / .fake_cuda).
#   cmake -DQUICKSTART=<exe> -DBACKEND=hip|cuda -DDOUBLE=<libtritonpack_fake_*.so> -DWORK=<dir> -P run_on_test_double.cmake
# The doubles check every launch (the HIP one against the code object's .amdhsa.kernels metadata:
# kernarg offsets and sizes, block, LDS, device) and refuse any that disagrees, but they execute
# nothing: device memory keeps the quickstart's NaN poison, so its CPU comparison must report a
# mismatch (exit 1). What passes here is that every launch the program makes was accepted, with
# the images a GPU of that vendor would get. Each run prints the executable's SHA-256, so a log
# shows the same file ran both ways (and, on a GPU node, example.quickstart.gpu).
foreach(_v QUICKSTART BACKEND DOUBLE WORK)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "run_on_test_double.cmake: -D${_v}=... is required")
  endif()
endforeach()
file(SHA256 "${QUICKSTART}" _sha)
message("quickstart sha256 ${_sha}  ${QUICKSTART}")
file(MAKE_DIRECTORY "${WORK}")
set(_report "${WORK}/${BACKEND}-double-report.txt")
file(REMOVE "${_report}")
if(BACKEND STREQUAL "hip")
  set(_env TRITONPACK_HIP_LIBRARY=${DOUBLE} TRITONPACK_FAKE_HIP_DEVICES=gfx942:sramecc+:xnack-
           TRITONPACK_FAKE_HIP_REPORT=${_report})
  set(_image "hsaco gfx942")
elseif(BACKEND STREQUAL "cuda")
  set(_env TRITONPACK_CUDA_LIBRARY=${DOUBLE} TRITONPACK_FAKE_DEVICES=sm_90 TRITONPACK_FAKE_REPORT=${_report})
  set(_image "cubin sm_90a")
else()
  message(FATAL_ERROR "BACKEND must be hip or cuda, not '${BACKEND}'")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env TRITONPACK_BACKEND=${BACKEND} TRITONPACK_CACHE_DIR=${WORK}/cache ${_env} "${QUICKSTART}"
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
message("${_out}${_err}")

set(_problems "")
# Both kernels: the first call, 50 timed calls, and vector_add's general variant once more.
set(_want_report "launches 103\nlaunch row_softmax 51\nlaunch vector_add 52\n")
if(BACKEND STREQUAL "hip")
  string(APPEND _want_report "rejected 0\nloads 3\nrefused_loads 0\n")
endif()
if(EXISTS "${_report}")
  file(READ "${_report}" _got_report)
else()
  set(_got_report "(no report: the program did not load the double, or died before exit)")
endif()
if(NOT _got_report STREQUAL _want_report)
  string(APPEND _problems "the double recorded\n${_got_report}\nbut the quickstart makes\n${_want_report}\n")
endif()
if(NOT _out MATCHES "GPU: device 0 \\(")
  string(APPEND _problems "it did not take the GPU path\n")
endif()
string(REGEX MATCHALL "image      ${_image} " _images "${_out}")
list(LENGTH _images _n_images)
if(NOT _n_images EQUAL 2)
  string(APPEND _problems "vector_add and row_softmax should each report image '${_image}'\n")
endif()
if(_err MATCHES "error:")
  string(APPEND _problems "it stopped on an error\n")
endif()
if(NOT _rc EQUAL 1 OR NOT _out MATCHES "MISMATCH: see above")
  string(APPEND _problems "exit ${_rc}: expected 1 with 'MISMATCH' (the double runs no kernel, so results stay NaN)\n")
endif()
if(_problems)
  message(FATAL_ERROR "quickstart on the ${BACKEND} test double:\n${_problems}")
endif()
message("quickstart on the ${BACKEND} test double: all 103 launches accepted (sha256 ${_sha})")
