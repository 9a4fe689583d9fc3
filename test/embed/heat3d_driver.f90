! heat3d_driver.f90 -- a Fortran host driving heat3d through its generated module (heat3d_api.f90),
! for test/python/test_embed.py.  heat3d_driver OUT.raw [OPTION ...]: opens 18x16x14 with the options
! of the command line given (e.g. --mode incore; --mem 1M --dir D --block 16,3,2), advances 3 steps,
! writes 2.0 into the box [5,8) x [6,9) x [7,10), advances 4, reads the whole field into OUT.raw
! (x fastest), and checks that an unknown field is refused with the runtime's message; then it writes
! a checkpoint to OUT.raw.ckpt and a report to OUT.raw.json, closes, restarts from the checkpoint with
! options built one by one (heat3d_option: no length to choose), reads the same field back, advances
! one step more and discards the simulation.
program heat3d_driver
    use heat3d_stencil
    use iso_fortran_env, only: int64, error_unit
    implicit none
    type(heat3d_sim) :: sim
    type(heat3d_options) :: opts
    real(heat3d_kind), allocatable :: u(:, :, :), src(:, :, :), again(:, :, :)
    character(len=4096) :: path
    character(len=4096), allocatable :: options(:)
    integer :: rc, unit, i
    call get_command_argument(1, path)
    allocate (options(3 + command_argument_count() - 1))
    options(1:3) = [character(len=4096) :: "--size", "18,16,14", "--quiet"]
    do i = 2, command_argument_count()
        call get_command_argument(i, options(2 + i))
    end do
    allocate (u(18, 16, 14), src(3, 3, 3), again(18, 16, 14))
    src = 2.0_heat3d_kind
    rc = heat3d_open(sim, options)
    call check(rc, "open")
    call check(heat3d_advance(sim, 3_int64), "advance")
    call check(heat3d_write(sim, "u", [5_int64, 6_int64, 7_int64], [8_int64, 9_int64, 10_int64], src), "write")
    call check(heat3d_advance(sim, 4_int64), "advance")
    call check(heat3d_read(sim, "u", [0_int64, 0_int64, 0_int64], [18_int64, 16_int64, 14_int64], u), "read")
    if (heat3d_steps_done(sim) /= 7) stop 3
    rc = heat3d_read(sim, "v", [0_int64, 0_int64, 0_int64], [1_int64, 1_int64, 1_int64], u)
    if (rc >= 0) stop 4
    print '(a)', heat3d_errmsg()
    call check(heat3d_checkpoint(sim, trim(path) // ".ckpt"), "checkpoint")
    call check(heat3d_report(sim, trim(path) // ".json"), "report")
    call check(heat3d_close(sim), "close")
    call heat3d_option(opts, "--mode", "incore")
    call heat3d_option(opts, "--quiet")
    call check(heat3d_restart(sim, trim(path) // ".ckpt", opts), "restart")
    call check(heat3d_read(sim, "u", [0_int64, 0_int64, 0_int64], [18_int64, 16_int64, 14_int64], again), "read")
    if (any(again /= u)) stop 5
    call check(heat3d_advance(sim, 1_int64), "advance")
    call heat3d_discard(sim)
    open (newunit=unit, file=trim(path), access="stream", form="unformatted", status="replace")
    write (unit) u
    close (unit)
contains
    subroutine check(rc, what)
        integer, intent(in) :: rc
        character(len=*), intent(in) :: what
        if (rc /= 0) then
            write (error_unit, '(a, ": ", a)') what, heat3d_errmsg()
            stop 1
        end if
    end subroutine
end program
