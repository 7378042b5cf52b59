! The quickstart's two Triton kernels called from Fortran: module quickstart (generated
! quickstart.f90) has
!   subroutine vector_add(x, y, out, n, alpha, stream, stat)
!   subroutine row_softmax(out, inp, n_rows, n_cols, in_stride, out_stride, stream, stat)
! with device pointers as type(c_ptr) and scalars as integer(c_int32_t) / real(c_float). Device
! memory comes from module tritonpack (the run time's C API): no CUDA toolkit, no C glue.
!
! On a GPU it runs both kernels, checks them against a CPU reference and exits 0 when they match.
! Without a GPU it says why it cannot launch and exits 0 (1 with --require-gpu), as the C++
! quickstart does.
program quickstart_fortran
  use, intrinsic :: iso_c_binding, only: c_float, c_int, c_int32_t, c_loc, c_null_ptr, c_ptr, c_size_t
  use, intrinsic :: iso_fortran_env, only: error_unit
  use ieee_arithmetic, only: ieee_is_nan
  use tritonpack
  use quickstart, only: vector_add, row_softmax, quickstart_last_error
  implicit none

  integer(c_int) :: devices
  integer :: stat
  logical :: require_gpu, ok
  character(len=32) :: arg

  require_gpu = .false.
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    if (command_argument_count() > 1 .or. arg /= "--require-gpu") then
      write (error_unit, '(a)') "usage: quickstart_fortran [--require-gpu]"
      error stop 2
    end if
    require_gpu = .true.
  end if

  print '(a/)', "tritonpack quickstart: Triton kernels in a Fortran program"
  call check(tritonpack_device_count(devices), "tritonpack_device_count")
  if (devices == 0) then
    ! What any kernel call says on this machine (stat present: the call reports, nothing stops).
    call vector_add(c_null_ptr, c_null_ptr, c_null_ptr, 16_c_int32_t, 1.0_c_float, stat=stat)
    print '(a,a)', "Cannot launch here: ", tritonpack_message(quickstart_last_error())
    print '(a,a,a/)', "[", tritonpack_message(tritonpack_status_name(stat)), "]"
    print '(a)', "Nothing is wrong with the program: run it on a node with an NVIDIA GPU; it needs only the"
    print '(a)', "GPU driver (no CUDA toolkit, Python or PyTorch)."
    if (require_gpu) error stop 1
    stop
  end if

  print '(a,i0/)', "GPUs: ", devices
  ok = run_vector_add()
  ok = run_row_softmax() .and. ok
  if (ok) then
    print '(/a)', "All results match the CPU reference."
  else
    print '(/a)', "MISMATCH: see above."
    stop 1
  end if

contains

  ! A failed memory-API call: the call, its code and the message, then stop.
  subroutine check(status, call)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: call
    if (status == TRITONPACK_SUCCESS) return
    write (error_unit, '(5a)') "error: ", call, " failed [", tritonpack_message(tritonpack_status_name(status)), "]"
    write (error_unit, '(2a)') "  ", tritonpack_message(tritonpack_last_error())
    error stop 1
  end subroutine check

  ! out = x + alpha * y on 1M elements: 16-byte aligned and n % 16 == 0, so variant 0.
  logical function run_vector_add() result(ok)
    integer(c_int32_t), parameter :: n = 2**20
    real(c_float), parameter :: alpha = 2.5
    real(c_float), allocatable, target :: x(:), y(:), got(:)
    integer(c_size_t) :: bytes
    type(c_ptr) :: dx, dy, dout
    integer :: bad
    allocate (x(n), y(n), got(n))
    call random_number(x)
    call random_number(y)
    bytes = int(n, c_size_t) * 4
    call check(tritonpack_malloc(dx, bytes), "tritonpack_malloc")
    call check(tritonpack_malloc(dy, bytes), "tritonpack_malloc")
    call check(tritonpack_malloc(dout, bytes), "tritonpack_malloc")
    call check(tritonpack_copy(dx, c_loc(x), bytes), "tritonpack_copy")
    call check(tritonpack_copy(dy, c_loc(y), bytes), "tritonpack_copy")
    call check(tritonpack_memset(dout, 255, bytes), "tritonpack_memset")  ! NaN: a missed element shows
    call vector_add(dx, dy, dout, n, alpha)  ! no stat: a failure stops the program with its message
    call check(tritonpack_synchronize(), "tritonpack_synchronize")
    call check(tritonpack_copy(c_loc(got), dout, bytes), "tritonpack_copy")
    bad = count_bad(got, x + alpha * y, 1e-6)
    print '(a,i0,3a,i0,a)', "vector_add   n = ", n, ": ", trim(merge("ok    ", "FAILED", bad == 0)), " (", bad, " wrong)"
    call check(tritonpack_free(dx), "tritonpack_free")
    call check(tritonpack_free(dy), "tritonpack_free")
    call check(tritonpack_free(dout), "tritonpack_free")
    ok = bad == 0
  end function run_vector_add

  ! Softmax of 512 rows of 781 columns stored in rows of 800 values, written into rows of 784.
  logical function run_row_softmax() result(ok)
    integer(c_int32_t), parameter :: rows = 512, cols = 781, in_stride = 800, out_stride = 784
    real(c_float), allocatable, target :: inp(:, :), got(:, :)
    real(c_float) :: want(cols)
    type(c_ptr) :: din, dout
    integer :: r, bad
    allocate (inp(in_stride, rows), got(out_stride, rows))
    call random_number(inp)
    inp = 16 * inp - 8
    call check(tritonpack_malloc(din, int(size(inp), c_size_t) * 4), "tritonpack_malloc")
    call check(tritonpack_malloc(dout, int(size(got), c_size_t) * 4), "tritonpack_malloc")
    call check(tritonpack_copy(din, c_loc(inp), int(size(inp), c_size_t) * 4), "tritonpack_copy")
    call check(tritonpack_memset(dout, 255, int(size(got), c_size_t) * 4), "tritonpack_memset")
    call row_softmax(dout, din, rows, cols, in_stride, out_stride)
    call check(tritonpack_copy(c_loc(got), dout, int(size(got), c_size_t) * 4), "tritonpack_copy")
    bad = 0
    do r = 1, rows
      want = exp(inp(1:cols, r) - maxval(inp(1:cols, r)))
      want = want / sum(want)
      bad = bad + count_bad(got(1:cols, r), want, 1e-4) + count(.not. ieee_is_nan(got(cols + 1:, r)))
    end do
    print '(a,i0,a,i0,3a,i0,a)', "row_softmax  ", rows, " x ", cols, ": ", trim(merge("ok    ", "FAILED", bad == 0)), &
      " (", bad, " wrong)"
    call check(tritonpack_free(din), "tritonpack_free")
    call check(tritonpack_free(dout), "tritonpack_free")
    ok = bad == 0
  end function run_row_softmax

  ! Elements of got farther than rtol (relative, plus 1e-6 absolute) from want; NaN counts.
  integer function count_bad(got, want, rtol)
    real(c_float), intent(in) :: got(:), want(:)
    real, intent(in) :: rtol
    count_bad = count(.not. (abs(got - want) <= 1e-6 + rtol * abs(want)))
  end function count_bad

end program quickstart_fortran
