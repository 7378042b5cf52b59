! Fortran callers of the generated module capi_types (compiled, like the module, with
! -std=f2018 -Wall -Werror), run by ctest against the test-double driver:
!   fortran_calls launch   every scalar kind and a caller-passed grid, stat present (the launch
!                          log is checked by run_and_check.cmake), and keyword arguments renamed
!                          for Fortran
!   fortran_calls stat     no GPU, stat present: the code comes back, the program goes on
!   fortran_calls nostat   no GPU, stat absent: the message on error_unit and error stop
!   fortran_calls streams  module tritonpack's memory calls checked by value (memory_info's sizes
!                          beyond 4 GiB, copy_async's bytes both ways), and every call given a
!                          non-blocking stream queues its work there (the double's stream log is
!                          checked by run_and_check.cmake)
program fortran_calls
  use, intrinsic :: iso_c_binding, only: c_bool, c_double, c_float, c_int8_t, c_int16_t, c_int32_t, c_int64_t, &
                                         c_null_ptr, c_ptr, c_size_t, c_loc
  use tritonpack
  use capi_types
  implicit none
  character(len=16) :: mode
  integer :: stat

  call get_command_argument(1, mode)
  select case (trim(mode))
  case ("launch")
    call call_scalars(stat)
    if (stat /= TRITONPACK_SUCCESS) error stop "scalars: stat is not TRITONPACK_SUCCESS"
    call explicit_grid(tritonpack_grid3(3, 2, 5), c_null_ptr, 9_c_int32_t, stat=stat)
    if (stat /= TRITONPACK_SUCCESS) error stop "explicit_grid: stat is not TRITONPACK_SUCCESS"
    call renamed(restrict=1_c_int32_t, stream_=2_c_int32_t, arg_x=3_c_int32_t, N=4_c_int32_t, n_=5_c_int32_t, &
                 int32_t=6_c_int32_t, stat_=7_c_int32_t)
    if (tritonpack_from_half(tritonpack_to_half(1.5_c_float)) /= 1.5_c_float) error stop "fp16 round trip"
    if (tritonpack_from_bfloat16(tritonpack_to_bfloat16(-2.0_c_float)) /= -2.0_c_float) error stop "bf16 round trip"
    print '(a)', "launched"
  case ("stat")
    call call_scalars(stat)
    print '(a,i0,2a)', "stat = ", stat, ": ", tritonpack_message(capi_types_last_error())
    if (stat /= TRITONPACK_ERROR_NO_DEVICE) error stop "stat is not TRITONPACK_ERROR_NO_DEVICE"
    print '(a)', "the program goes on"
  case ("nostat")
    call scalars(c_null_ptr, .true._c_bool, -2_c_int8_t, -300_c_int16_t, -70000_c_int32_t, -5000000000_c_int64_t, &
                 -56_c_int8_t, -5536_c_int16_t, -294967296_c_int32_t, -446744073709551616_c_int64_t, &
                 tritonpack_to_half(1.5_c_float), tritonpack_to_bfloat16(-2.0_c_float), 0.25_c_float, -0.125_c_double)
    print '(a)', "not reached"
  case ("streams")
    call check_streams()
    print '(a)', "streams checked"
  case default
    error stop "usage: fortran_calls launch|stat|nostat|streams"
  end select

contains

  ! scalars() with the values calls.c passes: unsigned values as the signed kind of their size.
  subroutine call_scalars(stat)
    integer, intent(out) :: stat
    call scalars(c_null_ptr, .true._c_bool, -2_c_int8_t, -300_c_int16_t, -70000_c_int32_t, -5000000000_c_int64_t, &
                 -56_c_int8_t, -5536_c_int16_t, -294967296_c_int32_t, -446744073709551616_c_int64_t, &
                 tritonpack_to_half(1.5_c_float), tritonpack_to_bfloat16(-2.0_c_float), 0.25_c_float, -0.125_c_double, &
                 stat=stat)
  end subroutine call_scalars

  ! Run with TRITONPACK_FAKE_DEVICES=sm_90/mem=12884901888: 12 GiB, more than a 4-byte integer holds.
  subroutine check_streams()
    integer(c_size_t), parameter :: device_bytes = 12884901888_c_size_t, bytes = 16_c_size_t
    integer(c_size_t) :: free_bytes, total_bytes
    real(c_float), target :: host(4), back(4)
    type(c_ptr) :: stream, device
    integer :: stat

    free_bytes = 0
    total_bytes = 0
    if (tritonpack_memory_info(free_bytes, total_bytes) /= TRITONPACK_SUCCESS) error stop "memory_info failed"
    if (total_bytes /= device_bytes) error stop "memory_info: total_bytes is not the device's 12 GiB"
    if (free_bytes /= device_bytes) error stop "memory_info: free_bytes is not 12 GiB with nothing allocated"
    if (tritonpack_stream_create(stream, 1) /= TRITONPACK_SUCCESS) error stop "stream_create failed"
    if (tritonpack_malloc(device, bytes) /= TRITONPACK_SUCCESS) error stop "malloc failed"
    host = [1.0_c_float, 2.0_c_float, 3.0_c_float, 4.0_c_float]
    back = 0.0_c_float
    if (tritonpack_copy_async(device, c_loc(host), bytes, stream) /= TRITONPACK_SUCCESS) &
      error stop "copy_async to the device failed"
    if (tritonpack_copy_async(c_loc(back), device, bytes, stream) /= TRITONPACK_SUCCESS) &
      error stop "copy_async to the host failed"
    if (tritonpack_stream_synchronize(stream) /= TRITONPACK_SUCCESS) error stop "stream_synchronize failed"
    if (any(back /= host)) error stop "copy_async: the bytes did not make the round trip"
    if (tritonpack_memset_async(device, 0, bytes, stream) /= TRITONPACK_SUCCESS) error stop "memset_async failed"
    if (tritonpack_copy(c_loc(back), device, bytes) /= TRITONPACK_SUCCESS) error stop "copy failed"
    if (any(back /= 0.0_c_float)) error stop "memset_async: the device memory is not zero"
    ! Each generated subroutine passes stream= on (checked in the stream log).
    call explicit_grid(tritonpack_grid3(1, 1, 1), device, 9_c_int32_t, stream=stream, stat=stat)
    if (stat /= TRITONPACK_SUCCESS) error stop "explicit_grid on a stream failed"
    call aligned_only(device, 32_c_int32_t, stream=stream, stat=stat)
    if (stat /= TRITONPACK_SUCCESS) error stop "aligned_only on a stream failed"
    call renamed(1_c_int32_t, 2_c_int32_t, 3_c_int32_t, 4_c_int32_t, 5_c_int32_t, 6_c_int32_t, 7_c_int32_t, &
                 stream=stream, stat=stat)
    if (stat /= TRITONPACK_SUCCESS) error stop "renamed on a stream failed"
    if (tritonpack_free(device) /= TRITONPACK_SUCCESS) error stop "free failed"
    if (tritonpack_stream_destroy(stream) /= TRITONPACK_SUCCESS) error stop "stream_destroy failed"
  end subroutine check_streams

end program fortran_calls
