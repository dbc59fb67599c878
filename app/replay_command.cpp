// `loopsim replay RECORD [--verify]`: re-simulates a record from its embedded
// scene and settings; --verify compares every state bit for bit.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>

#include <loopsim/record/replay.hpp>
#include "exit_codes.hpp"
#include "record_commands.hpp"

namespace loopsim::app {

Command registerReplayCommand(CLI::App& parent) {
  struct Options {
    std::string record;
    bool verify = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = parent.add_subcommand("replay", "Re-simulate a record from its embedded scene and settings");
  sub->add_option("RECORD", options->record, "Record CSV (or its .json summary)")->required();
  sub->add_flag("--verify", options->verify, "Check the whole record bit for bit (header, row count, every column but the wall-clock timing:* ones); exit 4 at the first difference");
  return {sub, [options] {
            const ReplayReport report = replayRecord(options->record, options->verify);
            for (const auto& w : report.warnings) spdlog::warn("{}", w);
            std::printf("replayed %ld steps\n", report.steps);
            if (!options->verify) return 0;
            if (!report.verified) {
              std::printf("verify: FAILED at %s\n", report.mismatch.c_str());
              return kExitVerifyMismatch;
            }
            std::printf("verify: OK, %ld rows identical bit for bit (header and every column but timing:*)\n",
                        report.rows_compared);
            return 0;
          }};
}

}  // namespace loopsim::app
