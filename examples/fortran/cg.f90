! examples/fortran/cg.f90 -- kk from Fortran, end to end: a 3-D Poisson matrix built in Fortran (1-based CSR),
! solved by kk-kernels' conjugate gradients on the best backend kk finds (a GPU when there is one).
! SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
!
!   cg [n] [device]      n: grid points per dimension (default 32); device: e.g. openmp, cuda
program cg
  use, intrinsic :: iso_c_binding
  use kk
  implicit none
  integer :: n, i, j, k, r, nz, nrows
  character(len=32) :: arg, device, backend
  integer(c_int64_t), allocatable :: rp(:)
  integer(c_int32_t), allocatable :: ci(:)
  real(c_double), allocatable :: vals(:), xs(:), b(:), x(:)
  type(kk_crs) :: A
  type(kk_view) :: db, dx, dxs
  integer(c_int) :: iters, conv
  real(c_double) :: res, err
  integer(8) :: t0, t1, rate

  n = 32
  device = ""
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 2) call get_command_argument(2, device)
  nrows = n**3

  ! the 7-point Laplacian, row by row (1-based CSR)
  allocate (rp(nrows + 1), ci(7 * nrows), vals(7 * nrows), xs(nrows), b(nrows), x(nrows))
  nz = 0
  rp(1) = 1
  do k = 1, n
    do j = 1, n
      do i = 1, n
        r = i + n * (j - 1) + n * n * (k - 1)
        if (k > 1) call add(r - n * n, -1.0_c_double)
        if (j > 1) call add(r - n, -1.0_c_double)
        if (i > 1) call add(r - 1, -1.0_c_double)
        call add(r, 6.0_c_double)
        if (i < n) call add(r + 1, -1.0_c_double)
        if (j < n) call add(r + n, -1.0_c_double)
        if (k < n) call add(r + n * n, -1.0_c_double)
        rp(r + 1) = nz + 1
      end do
    end do
  end do

  if (len_trim(device) > 0) then
    call kk_initialize(device=trim(device))
  else
    call kk_initialize()
  end if
  call kk_backend(backend)
  ! the matrix and the vectors in the default backend's memory
  call kk_crs_create(A, int(nrows, c_int64_t), int(nrows, c_int64_t), rp, ci(1:nz), vals(1:nz), label="poisson")
  xs = [(sin(0.01_c_double * i), i = 1, nrows)]
  call kk_view_create(dxs, "xs", KK_DOUBLE, [nrows])
  call kk_view_create(db, "b", KK_DOUBLE, [nrows])
  call kk_view_create(dx, "x", KK_DOUBLE, [nrows])
  call kk_copy_to_view(dxs, xs)
  call kk_spmv("N", 1.0_c_double, A, dxs, 0.0_c_double, db)   ! b = A xs
  call kk_fence()
  call system_clock(t0, rate)
  call kk_cg(A, db, dx, tol=1e-8_c_double, max_iterations=10 * n, iterations=iters, residual=res, converged=conv)
  call system_clock(t1)
  call kk_copy_from_view(x, dx)
  err = maxval(abs(x - xs))
  print '(a,a,a,i0,a,i0,a,i0,a)', "backend ", trim(backend), ", ", n, "^3 grid, ", nrows, " unknowns, ", nz, &
    " nonzeros"
  print '(a,i0,a,es9.2,a,a,a,f0.3,a,es9.2)', "CG: ", iters, " iterations, residual ", res, ", ", &
    trim(merge("converged    ", "NOT converged", conv == 1)), ", ", real(t1 - t0) / real(rate), " s, max error ", err
  call kk_view_release(dxs)
  call kk_view_release(db)
  call kk_view_release(dx)
  call kk_crs_destroy(A)
  call kk_finalize()
  deallocate (rp, ci, vals, xs, b, x)  ! a main program's arrays are not freed at its end
  if (conv /= 1 .or. err > 1e-4) error stop 1

contains

  subroutine add(col, v)
    integer, intent(in) :: col
    real(c_double), intent(in) :: v
    nz = nz + 1
    ci(nz) = col
    vals(nz) = v
  end subroutine
end program cg
