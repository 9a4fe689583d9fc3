! heat3d_snapread.f90 -- a Fortran host that reads a --save-to file back through heat3d_api.f90's
! heat3d_snap_* functions (test_embed_snapshots.py; docs/embedding.md).
!
!   heat3d_snapread FILE OUTDIR   prints "count N", "steps S0 S1 ...", "shape NX NY NZ", writes each
!                                 snapshot of u to OUTDIR/STEP.raw, then asks for a step not saved and a
!                                 buffer too small and prints each error ("missing RC: MESSAGE", "small ...")
program heat3d_snapread
    use heat3d_stencil
    use, intrinsic :: iso_fortran_env, only: int64
    implicit none
    character(len=4096) :: path, outdir, file
    integer(int64) :: n, shape(3), i
    integer(int64), allocatable :: steps(:)
    real(heat3d_kind), allocatable :: buf(:)
    integer :: rc, unit

    call get_command_argument(1, path)
    call get_command_argument(2, outdir)
    n = heat3d_snap_count(trim(path), "u")
    if (n < 0) then
        print '(a,i0,a,a)', "error ", n, ": ", heat3d_errmsg()
        stop 1
    end if
    allocate(steps(n))
    rc = heat3d_snap_steps(trim(path), "u", steps)
    if (rc == 0) rc = heat3d_snap_shape(trim(path), "u", shape)
    if (rc /= 0) then
        print '(a,i0,a,a)', "error ", rc, ": ", heat3d_errmsg()
        stop 1
    end if
    print '(a,i0)', "count ", n
    print '(a,*(1x,i0))', "steps", steps
    print '(a,3(1x,i0))', "shape", shape
    allocate(buf(product(shape)))
    do i = 1, n
        rc = heat3d_snap_read(trim(path), "u", steps(i), buf, size(buf, kind=int64))
        if (rc /= 0) then
            print '(a,i0,a,a)', "error ", rc, ": ", heat3d_errmsg()
            stop 1
        end if
        write(file, '(a,a,i0,a)') trim(outdir), "/", steps(i), ".raw"
        open(newunit=unit, file=trim(file), access="stream", form="unformatted", status="replace")
        write(unit) buf
        close(unit)
    end do
    rc = heat3d_snap_read(trim(path), "u", 999999_int64, buf, size(buf, kind=int64))
    print '(a,i0,a,a)', "missing ", rc, ": ", heat3d_errmsg()
    rc = heat3d_snap_read(trim(path), "u", steps(1), buf, size(buf, kind=int64) - 1)
    print '(a,i0,a,a)', "small ", rc, ": ", heat3d_errmsg()
end program
