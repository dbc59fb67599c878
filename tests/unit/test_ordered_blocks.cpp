// parallel/ordered_blocks: the blocks cover the range once, are delivered in
// order whatever thread finished them first, a false delivery stops the run,
// and a block's exception surfaces at its turn (eval's and Python
// evaluate()'s "first failing row in input order").
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include <loopsim/parallel/ordered_blocks.hpp>

using namespace loopsim;

TEST(OrderedBlocks, BlocksCoverTheRangeAndAreDeliveredInOrder) {
  for (std::size_t n : {0u, 1u, 15u, 1000u, 5000u}) {
    for (int threads : {1, 2, 3}) {
      const OrderedBlocks blocks(3, 3 + n, threads);
      std::size_t next = 3;
      for (std::size_t b = 0; b < blocks.count(); ++b) {
        EXPECT_EQ(blocks.block(b).begin, next);
        EXPECT_GE(blocks.block(b).size(), 1u);
        EXPECT_LE(blocks.block(b).size(), 256u);
        next = blocks.block(b).end;
      }
      EXPECT_EQ(next, 3 + n);
      std::vector<std::atomic<int>> done(blocks.count());
      std::vector<int> worker_of(blocks.count(), -1);
      std::vector<std::size_t> delivered;
      blocks.run(
          [&](int worker, std::size_t b) {
            // Early blocks finish last, so order comes from the hand-over, not from timing.
            if (b < 2) std::this_thread::sleep_for(std::chrono::milliseconds(5));
            worker_of[b] = worker;
            ++done[b];
          },
          [&](std::size_t b) {
            EXPECT_EQ(done[b].load(), 1);
            EXPECT_GE(worker_of[b], 0);
            EXPECT_LT(worker_of[b], threads);
            delivered.push_back(b);
            return true;
          });
      ASSERT_EQ(delivered.size(), blocks.count());
      for (std::size_t b = 0; b < delivered.size(); ++b) EXPECT_EQ(delivered[b], b);
    }
  }
  EXPECT_THROW(OrderedBlocks(0, 10, 0), std::invalid_argument);
}

TEST(OrderedBlocks, AFalseDeliveryStopsAndABlocksErrorComesAtItsTurn) {
  const OrderedBlocks blocks(0, 2000, 2);
  ASSERT_GT(blocks.count(), 6u);
  std::vector<std::size_t> delivered;
  blocks.run([](int, std::size_t) {}, [&](std::size_t b) {
    delivered.push_back(b);
    return b < 4;
  });
  EXPECT_EQ(delivered, (std::vector<std::size_t>{0, 1, 2, 3, 4}));

  // Blocks 5 and 2 throw; block 2's error is the one seen, after 0 and 1 were delivered.
  delivered.clear();
  try {
    blocks.run(
        [](int, std::size_t b) {
          if (b == 5) throw std::runtime_error("block 5");
          if (b == 2) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            throw std::runtime_error("block 2");
          }
        },
        [&](std::size_t b) {
          delivered.push_back(b);
          return true;
        });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "block 2");
  }
  EXPECT_EQ(delivered, (std::vector<std::size_t>{0, 1}));
}
