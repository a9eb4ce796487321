//===- KernelsAttention.cpp - rotary embedding and fused attention --------===//

#include "dialects/top/Interpreter/Gemm.h"
#include "dialects/top/Interpreter/KernelSupport.h"
#include "dialects/top/Interpreter/Parallel.h"

#include <cmath>
#include <limits>
#include <vector>

namespace llmc::top::kernels {

//===----------------------------------------------------------------------===//
// Rope
//===----------------------------------------------------------------------===//

llvm::Expected<Tensor> rope(const Tensor &input, const Tensor &cos,
                            const Tensor &sin, RopeMode mode,
                            const ThreadRunner &runner) {
  for (auto [tensor, what] : {std::pair(&input, "input"),
                              std::pair(&cos, "cos"), std::pair(&sin, "sin")})
    if (llvm::Error error = requireF32(*tensor, what))
      return std::move(error);
  if (input.getRank() != 4)
    return kernelError("input must be [batch, seq, heads, head_dim], got " +
                       input.describe());
  if (cos.getRank() != 3 || cos.getShape() != sin.getShape())
    return kernelError("cos and sin must both be [batch, seq, rotary_dim], "
                       "got " +
                       cos.describe() + " and " + sin.describe());
  int64_t batch = input.getDim(0), length = input.getDim(1);
  int64_t heads = input.getDim(2), headDim = input.getDim(3);
  int64_t rotary = cos.getDim(2);
  if ((cos.getDim(0) != 1 && cos.getDim(0) != batch) || cos.getDim(1) != length)
    return kernelError("cos/sin " + cos.describe() +
                       " do not match the input " + input.describe());
  if (rotary % 2 != 0 || rotary > headDim)
    return kernelError("rotary_dim " + llvm::Twine(rotary) +
                       " must be even and at most head_dim " +
                       llvm::Twine(headDim));

  Tensor result = input;
  const float *in = input.getF32().data();
  const float *cosines = cos.getF32().data();
  const float *sines = sin.getF32().data();
  float *out = result.getF32().data();
  bool sharedTables = cos.getDim(0) == 1;
  int64_t half = rotary / 2;
  // One item per (batch, position); every head of it uses the same angles.
  runner.forRanges(batch * length, 64, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      int64_t tableRow = sharedTables ? item % length : item;
      const float *c = cosines + tableRow * rotary;
      const float *s = sines + tableRow * rotary;
      for (int64_t h = 0; h < heads; ++h) {
        const float *x = in + (item * heads + h) * headDim;
        float *y = out + (item * heads + h) * headDim;
        // Both layouts follow x * cos + rotate(x) * sin, reading cos/sin at
        // the output channel as Hugging Face and GPT-J do.
        for (int64_t i = 0; i < half; ++i) {
          int64_t first = mode == RopeMode::Half ? i : 2 * i;
          int64_t second = mode == RopeMode::Half ? i + half : 2 * i + 1;
          float a = x[first], b = x[second];
          y[first] = a * c[first] - b * s[first];
          y[second] = b * c[second] + a * s[second];
        }
      }
    }
  });
  return result;
}

//===----------------------------------------------------------------------===//
// FAttention
//===----------------------------------------------------------------------===//

