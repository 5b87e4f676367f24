// expected error at line 5: a misspelt marker
#pragma once

int f() {
  //EXERCISE: return one (no space after the slashes).
  return 1;
  // END EXERCISE
}
