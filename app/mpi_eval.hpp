#pragma once
// `loopsim eval --mpi` under `mpirun -n K`: every rank reads the scene and
// the states, evaluates its contiguous shard of the rows (chunkOf in
// parallel/parallel_chunks.hpp) on its own threads, and rank 0
// receives the shards in rank order and writes the one output file; the
// other ranks write nothing. The output is the single-process output byte
// for byte. Compiled only with LOOPSIM_MPI (app/mpi/mpi_eval.cpp).
#include <filesystem>

#include <loopsim/record/state_evaluation.hpp>
#include <loopsim/scene/scene.hpp>

namespace loopsim::app {

/// True when this binary was built with MPI support.
bool mpiSupported();

/// Runs the evaluation as one rank of an MPI job; returns the exit code.
/// `threads_given`: --threads was given; else each rank uses the cores of
/// its node divided among the ranks on that node.
int evaluateStatesOverMpi(const Scene& scene, const std::filesystem::path& states_csv,
                          const std::filesystem::path& out_csv, EvalOptions options, bool threads_given);

}  // namespace loopsim::app
