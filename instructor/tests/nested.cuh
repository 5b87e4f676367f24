// expected error at line 7: an EXERCISE inside the exercise opened at line 5
#pragma once

int f() {
  // EXERCISE: return one.
  int one = 1;
  // EXERCISE: and two.
  return one;
  // END EXERCISE
  // END EXERCISE
}
