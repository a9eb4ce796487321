//===- ConvertNeon.cpp - float16 and bfloat16 conversions on NEON ---------===//
//
// FCVT widens and narrows float16 as F16C does under Linux's default FPCR
// (round to nearest even, subnormals kept, NaNs quieted with their top
// payload bits), so these match the scalar code of Scalar.h bit for bit.
// bfloat16 is integer arithmetic, as on the x86 paths.
//
//===----------------------------------------------------------------------===//

#include "backends/host/kernels/Dispatch.h"

#if defined(__aarch64__)
#include <arm_neon.h>

namespace llmc::host::detail {

// `in` may be only 2-byte aligned, or less (weight rows are addressed in
// bytes): 16-bit elements are loaded as bytes.
static inline uint16x4_t loadHalves(const uint16_t *at) {
  return vreinterpret_u16_u8(vld1_u8(reinterpret_cast<const uint8_t *>(at)));
}

void widenF16Neon(const uint16_t *in, float *out, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    vst1q_f32(out + i, vcvt_f32_f16(vreinterpret_f16_u16(loadHalves(in + i))));
  widenF16Scalar(in + i, out + i, n - i);
}

void widenBF16Neon(const uint16_t *in, float *out, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    vst1q_f32(out + i,
              vreinterpretq_f32_u32(vshll_n_u16(loadHalves(in + i), 16)));
  widenBF16Scalar(in + i, out + i, n - i);
}

void narrowF16Neon(const float *in, uint16_t *out, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    vst1_u16(out + i,
             vreinterpret_u16_f16(vcvt_f16_f32(vld1q_f32(in + i))));
  narrowF16Scalar(in + i, out + i, n - i);
}

/// The rounded bfloat16 bits of 4 floats: to nearest even, NaNs quieted.
static inline uint16x4_t roundToBF16(float32x4_t v) {
  uint32x4_t bits = vreinterpretq_u32_f32(v);
  uint32x4_t high = vshrq_n_u32(bits, 16);
  uint32x4_t odd = vandq_u32(high, vdupq_n_u32(1));
  uint32x4_t rounded = vshrq_n_u32(
      vaddq_u32(vaddq_u32(bits, vdupq_n_u32(0x7fff)), odd), 16);
  uint32x4_t quiet = vorrq_u32(high, vdupq_n_u32(0x40));
  return vmovn_u32(vbslq_u32(vceqq_f32(v, v), rounded, quiet));
}

void narrowBF16Neon(const float *in, uint16_t *out, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    vst1_u16(out + i, roundToBF16(vld1q_f32(in + i)));
  narrowBF16Scalar(in + i, out + i, n - i);
}

} // namespace llmc::host::detail

#endif
