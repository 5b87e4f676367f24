// expected error at line 4: a PLACEHOLDER outside an exercise
#pragma once

// PLACEHOLDER: int g();
int f() { return 1; }
