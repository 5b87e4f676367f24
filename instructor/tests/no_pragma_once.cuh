// expected error at line 3: an exercise in a file without #pragma once
int f() {
  // EXERCISE: return one.
  return 1;
  // END EXERCISE
}
