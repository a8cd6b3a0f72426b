! fortran/kk.f90 -- module kk: kk from Fortran (views over Fortran arrays, kk-kernels, kkcc kernel modules).
! SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
!
! Interfaces only: every procedure is C code in libkk-fortran (fortran/kk_fortran.c), reached through
! bind(C) with Fortran 2018 interoperability (TS 29113: assumed-rank and assumed-type arrays, optional
! and character(kind=c_char, len=*) arguments).  Every procedure takes an optional `status`: present, it receives
! KK_OK (0) or kk's negative status and nothing is printed (kk_last_error gives the message); absent,
! a failure prints kk's message and stops the program.  docs/fortran.md is the guide.
module kk
  use, intrinsic :: iso_c_binding
  implicit none

  integer(c_int), parameter :: KK_OK = 0
  ! element types (kk_type_t)
  integer(c_int), parameter :: KK_INT8 = 1, KK_INT16 = 3, KK_INT32 = 5, KK_INT64 = 7, KK_FLOAT = 9, &
                               KK_DOUBLE = 10, KK_COMPLEX_FLOAT = 11, KK_COMPLEX_DOUBLE = 12
  integer, parameter :: KK_MAX_RANK = 8

  ! handles (kk_view_t *, kk_crs_t *, kk_module_t *, kk_kernel_t *)
  type, bind(C) :: kk_view
    type(c_ptr) :: h = c_null_ptr
  end type
  type, bind(C) :: kk_crs
    type(c_ptr) :: h = c_null_ptr
  end type
  type, bind(C) :: kk_module
    type(c_ptr) :: h = c_null_ptr
  end type
  type, bind(C) :: kk_kernel
    type(c_ptr) :: h = c_null_ptr
  end type

  ! a view as a kernel sees it (kk_view_desc_t) and the four members of argument structs
  type, bind(C) :: kk_view_desc
    type(c_ptr) :: data
    integer(c_int64_t) :: extent(KK_MAX_RANK), stride(KK_MAX_RANK)
    integer(c_int32_t) :: rank, layout, elem_size, type
  end type
  type, bind(C) :: kk_view_arg             ! C: kk_view
    type(kk_view_desc) :: d
    character(kind=c_char) :: tag(1)
  end type
  type, bind(C) :: kk_view_right_arg       ! C: kk_view_right
    type(kk_view_desc) :: d
    character(kind=c_char) :: tag(2)
  end type
  type, bind(C) :: kk_view_left_arg        ! C: kk_view_left
    type(kk_view_desc) :: d
    character(kind=c_char) :: tag(3)
  end type
  type, bind(C) :: kk_view_strided_arg     ! C: kk_view_strided
    type(kk_view_desc) :: d
    character(kind=c_char) :: tag(4)
  end type

  interface
    ! ---- initialization, errors
    subroutine kk_initialize(device, num_threads, device_id, status) bind(C, name="kk_fortran_initialize")
      import :: c_int, c_char
      character(kind=c_char, len=*), intent(in), optional :: device      ! "openmp", "cuda:1", ... (default: the best)
      integer(c_int), intent(in), optional :: num_threads, device_id
      integer(c_int), intent(out), optional :: status
    end subroutine
    subroutine kk_finalize(status) bind(C, name="kk_fortran_finalize")
      import :: c_int
      integer(c_int), intent(out), optional :: status
    end subroutine
    integer(c_int) function kk_is_initialized() bind(C, name="kk_fortran_is_initialized")
      import :: c_int
    end function
    subroutine kk_fence(status) bind(C, name="kk_fortran_fence")
      import :: c_int
      integer(c_int), intent(out), optional :: status
    end subroutine
    subroutine kk_backend(name) bind(C, name="kk_fortran_backend")     ! the default backend's name
      import :: c_char
      character(kind=c_char, len=*), intent(out) :: name
    end subroutine
    subroutine kk_last_error(message) bind(C, name="kk_fortran_last_error")
      import :: c_char
      character(kind=c_char, len=*), intent(out) :: message
    end subroutine
    subroutine kk_set_errors_fatal(fatal) bind(C, name="kk_fortran_set_errors_fatal")
      import :: c_int
      integer(c_int), intent(in) :: fatal   ! 0: a failure without `status` prints and goes on
    end subroutine

    ! ---- views
    ! a view of a Fortran array (rank 1-7; real, complex, integer) without a copy: LayoutLeft when
    ! contiguous, else LayoutStride; host memory.  The array must outlive the view's use.
    subroutine kk_view_wrap(v, array, label, status) bind(C, name="kk_fortran_view_wrap")
      import :: kk_view, c_int, c_char
      type(kk_view), intent(inout) :: v
      type(*), dimension(..), intent(in), target :: array
      character(kind=c_char, len=*), intent(in), optional :: label
      integer(c_int), intent(out), optional :: status
    end subroutine
    ! a new zeroed LayoutLeft view of `type` (KK_DOUBLE, ...) and extents, in `space` ("Cuda", ...;
    ! default: the default backend's space)
    subroutine kk_view_create(v, label, type, extents, space, status) bind(C, name="kk_fortran_view_create")
      import :: kk_view, c_int, c_char
      type(kk_view), intent(inout) :: v
      character(kind=c_char, len=*), intent(in) :: label
      integer(c_int), intent(in) :: type
      type(*), dimension(:), intent(in) :: extents          ! integer, kind 4 or 8
      character(kind=c_char, len=*), intent(in), optional :: space
      integer(c_int), intent(out), optional :: status
    end subroutine
    subroutine kk_view_release(v) bind(C, name="kk_fortran_view_release")
      import :: kk_view
      type(kk_view), intent(inout) :: v
    end subroutine
    integer(c_int64_t) function kk_view_extent(v, dim) bind(C, name="kk_fortran_view_extent")
      import :: kk_view, c_int, c_int64_t
      type(kk_view), intent(in) :: v
      integer(c_int), intent(in) :: dim                     ! 1-based
    end function
    integer(c_int) function kk_view_rank(v) bind(C, name="kk_fortran_view_rank")
      import :: kk_view, c_int
      type(kk_view), intent(in) :: v
    end function
    type(c_ptr) function kk_view_data(v) bind(C, name="kk_fortran_view_data")
      import :: kk_view, c_ptr
      type(kk_view), intent(in) :: v
    end function
    subroutine kk_deep_copy(dst, src, status) bind(C, name="kk_fortran_deep_copy")
      import :: kk_view, c_int
      type(kk_view), intent(inout) :: dst, src
      integer(c_int), intent(out), optional :: status
    end subroutine
    subroutine kk_copy_to_view(dst, array, status) bind(C, name="kk_fortran_copy_to_view")   ! view <- array
      import :: kk_view, c_int
      type(kk_view), intent(inout) :: dst
      type(*), dimension(..), intent(in), target :: array
      integer(c_int), intent(out), optional :: status
    end subroutine
    subroutine kk_copy_from_view(array, src, status) bind(C, name="kk_fortran_copy_from_view") ! array <- view
      import :: kk_view, c_int
      type(*), dimension(..), intent(inout), target :: array
      type(kk_view), intent(inout) :: src
      integer(c_int), intent(out), optional :: status
    end subroutine
    subroutine kk_view_fill(v, value, status) bind(C, name="kk_fortran_view_fill")
      import :: kk_view, c_int, c_double
      type(kk_view), intent(inout) :: v
      real(c_double), intent(in) :: value
      integer(c_int), intent(out), optional :: status
    end subroutine

    ! ---- kk-kernels (real views; asynchronous unless a value is returned, as in C)
    subroutine kk_axpby(a, x, b, y, status) bind(C, name="kk_fortran_axpby")   ! y = a x + b y
      import :: kk_view, c_int, c_double
      real(c_double), intent(in) :: a, b
      type(kk_view), intent(inout) :: x, y
      integer(c_int), intent(out), optional :: status
    end subroutine
    subroutine kk_scal(a, x, status) bind(C, name="kk_fortran_scal")            ! x = a x
      import :: kk_view, c_int, c_double
      real(c_double), intent(in) :: a
      type(kk_view), intent(inout) :: x
      integer(c_int), intent(out), optional :: status
    end subroutine
    real(c_double) function kk_dot(x, y, status) bind(C, name="kk_fortran_dot")
      import :: kk_view, c_int, c_double
      type(kk_view), intent(inout) :: x, y
      integer(c_int), intent(out), optional :: status
    end function
    real(c_double) function kk_nrm2(x, status) bind(C, name="kk_fortran_nrm2")
      import :: kk_view, c_int, c_double
      type(kk_view), intent(inout) :: x
      integer(c_int), intent(out), optional :: status
    end function
    subroutine kk_gemv(trans, alpha, A, x, beta, y, status) bind(C, name="kk_fortran_gemv")
      import :: kk_view, c_int, c_double, c_char
      character(kind=c_char, len=*), intent(in) :: trans                 ! "N", "T" or "C"
      real(c_double), intent(in) :: alpha, beta
      type(kk_view), intent(inout) :: A, x, y
      integer(c_int), intent(out), optional :: status
    end subroutine
    subroutine kk_gemm(transa, transb, alpha, A, B, beta, C, status) bind(C, name="kk_fortran_gemm")
      import :: kk_view, c_int, c_double, c_char
      character(kind=c_char, len=*), intent(in) :: transa, transb
      real(c_double), intent(in) :: alpha, beta
      type(kk_view), intent(inout) :: A, B, C
      integer(c_int), intent(out), optional :: status
    end subroutine
    ! rank-3 views (batch, rows, columns)
    subroutine kk_batched_gemm(transa, transb, alpha, A, B, beta, C, status) bind(C, name="kk_fortran_batched_gemm")
      import :: kk_view, c_int, c_double, c_char
      character(kind=c_char, len=*), intent(in) :: transa, transb
      real(c_double), intent(in) :: alpha, beta
      type(kk_view), intent(inout) :: A, B, C
      integer(c_int), intent(out), optional :: status
    end subroutine
    ! a CRS matrix from CSR arrays (indices from index_base, default 1), copied into `space`
    subroutine kk_crs_create(A, nrows, ncols, row_ptr, col_idx, values, index_base, space, label, status) &
        bind(C, name="kk_fortran_crs_create")
      import :: kk_crs, c_int, c_int64_t, c_char
      type(kk_crs), intent(inout) :: A
      integer(c_int64_t), intent(in) :: nrows, ncols
      type(*), dimension(:), intent(in) :: row_ptr, col_idx   ! integer, kind 4 or 8
      type(*), dimension(:), intent(in) :: values             ! real or complex, kind 4 or 8
      integer(c_int), intent(in), optional :: index_base
      character(kind=c_char, len=*), intent(in), optional :: space, label
      integer(c_int), intent(out), optional :: status
    end subroutine
    subroutine kk_crs_destroy(A) bind(C, name="kk_fortran_crs_destroy")
      import :: kk_crs
      type(kk_crs), intent(inout) :: A
    end subroutine
    subroutine kk_spmv(trans, alpha, A, x, beta, y, status) bind(C, name="kk_fortran_spmv")
      import :: kk_crs, kk_view, c_int, c_double, c_char
      character(kind=c_char, len=*), intent(in) :: trans
      real(c_double), intent(in) :: alpha, beta
      type(kk_crs), intent(inout) :: A
      type(kk_view), intent(inout) :: x, y
      integer(c_int), intent(out), optional :: status
    end subroutine
    ! conjugate gradients (Jacobi-preconditioned unless jacobi = 0); x: initial guess and solution
    subroutine kk_cg(A, b, x, tol, max_iterations, jacobi, iterations, residual, converged, status) &
        bind(C, name="kk_fortran_cg")
      import :: kk_crs, kk_view, c_int, c_double
      type(kk_crs), intent(inout) :: A
      type(kk_view), intent(inout) :: b, x
      real(c_double), intent(in), optional :: tol
      integer(c_int), intent(in), optional :: max_iterations, jacobi
      integer(c_int), intent(out), optional :: iterations, converged
      real(c_double), intent(out), optional :: residual
      integer(c_int), intent(out), optional :: status
    end subroutine

    ! ---- kernel modules (kkcc -shared FILE.kk.c -o FILE.so; kk-fortran-args FILE.so writes their
    ! argument structs as bind(C) types)
    subroutine kk_module_load(m, path, status) bind(C, name="kk_fortran_module_load")
      import :: kk_module, c_int, c_char
      type(kk_module), intent(inout) :: m
      character(kind=c_char, len=*), intent(in) :: path
      integer(c_int), intent(out), optional :: status
    end subroutine
    subroutine kk_module_unload(m, status) bind(C, name="kk_fortran_module_unload")
      import :: kk_module, c_int
      type(kk_module), intent(inout) :: m
      integer(c_int), intent(out), optional :: status
    end subroutine
    subroutine kk_module_kernel(k, m, name, status) bind(C, name="kk_fortran_module_kernel")
      import :: kk_kernel, kk_module, c_int, c_char
      type(kk_kernel), intent(out) :: k
      type(kk_module), intent(in) :: m
      character(kind=c_char, len=*), intent(in) :: name
      integer(c_int), intent(out), optional :: status
    end subroutine
    subroutine kk_bind_view(arg, v) bind(C, name="kk_fortran_bind")
      import :: kk_view_arg, kk_view
      type(kk_view_arg), intent(out) :: arg
      type(kk_view), intent(in) :: v
    end subroutine
    subroutine kk_bind_view_right(arg, v) bind(C, name="kk_fortran_bind_right")
      import :: kk_view_right_arg, kk_view
      type(kk_view_right_arg), intent(out) :: arg
      type(kk_view), intent(in) :: v
    end subroutine
    subroutine kk_bind_view_left(arg, v) bind(C, name="kk_fortran_bind_left")
      import :: kk_view_left_arg, kk_view
      type(kk_view_left_arg), intent(out) :: arg
      type(kk_view), intent(in) :: v
    end subroutine
    subroutine kk_bind_view_strided(arg, v) bind(C, name="kk_fortran_bind_strided")
      import :: kk_view_strided_arg, kk_view
      type(kk_view_strided_arg), intent(out) :: arg
      type(kk_view), intent(in) :: v
    end subroutine
    ! launches kernel k on [begin, end) with its argument struct (args_size = c_sizeof(args))
    subroutine kk_parallel_for(label, k, begin, end, args, args_size, status) bind(C, name="kk_fortran_parallel_for")
      import :: kk_kernel, c_int, c_int64_t, c_char
      character(kind=c_char, len=*), intent(in) :: label
      type(kk_kernel), intent(in) :: k
      integer(c_int64_t), intent(in) :: begin, end, args_size
      type(*), intent(in) :: args
      integer(c_int), intent(out), optional :: status
    end subroutine
    subroutine kk_parallel_reduce(label, k, begin, end, args, args_size, result, result_size, status) &
        bind(C, name="kk_fortran_parallel_reduce")
      import :: kk_kernel, c_int, c_int64_t, c_char
      character(kind=c_char, len=*), intent(in) :: label
      type(kk_kernel), intent(in) :: k
      integer(c_int64_t), intent(in) :: begin, end, args_size, result_size
      type(*), intent(in) :: args
      type(*), intent(inout) :: result
      integer(c_int), intent(out), optional :: status
    end subroutine
  end interface

  ! one name for the four binds: call kk_bind(args%x, xv)
  interface kk_bind
    procedure kk_bind_view, kk_bind_view_right, kk_bind_view_left, kk_bind_view_strided
  end interface
end module kk
