/* pingpong.c -- the MPI transport's bandwidth and latency between two ranks (bench/mpi.py): rank 0
 * sends n bytes to rank 1 and back, for n from 8 bytes to 64 MiB; prints "bytes seconds_one_way". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *buf = calloc((size_t)64 << 20, 1);
    for (long n = 8; n <= (64L << 20); n *= 8) {
        int reps = n < (1 << 20) ? 200 : 10;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int k = 0; k < reps; k++) {
            if (rank == 0) {
                MPI_Send(buf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
        double dt = (MPI_Wtime() - t0) / (2.0 * reps);
        if (rank == 0)
            printf("%ld %.9f\n", n, dt);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
