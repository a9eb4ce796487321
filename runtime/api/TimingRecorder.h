//===- TimingRecorder.h - the timings of a turn as it runs ------*- C++ -*-===//
//
// Splits a turn's time, token by token, into the prompt (up to the first
// token) and the decode steps, on the host clock and in the device's
// modelled seconds.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_API_TIMINGRECORDER_H
#define LLMC_RUNTIME_API_TIMINGRECORDER_H

#include "runtime/api/Generate.h"

#include <chrono>

namespace llmc {

class TimingRecorder {
public:
  /// Starts the clock; `modelled` is the device's modelled total so far and
  /// `promptTokens` the tokens the turn feeds first.
  TimingRecorder(double modelled, int64_t promptTokens);

  /// Accounts the time since the previous token to generated token `step`
  /// (0 for the first); `modelled` is the device's total now.
  void record(int64_t step, double modelled);

  const GenerateTimings &getTimings() const { return timings; }

private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now(), last = start;
  double lastModelled;
  GenerateTimings timings;
};

} // namespace llmc

#endif // LLMC_RUNTIME_API_TIMINGRECORDER_H
