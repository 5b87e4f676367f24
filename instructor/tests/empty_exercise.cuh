// expected error at line 5: an EXERCISE without its text
#pragma once

int f() {
  // EXERCISE:
  return 1;
  // END EXERCISE
}
