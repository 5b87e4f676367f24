// What instructor/zoo/ includes for the block one size takes: analysis.hpp says it.
#pragma once

#include "emulator/analysis.hpp"
