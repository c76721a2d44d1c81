// A FP8 case's recipe and choice of layers, resolved when the suite is read:
// the recipe is the precision's (fp8_tensorwise -> tensorwise, ...), its
// delayed-scaling arguments and the first/last-layer choice come from the
// case's "fp8" object, and an FP8 negative control is the recipe with its
// one fault set (docs/fp8.md, "The FP8 mistakes").
#pragma once

#include <optional>
#include <string>

#include "core/precision.h"
#include "fp8/conversion_options.h"
#include "fp8/fp8_recipe.h"
#include "spec/control.h"

namespace ampbench {

struct Fp8Settings {
  fp8::RecipeOptions recipe;
  fp8::ConversionOptions conversion;
};

// The recipe of an FP8 precision; nullopt for every other precision.
std::optional<fp8::Scaling> fp8_scaling(const PrecisionPolicy& precision);

// Whether `control` is one of the FP8 mistakes.
bool is_fp8_control(Control control);

// Sets the fault that `control` names on `recipe` (no-op for kNone).
// Returns why it cannot be (not an FP8 precision, or a fault the recipe has
// no such thing for), "" when it was set.
std::string apply_fp8_control(Control control, const PrecisionPolicy& precision, fp8::RecipeOptions& recipe);

}  // namespace ampbench
