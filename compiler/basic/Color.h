// Whether croqc colours what it prints on stderr (`--color=auto|always|never`).
#pragma once

#include <cstdint>

namespace croqc {

enum class ColorMode : std::uint8_t { Auto, Always, Never };

/// `Always` and `Never` are taken as given. `Auto` colours only when stderr is
/// a terminal that supports colour and the `NO_COLOR` environment variable is
/// unset or empty (https://no-color.org: an explicit flag wins over it).
bool shouldColorStderr(ColorMode mode);

}  // namespace croqc
