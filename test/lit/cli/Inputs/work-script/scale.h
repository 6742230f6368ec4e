#pragma once
constexpr int kFirst = 1;
