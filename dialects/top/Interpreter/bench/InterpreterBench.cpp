//===- InterpreterBench.cpp - matmul throughput of the top interpreter ----===//
//
// Times the MatMul shapes of a Qwen2.5-0.5B decode and prefill step (hidden
// 896, ffn 4864, vocab 151936) through the interpreter with random weights,
// for one and two threads, against a naive triple loop timed in the same run,
// and checks that the results agree. Run with
// `bazel run //dialects/top/Interpreter/bench:interpreter_bench`.
//
//===----------------------------------------------------------------------===//

#include "dialects/top/IR/TopDialect.h"
#include "dialects/top/Interpreter/Interpreter.h"
#include "plugins/WeightSource.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

using namespace llmc;

namespace {

struct Workload {
  const char *label;
  int64_t m, k, n;
  /// The weight is [N, K] (a Linear layer's layout) rather than [K, N].
  bool linearLayout;
};

std::vector<float> randomValues(int64_t count, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float &value : values)
    value = uniform(generator);
  return values;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// The textbook loop: one dot product per output element.
std::vector<float> naiveMatMul(const Workload &w, const std::vector<float> &x,
                               const std::vector<float> &weight) {
  std::vector<float> out(w.m * w.n);
  for (int64_t i = 0; i < w.m; ++i)
    for (int64_t j = 0; j < w.n; ++j) {
      float sum = 0.0f;
      for (int64_t p = 0; p < w.k; ++p)
        sum += x[i * w.k + p] *
               (w.linearLayout ? weight[j * w.k + p] : weight[p * w.n + j]);
      out[i * w.n + j] = sum;
    }
  return out;
}

std::string matmulModule(const Workload &w) {
  std::string x =
      "tensor<" + std::to_string(w.m) + "x" + std::to_string(w.k) + "xf32>";
  std::string y =
      "tensor<" + std::to_string(w.m) + "x" + std::to_string(w.n) + "xf32>";
  std::string weight = w.linearLayout ? "tensor<" + std::to_string(w.n) + "x" +
                                            std::to_string(w.k) + "xf32>"
                                      : "tensor<" + std::to_string(w.k) + "x" +
                                            std::to_string(w.n) + "xf32>";
  return "func.func @main(%x: " + x + ") -> " + y + " {\n" +
         "  %w = top.Weight \"w\" : () -> " + weight + "\n" +
         "  %none = top.None : none\n" + "  %y = top.MatMul %x, %w, %none {" +
         (w.linearLayout ? "right_transpose = true" : "") + "} : (" + x + ", " +
         weight + ", none) -> " + y + "\n" + "  return %y : " + y + "\n}\n";
}

} // namespace

int main() {
  const Workload workloads[] = {
      {"decode gate/up  [1,896]x[4864,896]^T", 1, 896, 4864, true},
      {"decode down     [1,4864]x[896,4864]^T", 1, 4864, 896, true},
      {"prefill up      [128,896]x[4864,896]^T", 128, 896, 4864, true},
      {"lm_head         [16,896]x[151936,896]^T", 16, 896, 151936, true},
      {"row-major B     [16,896]x[896,4864]", 16, 896, 4864, false},
  };
  mlir::MLIRContext context;
  context.loadDialect<mlir::func::FuncDialect, top::TopDialect>();
  llvm::outs() << llvm::format("%-42s %9s %9s %9s %8s %8s %9s\n", "workload",
                               "naive", "1 thread", "2 threads", "x naive",
                               "2t/1t", "max err");

  for (const Workload &w : workloads) {
    std::vector<float> weight = randomValues(w.k * w.n, 1);
    std::vector<float> x = randomValues(w.m * w.k, 2);
    plugins::OverlayWeightSource source(
        std::make_unique<plugins::EmptyWeightSource>("benchmark weights"));
    llvm::SmallVector<int64_t> weightShape =
        w.linearLayout ? llvm::SmallVector<int64_t>{w.n, w.k}
                       : llvm::SmallVector<int64_t>{w.k, w.n};
    if (llvm::Error error = source.addTensor("w", weightShape, weight)) {
      llvm::errs() << toString(std::move(error)) << "\n";
      return 1;
    }
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(matmulModule(w), &context);
    if (!module)
      return 1;
    auto function = module->lookupSymbol<mlir::func::FuncOp>("main");
    top::Tensor input = top::Tensor::fromF32({w.m, w.k}, x);
    double flops = 2.0 * w.m * w.n * w.k;

    auto start = std::chrono::steady_clock::now();
    std::vector<float> expected = naiveMatMul(w, x, weight);
    double naiveRate = flops / secondsSince(start) / 1e9;

    double rates[2];
    double maxError = 0.0;
    for (unsigned threads : {1u, 2u}) {
      top::Interpreter interpreter(source, {threads});
      // The first run converts and caches the weight, as the first token of
      // a generation does; later runs are the steady state.
      llvm::Expected<std::vector<top::Tensor>> result =
          interpreter.run(function, input);
      if (!result) {
        llvm::errs() << toString(result.takeError()) << "\n";
        return 1;
      }
      for (auto [got, want] : llvm::zip(result->front().getF32(), expected))
        maxError = std::max(maxError, double(std::fabs(got - want)));
      int runs = 0;
      start = std::chrono::steady_clock::now();
      while (runs < 3 || secondsSince(start) < 1.0) {
        if (!interpreter.run(function, input))
          return 1;
        ++runs;
      }
      rates[threads - 1] = flops * runs / secondsSince(start) / 1e9;
    }
    llvm::outs() << llvm::format("%-42s %9.2f %9.2f %9.2f %8.1f %8.2f %9.2e\n",
                                 w.label, naiveRate, rates[0], rates[1],
                                 rates[1] / naiveRate, rates[1] / rates[0],
                                 maxError);
  }
  llvm::outs() << "GFLOP/s; 'x naive' is 2 threads against the naive loop\n";
  return 0;
}
