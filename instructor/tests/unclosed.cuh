// expected error at line 5: an EXERCISE without its // END EXERCISE
#pragma once

int f() {
  // EXERCISE: return one.
  return 1;
}
