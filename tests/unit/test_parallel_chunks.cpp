// parallel/: contiguous splits cover a range exactly once, in order; a
// fork-join and the worker pool report the lowest part's error; readCsv on N
// threads gives the one-thread table and the same first error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <loopsim/model/errors.hpp>
#include <loopsim/parallel/parallel_chunks.hpp>
#include <loopsim/parallel/worker_pool.hpp>
#include <loopsim/record/csv_reader.hpp>

using namespace loopsim;

TEST(ParallelChunks, PartsAreContiguousNearEqualAndCoverTheRange) {
  for (std::size_t n : {0u, 1u, 7u, 100u, 101u}) {
    for (int parts : {1, 2, 3, 8}) {
      std::size_t next = 5;
      for (int k = 0; k < parts; ++k) {
        const Chunk c = chunkOf(5, 5 + n, parts, k);
        EXPECT_EQ(c.begin, next);
        EXPECT_LE(c.size(), n / static_cast<std::size_t>(parts) + 1);
        EXPECT_GE(c.size(), n / static_cast<std::size_t>(parts));
        next = c.end;
      }
      EXPECT_EQ(next, 5 + n);
    }
  }
  EXPECT_THROW(chunkOf(0, 10, 0, 0), std::invalid_argument);
  EXPECT_THROW(chunkOf(0, 10, 2, 2), std::invalid_argument);
}

TEST(ParallelChunks, EveryItemRunsOnceAndTheLowestPartsErrorIsRethrown) {
  std::vector<std::atomic<int>> hits(1000);
  forEachChunk(0, hits.size(), 3, [&](int, Chunk c) {
    for (std::size_t i = c.begin; i < c.end; ++i) ++hits[i];
  });
  for (const auto& h : hits) EXPECT_EQ(h.load(), 1);
  try {
    forEachChunk(0, 30, 3, [](int k, Chunk) {
      if (k > 0) throw std::runtime_error("part " + std::to_string(k));
    });
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "part 1");
  }
  EXPECT_THROW(forEachChunk(0, 1, 0, [](int, Chunk) {}), std::invalid_argument);
}

TEST(WorkerPool, EveryPartRunsOncePerRunAndErrorsReachTheCaller) {
  WorkerPool pool(3);
  ASSERT_EQ(pool.size(), 3);
  std::vector<std::atomic<int>> runs(3);
  for (int r = 0; r < 500; ++r) {
    pool.run([&](int k) { ++runs[static_cast<std::size_t>(k)]; });
  }
  for (const auto& n : runs) EXPECT_EQ(n.load(), 500);
  try {
    pool.run([](int k) {
      if (k >= 1) throw std::runtime_error("part " + std::to_string(k));
    });
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "part 1");
  }
  pool.run([&](int k) { ++runs[static_cast<std::size_t>(k)]; });  // still usable after an error
  EXPECT_EQ(runs[2].load(), 501);
  EXPECT_THROW(WorkerPool(0), std::invalid_argument);
}

TEST(ParallelCsv, ThreadsGiveTheSameTableAndTheSameFirstError) {
  const auto path = std::filesystem::temp_directory_path() / ("loopsim_parallel_csv_" + std::to_string(::getpid()) + ".csv");
  {
    std::ofstream out(path);
    out << "\xEF\xBB\xBFt, a ,b\n";
    for (int r = 0; r < 2000; ++r) {
      out << r * 0.5 << "," << (r % 7) - 3.25 << ", +" << r << "e-3\r\n";
      if (r % 300 == 0) out << "\n";  // blank lines are skipped but counted
    }
    out << "1,2,3";  // no final newline
  }
  const CsvTable one = readCsv(path, 1);
  ASSERT_EQ(one.columns, (std::vector<std::string>{"t", "a", "b"}));
  ASSERT_EQ(one.rows.size(), 2001u);
  for (int threads : {2, 3, 16}) {
    const CsvTable many = readCsv(path, threads);
    EXPECT_EQ(many.rows, one.rows) << threads;
    EXPECT_EQ(many.line_numbers, one.line_numbers) << threads;
  }
  EXPECT_EQ(one.line_numbers.back(), 2009);
  // An MPI rank's shard: only its rows are parsed, the line numbers are whole.
  for (int part : {0, 1, 2}) {
    const CsvTable shard = readCsv(path, 2, part, 3);
    const Chunk mine = chunkOf(0, one.rows.size(), 3, part);
    ASSERT_EQ(shard.rows.size(), one.rows.size());
    EXPECT_EQ(shard.line_numbers, one.line_numbers);
    for (std::size_t r = 0; r < one.rows.size(); ++r) {
      if (r >= mine.begin && r < mine.end) {
        EXPECT_EQ(shard.rows[r], one.rows[r]);
      } else {
        EXPECT_TRUE(shard.rows[r].empty());
      }
    }
  }

  // Two bad lines in different parts: every thread count names the first.
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  in.close();
  lines[1500] = "1,2";
  lines[400] = "1,x,3";
  {
    std::ofstream out(path);
    for (const auto& l : lines) out << l << "\n";
  }
  for (int threads : {1, 2, 3}) {
    try {
      readCsv(path, threads);
      FAIL() << "expected an error";
    } catch (const ModelError& e) {
      EXPECT_EQ(e.element(), "line 401, column 'a'") << threads;
      EXPECT_EQ(e.message(), "not a number: 'x'") << threads;
    }
  }
  std::filesystem::remove(path);
}
