// expected error at line 7: a HINT after the solution code
#pragma once

int f() {
  // EXERCISE: return one.
  return 1;
  // HINT: too late: the student would read it where the code was.
  // END EXERCISE
}
