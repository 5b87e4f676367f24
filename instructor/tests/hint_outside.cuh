// expected error at line 4: a HINT outside an exercise
#pragma once

// HINT: a hint with no exercise to belong to.
int f() { return 1; }
