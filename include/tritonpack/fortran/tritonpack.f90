! tritonpack.f90 — module tritonpack: the run time's C API (<tritonpack/c/tritonpack.h>) for
! Fortran, so a Fortran program allocates, copies and synchronises without C glue of its own
! (docs/c-fortran.md). Compiled into the static library tritonpack_fortran by
! tritonpack_add_kernels(... LANGUAGES Fortran); each library's module NAME uses it.
!
! Every function returns TRITONPACK_SUCCESS (0) or an error code below; after a failure
! tritonpack_message(tritonpack_last_error()) is the calling thread's message. Device pointers are
! type(c_ptr); host arrays are passed as c_loc(array) (the array needs the target attribute).
module tritonpack
  use, intrinsic :: iso_c_binding, only: c_char, c_f_pointer, c_float, c_int, c_int16_t, c_int32_t, &
                                         c_associated, c_ptr, c_size_t
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  private

  ! The error codes: stable values, as in tritonpack.h (both checked against the code table,
  ! include/tritonpack/core/error_codes.hpp).
  integer(c_int), parameter, public :: TRITONPACK_SUCCESS = 0
  integer(c_int), parameter, public :: TRITONPACK_ERROR_BAD_CONTAINER = 1
  integer(c_int), parameter, public :: TRITONPACK_ERROR_BAD_ARGUMENT = 2
  integer(c_int), parameter, public :: TRITONPACK_ERROR_NOT_FOUND = 3
  integer(c_int), parameter, public :: TRITONPACK_ERROR_NO_DRIVER = 4
  integer(c_int), parameter, public :: TRITONPACK_ERROR_NO_DEVICE = 5
  integer(c_int), parameter, public :: TRITONPACK_ERROR_NO_IMAGE = 6
  integer(c_int), parameter, public :: TRITONPACK_ERROR_PTX_TOO_NEW = 7
  integer(c_int), parameter, public :: TRITONPACK_ERROR_JIT_FAILED = 8
  integer(c_int), parameter, public :: TRITONPACK_ERROR_OUT_OF_MEMORY = 9
  integer(c_int), parameter, public :: TRITONPACK_ERROR_LAUNCH_FAILED = 10
  integer(c_int), parameter, public :: TRITONPACK_ERROR_DRIVER_ERROR = 11
  integer(c_int), parameter, public :: TRITONPACK_ERROR_IO_ERROR = 12
  integer(c_int), parameter, public :: TRITONPACK_ERROR_UNSUPPORTED = 13
  integer(c_int), parameter, public :: TRITONPACK_ERROR_INTERNAL = 14

  ! A launch grid in Triton programs, for kernels whose spec gives no grid expression.
  type, bind(C), public :: tritonpack_grid3
    integer(c_int32_t) :: x = 1, y = 1, z = 1
  end type tritonpack_grid3

  public :: tritonpack_last_error, tritonpack_status_name, tritonpack_message, tritonpack_stop
  public :: tritonpack_device_count, tritonpack_set_device, tritonpack_get_device, tritonpack_memory_info
  public :: tritonpack_set_device_for_local_rank
  public :: tritonpack_malloc, tritonpack_free, tritonpack_copy, tritonpack_copy_async
  public :: tritonpack_memset, tritonpack_memset_async, tritonpack_synchronize
  public :: tritonpack_stream_synchronize, tritonpack_stream_create, tritonpack_stream_destroy
  public :: tritonpack_to_half, tritonpack_from_half, tritonpack_to_bfloat16, tritonpack_from_bfloat16

  interface
    type(c_ptr) function tritonpack_last_error() bind(C, name="tritonpack_last_error")
      import :: c_ptr
    end function tritonpack_last_error
    type(c_ptr) function tritonpack_status_name(status) bind(C, name="tritonpack_status_name")
      import :: c_ptr, c_int
      integer(c_int), value :: status
    end function tritonpack_status_name
    integer(c_int) function tritonpack_device_count(count) bind(C, name="tritonpack_device_count")
      import :: c_int
      integer(c_int), intent(out) :: count
    end function tritonpack_device_count
    integer(c_int) function tritonpack_set_device(ordinal) bind(C, name="tritonpack_set_device")
      import :: c_int
      integer(c_int), value :: ordinal
    end function tritonpack_set_device
    ! Device local_rank mod (GPUs seen), into ordinal; no GPU: the run time's diagnosis, not a
    ! division by zero (docs/c-fortran.md).
    integer(c_int) function tritonpack_set_device_for_local_rank(local_rank, ordinal) &
        bind(C, name="tritonpack_set_device_for_local_rank")
      import :: c_int
      integer(c_int), value :: local_rank
      integer(c_int), intent(out) :: ordinal
    end function tritonpack_set_device_for_local_rank
    integer(c_int) function tritonpack_get_device(ordinal) bind(C, name="tritonpack_get_device")
      import :: c_int
      integer(c_int), intent(out) :: ordinal
    end function tritonpack_get_device
    integer(c_int) function tritonpack_memory_info(free_bytes, total_bytes) bind(C, name="tritonpack_memory_info")
      import :: c_int, c_size_t
      integer(c_size_t), intent(out) :: free_bytes, total_bytes
    end function tritonpack_memory_info
    integer(c_int) function tritonpack_malloc(ptr, bytes) bind(C, name="tritonpack_malloc")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), intent(out) :: ptr
      integer(c_size_t), value :: bytes
    end function tritonpack_malloc
    integer(c_int) function tritonpack_free(ptr) bind(C, name="tritonpack_free")
      import :: c_int, c_ptr
      type(c_ptr), value :: ptr
    end function tritonpack_free
    integer(c_int) function tritonpack_copy(dst, src, bytes) bind(C, name="tritonpack_copy")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: dst, src
      integer(c_size_t), value :: bytes
    end function tritonpack_copy
    integer(c_int) function tritonpack_copy_async(dst, src, bytes, stream) bind(C, name="tritonpack_copy_async")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: dst, src, stream
      integer(c_size_t), value :: bytes
    end function tritonpack_copy_async
    integer(c_int) function tritonpack_memset(dst, value, bytes) bind(C, name="tritonpack_memset")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: dst
      integer(c_int), value :: value
      integer(c_size_t), value :: bytes
    end function tritonpack_memset
    integer(c_int) function tritonpack_memset_async(dst, value, bytes, stream) bind(C, name="tritonpack_memset_async")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: dst, stream
      integer(c_int), value :: value
      integer(c_size_t), value :: bytes
    end function tritonpack_memset_async
    integer(c_int) function tritonpack_synchronize() bind(C, name="tritonpack_synchronize")
      import :: c_int
    end function tritonpack_synchronize
    integer(c_int) function tritonpack_stream_synchronize(stream) bind(C, name="tritonpack_stream_synchronize")
      import :: c_int, c_ptr
      type(c_ptr), value :: stream
    end function tritonpack_stream_synchronize
    integer(c_int) function tritonpack_stream_create(stream, non_blocking) bind(C, name="tritonpack_stream_create")
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: stream
      integer(c_int), value :: non_blocking
    end function tritonpack_stream_create
    integer(c_int) function tritonpack_stream_destroy(stream) bind(C, name="tritonpack_stream_destroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: stream
    end function tritonpack_stream_destroy

    pure integer(c_int16_t) function c_half_from_float(value) bind(C, name="tritonpack_half_from_float")
      import :: c_int16_t, c_float
      real(c_float), value :: value
    end function c_half_from_float
    pure real(c_float) function c_half_to_float(value) bind(C, name="tritonpack_half_to_float")
      import :: c_int16_t, c_float
      integer(c_int16_t), value :: value
    end function c_half_to_float
    pure integer(c_int16_t) function c_bfloat16_from_float(value) bind(C, name="tritonpack_bfloat16_from_float")
      import :: c_int16_t, c_float
      real(c_float), value :: value
    end function c_bfloat16_from_float
    pure real(c_float) function c_bfloat16_to_float(value) bind(C, name="tritonpack_bfloat16_to_float")
      import :: c_int16_t, c_float
      integer(c_int16_t), value :: value
    end function c_bfloat16_to_float
    pure integer(c_size_t) function c_strlen(s) bind(C, name="strlen")
      import :: c_size_t, c_ptr
      type(c_ptr), value :: s
    end function c_strlen
  end interface

contains

  ! A C string (tritonpack_last_error(), NAME_last_error(), tritonpack_status_name()) as a
  ! Fortran string; "" for a null pointer.
  function tritonpack_message(c_string) result(text)
    type(c_ptr), intent(in) :: c_string
    character(len=:), allocatable :: text
    character(kind=c_char), pointer :: chars(:)
    integer(c_size_t) :: n, i
    if (.not. c_associated(c_string)) then
      text = ""
      return
    end if
    n = c_strlen(c_string)
    call c_f_pointer(c_string, chars, [n])
    allocate (character(len=n) :: text)
    do i = 1, n
      text(i:i) = chars(i)
    end do
  end function tritonpack_message

  ! What a generated wrapper does on a failure when the caller passed no stat: the message on
  ! error_unit, then error stop (exit status 1), as Fortran's own run-time errors do.
  subroutine tritonpack_stop(call, status, c_message)
    character(len=*), intent(in) :: call
    integer(c_int), intent(in) :: status
    type(c_ptr), intent(in) :: c_message
    write (error_unit, '(a)') call // " failed (" // tritonpack_message(tritonpack_status_name(status)) // "): " // &
      tritonpack_message(c_message)
    error stop
  end subroutine tritonpack_stop

  ! fp16 / bf16 values as the integer(c_int16_t) bits the kernels take, rounding half to even.
  elemental integer(c_int16_t) function tritonpack_to_half(value)
    real(c_float), intent(in) :: value
    tritonpack_to_half = c_half_from_float(value)
  end function tritonpack_to_half
  elemental real(c_float) function tritonpack_from_half(bits)
    integer(c_int16_t), intent(in) :: bits
    tritonpack_from_half = c_half_to_float(bits)
  end function tritonpack_from_half
  elemental integer(c_int16_t) function tritonpack_to_bfloat16(value)
    real(c_float), intent(in) :: value
    tritonpack_to_bfloat16 = c_bfloat16_from_float(value)
  end function tritonpack_to_bfloat16
  elemental real(c_float) function tritonpack_from_bfloat16(bits)
    integer(c_int16_t), intent(in) :: bits
    tritonpack_from_bfloat16 = c_bfloat16_to_float(bits)
  end function tritonpack_from_bfloat16

end module tritonpack
