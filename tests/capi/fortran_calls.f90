! Fortran callers of the generated module capi_types (compiled, like the module, with
! -std=f2018 -Wall -Werror), run by ctest against the test-double driver:
!   fortran_calls launch   every scalar kind and a caller-passed grid, stat present (the launch
!                          log is checked by run_and_check.cmake), and keyword arguments renamed
!                          for Fortran
!   fortran_calls stat     no GPU, stat present: the code comes back, the program goes on
!   fortran_calls nostat   no GPU, stat absent: the message on error_unit and error stop
program fortran_calls
  use, intrinsic :: iso_c_binding, only: c_bool, c_double, c_float, c_int8_t, c_int16_t, c_int32_t, c_int64_t, &
                                         c_null_ptr
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
  case default
    error stop "usage: fortran_calls launch|stat|nostat"
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

end program fortran_calls
