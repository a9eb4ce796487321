//===- TimingRecorder.cpp - the timings of a turn as it runs --------------===//

#include "runtime/api/TimingRecorder.h"

namespace llmc {

TimingRecorder::TimingRecorder(double modelled, int64_t promptTokens)
    : lastModelled(modelled) {
  timings.promptTokens = promptTokens;
}

void TimingRecorder::record(int64_t step, double modelled) {
  Clock::time_point now = Clock::now();
  double seconds = std::chrono::duration<double>(now - last).count();
  if (step == 0) {
    timings.firstTokenSeconds =
        std::chrono::duration<double>(now - start).count();
    timings.promptModelledSeconds += modelled - lastModelled;
  } else {
    ++timings.decodeTokens;
    timings.decodeSeconds += seconds;
    timings.decodeModelledSeconds += modelled - lastModelled;
  }
  last = now;
  lastModelled = modelled;
}

} // namespace llmc
