// expected error at line 8: an END EXERCISE without an EXERCISE before it
#pragma once

int f() {
  // EXERCISE: return one.
  return 1;
  // END EXERCISE
  // END EXERCISE
}
