# What the tests that launch Open MPI share; sourced after lib.sh. Skips
# (77) without mpirun; under make test that is a failure.
skip_without mpirun "no mpirun (apt-get install openmpi-bin libopenmpi-dev)"
mpi_environment

# compare_rows QUERY DB_A DB_B WHAT: the query's rows equal in both files.
compare_rows() {
    a=$(sqlite3 -batch "$2" "$1" | sha256sum)
    b=$(sqlite3 -batch "$3" "$1" | sha256sum)
    [ "$a" = "$b" ] || fail "$4: rows differ ($1)"
}
