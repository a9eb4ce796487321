//===- ElementwiseTest.cpp - ADD, MUL, DIV, activations, CAST, COPY ------===//

#include "backends/common/cmodel/test/TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>

namespace llmc::cmodel {
namespace {

using test::Harness;

/// Runs a one-output op whose inputs are [rows, cols] tensors of `types`
/// laid out as `layout` over 4 lanes; returns the output's values.
std::vector<float> runRowLocal(cmd::Compute compute,
                               const std::vector<std::vector<float>> &inputs,
                               const std::vector<cmd::DType> &types,
                               const std::vector<int64_t> &inputRows,
                               cmd::DType outType, int64_t rows, int64_t cols,
                               cmd::Layout layout) {
  Harness h(test::getSmallChip());
  std::vector<std::pair<cmd::GlobalTensor, cmd::LocalTensor>> loads;
  for (size_t i = 0; i < inputs.size(); ++i) {
    cmd::Layout inputLayout =
        inputRows[i] == 1 && rows != 1 && layout != cmd::LAYOUT_COLS
            ? cmd::LAYOUT_REPLICATED
            : layout;
    cmd::LocalTensor local =
        h.local(types[i], inputRows[i], cols, inputLayout, 0, 4);
    loads.push_back({h.put(types[i], inputRows[i], cols, inputs[i]), local});
    *compute.add_inputs() = local;
  }
  *compute.add_outputs() = h.local(outType, rows, cols, layout, 0, 4);
  auto outs = h.runOp(compute, loads);
  if (!outs.ok()) {
    ADD_FAILURE() << outs.status().message();
    return {};
  }
  return h.get((*outs)[0]);
}

cmd::Compute op(cmd::Opcode opcode) { return makeCompute(opcode, {}, {}); }

TEST(ElementwiseTest, HalfAndBFloat16ArithmeticIsCorrectlyRounded) {
  // The exact sum or product (in double) rounded once to the type: the
  // definition of IEEE arithmetic in that type, which the cmodel must match
  // bit for bit.
  int64_t rows = 6, cols = 37;
  for (cmd::DType type : {cmd::DTYPE_F16, cmd::DTYPE_BF16}) {
    std::vector<float> a = test::randomValues(rows * cols, 1, -300, 300);
    std::vector<float> b = test::randomValues(rows * cols, 2, -3, 3);
    std::vector<double> as = test::asStored(type, a),
                        bs = test::asStored(type, b);
    for (cmd::Opcode opcode : {cmd::ADD, cmd::MUL, cmd::DIV}) {
      std::vector<double> want;
      for (size_t i = 0; i < as.size(); ++i)
        want.push_back(test::roundTo(type, opcode == cmd::ADD ? as[i] + bs[i]
                                           : opcode == cmd::MUL
                                               ? as[i] * bs[i]
                                               : as[i] / bs[i]));
      for (cmd::Layout layout : {cmd::LAYOUT_ROWS, cmd::LAYOUT_COLS})
        test::expectClose(runRowLocal(op(opcode), {a, b}, {type, type},
                                      {rows, rows}, type, rows, cols, layout),
                          want, 0.0);
    }
  }
}

TEST(ElementwiseTest, RowVectorsBroadcast) {
  int64_t rows = 5, cols = 20;
  std::vector<float> a = test::randomValues(rows * cols, 3);
  std::vector<float> b = test::randomValues(cols, 4);
  std::vector<double> want;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      want.push_back(double(a[r * cols + c]) + double(b[c]));
  for (cmd::Layout layout : {cmd::LAYOUT_ROWS, cmd::LAYOUT_COLS})
    test::expectClose(runRowLocal(op(cmd::ADD), {a, b},
                                  {cmd::DTYPE_F32, cmd::DTYPE_F32}, {rows, 1},
                                  cmd::DTYPE_F32, rows, cols, layout),
                      want, 1e-7);
}

TEST(ElementwiseTest, ScalarsBroadcast) {
  // A [1, 1] operand (a temperature, a penalty) held by every lane meets
  // each element of the other, on either side; IEEE division by zero.
  int64_t rows = 6, cols = 20;
  std::vector<float> a = test::randomValues(rows * cols, 13, -4, 4);
  a[5] = 0.0f;
  for (float scalar : {0.8f, 0.0f}) {
    for (cmd::Opcode opcode : {cmd::ADD, cmd::MUL, cmd::DIV}) {
      for (bool scalarFirst : {false, true}) {
        SCOPED_TRACE(testing::Message() << cmd::Opcode_Name(opcode) << " "
                                        << scalar << " " << scalarFirst);
        Harness h(test::getSmallChip());
        cmd::LocalTensor la =
            h.local(cmd::DTYPE_F32, rows, cols, cmd::LAYOUT_COLS, 0, 4);
        cmd::LocalTensor ls =
            h.local(cmd::DTYPE_F32, 1, 1, cmd::LAYOUT_REPLICATED, 0, 4);
        cmd::LocalTensor ly =
            h.local(cmd::DTYPE_F32, rows, cols, cmd::LAYOUT_COLS, 0, 4);
        cmd::Compute compute = scalarFirst
                                   ? makeCompute(opcode, {ls, la}, {ly})
                                   : makeCompute(opcode, {la, ls}, {ly});
        auto outs =
            h.runOp(compute, {{h.put(cmd::DTYPE_F32, rows, cols, a), la},
                              {h.put(cmd::DTYPE_F32, 1, 1, {scalar}), ls}});
        ASSERT_TRUE(outs.ok()) << outs.status().message();
        std::vector<float> got = h.get((*outs)[0]);
        for (size_t i = 0; i < a.size(); ++i) {
          float x = scalarFirst ? scalar : a[i],
                y = scalarFirst ? a[i] : scalar;
          float want = opcode == cmd::ADD   ? x + y
                       : opcode == cmd::MUL ? x * y
                                            : x / y;
          if (std::isnan(want))
            EXPECT_TRUE(std::isnan(got[i])) << i;
          else
            EXPECT_EQ(got[i], want) << i;
        }
      }
    }
  }
}

TEST(ElementwiseTest, BroadcastOperandsMustFitTheOutput) {
  Harness h(test::getSmallChip());
  cmd::LocalTensor la = h.local(cmd::DTYPE_F32, 4, 8, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor lb =
      h.local(cmd::DTYPE_F32, 4, 1, cmd::LAYOUT_REPLICATED, 0, 4);
  cmd::LocalTensor ly = h.local(cmd::DTYPE_F32, 4, 8, cmd::LAYOUT_ROWS, 0, 4);
  h.getBuilder().compute(makeCompute(cmd::DIV, {la, lb}, {ly}));
  std::string message;
  EXPECT_EQ(test::getTrapKind(h.run().status(), &message),
            TrapKind::BadOperand);
  EXPECT_NE(message.find("or [1, 1] to broadcast"), std::string::npos)
      << message;
}

TEST(ElementwiseTest, InPlaceAdd) {
  Harness h(test::getSmallChip());
  std::vector<float> a = test::randomValues(8 * 16, 5),
                     b = test::randomValues(8 * 16, 6);
  cmd::LocalTensor la = h.local(cmd::DTYPE_F32, 8, 16, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor lb = h.local(cmd::DTYPE_F32, 8, 16, cmd::LAYOUT_ROWS, 0, 4);
  auto outs = h.runOp(makeCompute(cmd::ADD, {la, lb}, {la}),
                      {{h.put(cmd::DTYPE_F32, 8, 16, a), la},
                       {h.put(cmd::DTYPE_F32, 8, 16, b), lb}});
  ASSERT_TRUE(outs.ok()) << outs.status().message();
  std::vector<double> want;
  for (size_t i = 0; i < a.size(); ++i)
    want.push_back(double(a[i] + b[i]));
  test::expectClose(h.get((*outs)[0]), want, 0.0);
}

double silu(double x) { return x / (1 + std::exp(-x)); }
double gelu(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
double geluTanh(double x) {
  return 0.5 * x *
         (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

TEST(ElementwiseTest, Activations) {
  int64_t rows = 4, cols = 50;
  std::vector<float> x = test::randomValues(rows * cols, 7, -6, 6);
  x[3] = 0.0f;
  x[4] = -0.0f;
  struct Case {
    cmd::Opcode opcode;
    bool tanh;
    double (*f)(double);
  } cases[] = {{cmd::SILU, false, silu},
               {cmd::GELU, false, gelu},
               {cmd::GELU, true, geluTanh},
               {cmd::RELU, false, [](double v) { return v < 0 ? 0.0 : v; }},
               {cmd::TANH, false, [](double v) { return std::tanh(v); }}};
  for (const Case &c : cases) {
    for (cmd::DType type : {cmd::DTYPE_F32, cmd::DTYPE_F16, cmd::DTYPE_BF16}) {
      SCOPED_TRACE(testing::Message() << cmd::Opcode_Name(c.opcode) << c.tanh
                                      << getDTypeName(type));
      std::vector<double> xs = test::asStored(type, x), want;
      for (double v : xs)
        want.push_back(c.f(v));
      cmd::Compute compute = op(c.opcode);
      compute.set_tanh_approx(c.tanh);
      // Float32 math functions are within a few ulp; the 16-bit results
      // round once more, within one of their ulp.
      double tolerance = type == cmd::DTYPE_F32   ? 1e-6
                         : type == cmd::DTYPE_F16 ? 1e-3
                                                  : 8e-3;
      test::expectClose(runRowLocal(compute, {x}, {type}, {rows}, type, rows,
                                    cols, cmd::LAYOUT_ROWS),
                        want, tolerance);
    }
  }
}

TEST(ElementwiseTest, MulConstRoundsOnce) {
  int64_t rows = 3, cols = 40;
  std::vector<float> x = test::randomValues(rows * cols, 8, -100, 100);
  cmd::Compute compute = op(cmd::MUL_CONST);
  compute.set_scalar(0.125); // A power of two: the product is exact.
  std::vector<double> want;
  for (double v : test::asStored(cmd::DTYPE_BF16, x))
    want.push_back(test::roundBF16(v * 0.125));
  test::expectClose(runRowLocal(compute, {x}, {cmd::DTYPE_BF16}, {rows},
                                cmd::DTYPE_BF16, rows, cols, cmd::LAYOUT_COLS),
                    want, 0.0);
}

TEST(ElementwiseTest, CastRoundsToNearestEven) {
  int64_t rows = 4, cols = 33;
  std::vector<float> x = test::randomValues(rows * cols, 9, -70000, 70000);
  x[0] = 1.0f + 0x1p-11f; // A binary16 tie.
  x[1] = 65520.0f;        // Rounds to infinity in binary16.
  x[2] = 0x1p-25f;        // Halfway to the smallest binary16 subnormal.
  for (cmd::DType to : {cmd::DTYPE_F16, cmd::DTYPE_BF16}) {
    std::vector<double> want;
    for (float v : x)
      want.push_back(test::roundTo(to, v));
    test::expectClose(runRowLocal(op(cmd::CAST), {x}, {cmd::DTYPE_F32}, {rows},
                                  to, rows, cols, cmd::LAYOUT_ROWS),
                      want, 0.0);
  }
  // Between 16-bit types: through the exact float32 value.
  std::vector<double> want;
  for (double v : test::asStored(cmd::DTYPE_BF16, x))
    want.push_back(test::roundF16(v));
  test::expectClose(runRowLocal(op(cmd::CAST), {x}, {cmd::DTYPE_BF16}, {rows},
                                cmd::DTYPE_F16, rows, cols, cmd::LAYOUT_COLS),
                    want, 0.0);
  // Integers convert exactly.
  std::vector<float> ints = test::randomValues(rows * cols, 10, -128, 128);
  for (float &v : ints)
    v = std::floor(v);
  test::expectClose(runRowLocal(op(cmd::CAST), {ints}, {cmd::DTYPE_I8}, {rows},
                                cmd::DTYPE_F32, rows, cols, cmd::LAYOUT_ROWS),
                    test::asStored(cmd::DTYPE_F32, ints), 0.0);
}

TEST(ElementwiseTest, CopyIntoAView) {
  // Appends a [1, 32] row after the 3 rows of a [4, 32] buffer, the way a
  // new key joins the cached ones: the view is the same tensor's row 3.
  Harness h(test::getSmallChip());
  int64_t cols = 32;
  std::vector<float> history = test::randomValues(3 * cols, 11),
                     row = test::randomValues(cols, 12);
  cmd::LocalTensor buffer =
      h.local(cmd::DTYPE_F16, 4, cols, cmd::LAYOUT_COLS, 0, 4);
  cmd::LocalTensor head = buffer, tail = buffer;
  head.set_rows(3);
  tail.set_rows(1);
  tail.set_address(buffer.address() + 3 * 64); // 8 columns of f16 per lane.
  cmd::LocalTensor fresh =
      h.local(cmd::DTYPE_F16, 1, cols, cmd::LAYOUT_COLS, 0, 4);
  StreamBuilder &b = h.getBuilder();
  uint32_t loadHead = b.load(h.put(cmd::DTYPE_F16, 3, cols, history), head);
  uint32_t loadRow = b.load(h.put(cmd::DTYPE_F16, 1, cols, row), fresh);
  uint32_t copy = b.unary(cmd::COPY, fresh, tail, {loadRow});
  cmd::GlobalTensor result = h.store(buffer, copy);
  (void)loadHead;
  LLMC_ASSERT_RUN(h, stats);
  std::vector<float> want = history;
  want.insert(want.end(), row.begin(), row.end());
  test::expectClose(h.get(result), test::asStored(cmd::DTYPE_F16, want), 0.0);
}

} // namespace
} // namespace llmc::cmodel