static llvm::Error checkAttentionOperands(const Tensor &q, const Tensor &k,
                                          const Tensor &v, const Tensor *mask,
                                          const AttentionParams &params) {
  for (auto [tensor, what] : {std::pair(&q, "q"), std::pair(&k, "k"),
                              std::pair(&v, "v"), std::pair(mask, "mask")})
    if (tensor)
      if (llvm::Error error = requireF32(*tensor, what))
        return error;
  if (q.getRank() != 4 || k.getRank() != 4 || v.getRank() != 4)
    return kernelError("q, k and v must be [batch, seq, heads, head_dim]");
  if (params.qHeads <= 0 || params.kvHeads <= 0 || params.headDim <= 0 ||
      params.qHeads % params.kvHeads != 0)
    return kernelError("q_head (" + llvm::Twine(params.qHeads) +
                       ") must be a positive multiple of kv_head (" +
                       llvm::Twine(params.kvHeads) + ") and head_dim positive");
  if (q.getDim(2) != params.qHeads || q.getDim(3) != params.headDim)
    return kernelError("q " + q.describe() + " must have " +
                       llvm::Twine(params.qHeads) + " heads of " +
                       llvm::Twine(params.headDim));
  if (k.getShape() != v.getShape() || k.getDim(0) != q.getDim(0) ||
      k.getDim(2) != params.kvHeads || k.getDim(3) != params.headDim)
    return kernelError("k " + k.describe() + " and v " + v.describe() +
                       " must be [" + llvm::Twine(q.getDim(0)) + ", kv_len, " +
                       llvm::Twine(params.kvHeads) + ", " +
                       llvm::Twine(params.headDim) + "]");
  if (mask &&
      (mask->getRank() != 3 ||
       (mask->getDim(0) != 1 && mask->getDim(0) != q.getDim(0)) ||
       mask->getDim(1) != q.getDim(1) || mask->getDim(2) != k.getDim(1)))
    return kernelError("mask " + mask->describe() +
                       " must be [batch or 1, q_len, kv_len]");
  return llvm::Error::success();
}

llvm::Expected<Tensor> attention(const Tensor &q, const Tensor &k,
                                 const Tensor &v, const Tensor *mask,
                                 const AttentionParams &params,
                                 const ThreadRunner &runner) {
  if (llvm::Error error = checkAttentionOperands(q, k, v, mask, params))
    return std::move(error);
  int64_t batch = q.getDim(0), queries = q.getDim(1), keys = k.getDim(1);
  int64_t qHeads = params.qHeads, kvHeads = params.kvHeads;
  int64_t headDim = params.headDim;
  int64_t group = qHeads / kvHeads;
  Tensor result(ElementKind::F32, {batch, queries, qHeads * headDim});
  const float *qData = q.getF32().data();
  const float *kData = k.getF32().data();
  const float *vData = v.getF32().data();
  const float *maskData = mask ? mask->getF32().data() : nullptr;
  bool sharedMask = mask && mask->getDim(0) == 1;
  float *out = result.getF32().data();
  auto scale = static_cast<float>(params.scale);
  auto softcap = static_cast<float>(params.softcap);
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();

  // One item per (batch, head, query): queries vary fastest so that
  // consecutive items read the same K/V head while it is in cache.
  runner.forRanges(
      batch * qHeads * queries, 4, [&](int64_t begin, int64_t end) {
        std::vector<float> scores(keys);
        for (int64_t item = begin; item < end; ++item) {
          int64_t i = item % queries;
          int64_t h = (item / queries) % qHeads;
          int64_t b = item / (queries * qHeads);
          int64_t kvHead = h / group;
          const float *query =
              qData + ((b * queries + i) * qHeads + h) * headDim;
          float *y = out + (b * queries + i) * qHeads * headDim + h * headDim;
          std::fill_n(y, headDim, 0.0f);
          // Query i sits at position keys - queries + i of the key sequence.
          int64_t visible =
              params.causal ? std::min(keys, keys - queries + i + 1) : keys;
          if (visible <= 0)
            continue;
          const float *maskRow =
              maskData ? maskData + ((sharedMask ? 0 : b) * queries + i) * keys
                       : nullptr;
          float maximum = kNegInf;
          for (int64_t j = 0; j < visible; ++j) {
            const float *key =
                kData + ((b * keys + j) * kvHeads + kvHead) * headDim;
            float score = dotProduct(query, key, headDim) * scale;
            if (softcap > 0.0f)
              score = softcap * std::tanh(score / softcap);
            if (maskRow)
              score += maskRow[j];
            scores[j] = score;
            maximum = std::max(maximum, score);
          }
          if (maximum == kNegInf)
            continue;
          double sum = 0.0;
          for (int64_t j = 0; j < visible; ++j) {
            scores[j] = std::exp(scores[j] - maximum);
            sum += scores[j];
          }
          auto inverse = static_cast<float>(1.0 / sum);
          for (int64_t j = 0; j < visible; ++j) {
            const float *value =
                vData + ((b * keys + j) * kvHeads + kvHead) * headDim;
            addScaled(scores[j] * inverse, value, y, headDim);
          }
        }
      });
  return result;
}

} // namespace llmc::top::kernels
