! fortran/tests/test_kk.f90 -- module kk from Fortran on one backend (KK_TEST_DEVICE), run by tests/fortran.sh.
! SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
program test_kk
  use, intrinsic :: iso_c_binding
  use kk
  use kk_test_module_args
  implicit none
  character(len=32) :: device
  character(len=512) :: modpath, msg
  integer(c_int) :: st
  integer :: failures = 0

  call get_environment_variable("KK_TEST_DEVICE", device)
  if (len_trim(device) == 0) device = "serial"
  call get_environment_variable("KK_TEST_MODULE", modpath)
  call kk_initialize(device=trim(device), num_threads=2_c_int)
  call check(kk_is_initialized() == 1, "initialized")

  call views_wrap_fortran_arrays()
  call device_views_and_deep_copies()
  call blas()
  call sparse()
  if (len_trim(modpath) > 0) call kernel_module()
  call errors()

  call kk_finalize()
  call check(kk_is_initialized() == 0, "finalized")
  if (failures > 0) then
    print '(a,i0,a)', "test_kk: ", failures, " check(s) failed"
    error stop 1
  end if
  print '(a)', "test_kk: all checks passed on " // trim(device)

contains

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      print '(a)', "FAIL: " // what
      failures = failures + 1
    end if
  end subroutine

  subroutine views_wrap_fortran_arrays()
    real(c_double), target :: a1(5), a3(4, 3, 2), a7(2, 1, 2, 1, 2, 1, 3)
    integer(c_int32_t), target :: i2(3, 4)
    real(c_float), target :: f2(6, 4)
    type(kk_view) :: v
    a1 = [1, 2, 3, 4, 5]
    call kk_view_wrap(v, a1, "a1")
    call check(kk_view_rank(v) == 1 .and. kk_view_extent(v, 1_c_int) == 5, "rank-1 wrap: rank and extent")
    call check(c_associated(kk_view_data(v), c_loc(a1)), "rank-1 wrap: no copy (same address)")
    call kk_scal(2.0_c_double, v)
    call kk_fence()
    call check(all(a1 == [2, 4, 6, 8, 10]), "kk_scal on a wrapped array writes the array")
    call kk_view_release(v)
    call kk_view_wrap(v, a3, "a3")
    call check(kk_view_rank(v) == 3 .and. kk_view_extent(v, 1_c_int) == 4 .and. kk_view_extent(v, 2_c_int) == 3 &
               .and. kk_view_extent(v, 3_c_int) == 2, "rank-3 wrap: extents in Fortran order (LayoutLeft)")
    call check(c_associated(kk_view_data(v), c_loc(a3)), "rank-3 wrap: no copy")
    call kk_view_release(v)
    call kk_view_wrap(v, a7, "a7")
    call check(kk_view_rank(v) == 7 .and. kk_view_extent(v, 7_c_int) == 3, "rank-7 wrap")
    call kk_view_release(v)
    call kk_view_wrap(v, i2, "i2")
    call check(kk_view_rank(v) == 2, "integer wrap")
    call kk_view_release(v)
    ! a strided section: LayoutStride over the same memory
    call kk_view_wrap(v, f2(1:6:2, :), "section")
    call check(kk_view_extent(v, 1_c_int) == 3 .and. c_associated(kk_view_data(v), c_loc(f2)), "strided section wrap")
    call kk_view_release(v)
  end subroutine

  subroutine device_views_and_deep_copies()
    real(c_double) :: h(10, 3), back(10, 3)
    type(kk_view) :: d, e
    integer :: i
    h = reshape([(real(i, c_double), i = 1, 30)], [10, 3])
    call kk_view_create(d, "d", KK_DOUBLE, [10, 3])
    call check(kk_view_rank(d) == 2 .and. kk_view_extent(d, 2_c_int) == 3, "kk_view_create extents")
    call kk_copy_to_view(d, h)
    call kk_view_create(e, "e", KK_DOUBLE, [10_c_int64_t, 3_c_int64_t])
    call kk_deep_copy(e, d)
    back = 0
    call kk_copy_from_view(back, e)
    call check(all(back == h), "array -> view -> view -> array round trip")
    call kk_view_fill(e, 2.5_c_double)
    call kk_copy_from_view(back, e)
    call check(all(back == 2.5_c_double), "kk_view_fill")
    call kk_view_release(d)
    call kk_view_release(e)
  end subroutine

  subroutine blas()
    real(c_double), target :: x(8), y(8), A(4, 6), B(6, 5), C(4, 5), xv6(6), yv4(4)
    real(c_double), target :: Ab(3, 2, 3, 2)
    real(c_double), target :: bA(4, 2, 3), bB(4, 3, 2), bC(4, 2, 2)
    type(kk_view) :: vx, vy, vA, vB, vC, v6, v4
    integer :: i, j, k
    x = [(real(i, c_double), i = 1, 8)]
    y = 1
    call kk_view_wrap(vx, x, "x")
    call kk_view_wrap(vy, y, "y")
    call check(abs(kk_dot(vx, vy) - 36) < 1e-12, "kk_dot")
    call check(abs(kk_nrm2(vx) - sqrt(sum(x * x))) < 1e-12, "kk_nrm2")
    call kk_axpby(2.0_c_double, vx, 3.0_c_double, vy)
    call kk_fence()
    call check(all(y == 2 * x + 3), "kk_axpby")
    call random_number(A)
    call random_number(B)
    call random_number(xv6)
    C = 0
    call kk_view_wrap(vA, A, "A")
    call kk_view_wrap(vB, B, "B")
    call kk_view_wrap(vC, C, "C")
    call kk_view_wrap(v6, xv6, "x6")
    call kk_view_wrap(v4, yv4, "y4")
    call kk_gemm("N", "N", 1.0_c_double, vA, vB, 0.0_c_double, vC)
    call kk_gemv("N", 1.0_c_double, vA, v6, 0.0_c_double, v4)
    call kk_fence()
    call check(maxval(abs(C - matmul(A, B))) < 1e-12, "kk_gemm against matmul")
    call check(maxval(abs(yv4 - matmul(A, xv6))) < 1e-12, "kk_gemv against matmul")
    ! batched: (batch, rows, cols), batch first as kk counts it
    call random_number(bA)
    call random_number(bB)
    bC = 0
    call kk_view_release(vA)
    call kk_view_release(vB)
    call kk_view_release(vC)
    call kk_view_wrap(vA, bA, "bA")
    call kk_view_wrap(vB, bB, "bB")
    call kk_view_wrap(vC, bC, "bC")
    call kk_batched_gemm("N", "N", 1.0_c_double, vA, vB, 0.0_c_double, vC)
    call kk_fence()
    do k = 1, 4
      call check(maxval(abs(bC(k, :, :) - matmul(bA(k, :, :), bB(k, :, :)))) < 1e-12, "kk_batched_gemm")
    end do
    Ab = 0
    i = 0
    j = 0
    call kk_view_release(vx)
    call kk_view_release(vy)
    call kk_view_release(vA)
    call kk_view_release(vB)
    call kk_view_release(vC)
    call kk_view_release(v6)
    call kk_view_release(v4)
  end subroutine

  ! the 1-D Laplacian (tridiagonal 2, -1) in 1-based CSR; the matrix and vectors in the default space
  ! (a GPU's on cuda), copied to and from Fortran arrays
  subroutine sparse()
    integer, parameter :: n = 50
    integer(c_int32_t) :: rp(n + 1), ci(3 * n)
    real(c_double) :: vals(3 * n)
    real(c_double) :: xs(n), b(n), x(n), y(n)
    type(kk_crs) :: A
    type(kk_view) :: vb, vx, vxs, vy
    integer :: i, nz
    integer(c_int) :: iters, conv
    real(c_double) :: res
    nz = 0
    rp(1) = 1
    do i = 1, n
      if (i > 1) then
        nz = nz + 1; ci(nz) = i - 1; vals(nz) = -1
      end if
      nz = nz + 1; ci(nz) = i; vals(nz) = 2
      if (i < n) then
        nz = nz + 1; ci(nz) = i + 1; vals(nz) = -1
      end if
      rp(i + 1) = nz + 1
    end do
    call kk_crs_create(A, int(n, c_int64_t), int(n, c_int64_t), rp, ci(1:nz), vals(1:nz), label="lap")
    xs = [(sin(real(i, c_double)), i = 1, n)]
    call kk_view_create(vxs, "xs", KK_DOUBLE, [n])
    call kk_view_create(vy, "y", KK_DOUBLE, [n])
    call kk_copy_to_view(vxs, xs)
    call kk_spmv("N", 1.0_c_double, A, vxs, 0.0_c_double, vy)
    call kk_copy_from_view(y, vy)
    b(1) = 2 * xs(1) - xs(2)
    b(n) = 2 * xs(n) - xs(n - 1)
    b(2:n - 1) = 2 * xs(2:n - 1) - xs(1:n - 2) - xs(3:n)
    call check(maxval(abs(y - b)) < 1e-12, "kk_spmv of 1-based CSR")
    call kk_view_create(vb, "b", KK_DOUBLE, [n])
    call kk_view_create(vx, "x", KK_DOUBLE, [n])
    call kk_copy_to_view(vb, b)
    call kk_cg(A, vb, vx, tol=1e-12_c_double, max_iterations=200_c_int, iterations=iters, residual=res, converged=conv)
    call kk_copy_from_view(x, vx)
    call check(conv == 1 .and. iters > 0 .and. res <= 1e-12, "kk_cg converged")
    call check(maxval(abs(x - xs)) < 1e-8, "kk_cg solution")
    call kk_view_release(vb)
    call kk_view_release(vx)
    call kk_view_release(vxs)
    call kk_view_release(vy)
    call kk_crs_destroy(A)
  end subroutine

  ! kernels of a kkcc -shared module, their argument structs from kk-fortran-args, on views of the default
  ! space
  subroutine kernel_module()
    type(kk_module) :: m
    type(kk_kernel) :: saxpy, dot
    type(saxpy_args), target :: sa
    type(dot_args), target :: da
    real(c_double) :: x(100), y(100)
    real(c_double) :: total
    type(kk_view) :: vx, vy
    integer :: i
    call kk_module_load(m, trim(modpath))
    call kk_module_kernel(saxpy, m, "saxpy")
    call kk_module_kernel(dot, m, "dot")
    x = [(real(i, c_double), i = 1, 100)]
    y = 1
    call kk_view_create(vx, "x", KK_DOUBLE, [100])
    call kk_view_create(vy, "y", KK_DOUBLE, [100])
    call kk_copy_to_view(vx, x)
    call kk_copy_to_view(vy, y)
    sa%a = 2
    sa%n = 100
    call kk_bind(sa%x, vx)
    call kk_bind(sa%y, vy)
    call check(c_sizeof(sa) == saxpy_args_size, "generated struct has C's size")
    call kk_parallel_for("saxpy", saxpy, 0_c_int64_t, 100_c_int64_t, sa, c_sizeof(sa))
    call kk_copy_from_view(y, vy)
    call check(all(y == 2 * x + 1), "kernel saxpy launched from Fortran")
    call kk_bind(da%x, vx)
    call kk_bind(da%y, vx)
    total = 0
    call kk_parallel_reduce("dot", dot, 0_c_int64_t, 100_c_int64_t, da, c_sizeof(da), total, c_sizeof(total))
    call check(abs(total - sum(x * x)) < 1e-9, "reduce kernel launched from Fortran")
    call kk_parallel_for("wrong size", saxpy, 0_c_int64_t, 100_c_int64_t, sa, 8_c_int64_t, status=st)
    call check(st /= KK_OK, "a launch with the wrong argument size is refused")
    call kk_view_release(vx)
    call kk_view_release(vy)
    call kk_module_unload(m)
  end subroutine

  subroutine errors()
    type(kk_view) :: a, b
    call kk_view_create(a, "a", KK_DOUBLE, [5])
    call kk_view_create(b, "b", KK_DOUBLE, [6])
    call kk_deep_copy(a, b, status=st)
    call check(st /= KK_OK, "a mismatched deep copy returns a status")
    call kk_last_error(msg)
    call check(index(msg, "kk_deep_copy") > 0, "kk_last_error names the call: " // trim(msg))
    call kk_view_create(a, "c", KK_DOUBLE, [5], space="NoSuchSpace", status=st)
    call check(st /= KK_OK, "an unknown space is refused")
    call kk_last_error(msg)
    call check(index(msg, "NoSuchSpace") > 0, "the message names the space: " // trim(msg))
    call kk_view_release(a)
    call kk_view_release(b)
  end subroutine
end program test_kk
