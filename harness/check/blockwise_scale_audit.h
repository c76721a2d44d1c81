// The blockwise scale audit: every cast of a recorded fp8_blockwise run held
// to torchao's blockwise rule, recomputed from the amaxes of the recipe's
// 128-wide tiles of the tensor it actually cast (fp8::RowwiseCastTrace: one
// amax and one dequantizing scale per tile):
//
//   scale = 1 / float32(448 / max(float64(amax), 1e-12))
//
// held to a relative 1e-6 (torchao's 128 x 1 quantizer applies eps in the
// input's dtype, an ulp away for a tile under 1e-12). Tiles of another size
// (another number of scales) or scales from any amax but the tile's own
// break it; finer tiles only fit the values better, so the distances would
// never see them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "check/rowwise_scale_audit.h"

namespace ampbench {

using BlockwiseLayerCasts = RowwiseLayerCasts;

// The dequantizing scale the rule gives a tile of this amax.
float expected_blockwise_scale(float amax);

// The first cast that breaks the rule; nullopt when every one follows it.
// RowwiseScaleMismatch's fields: layer, operand, cast, and what (which tile).
std::optional<RowwiseScaleMismatch> first_blockwise_scale_mismatch(const std::vector<BlockwiseLayerCasts>& layers);

}  // namespace ampbench
