// A header without markers comes out unchanged, byte for byte, down to the missing newline at
// its end; [a] ${b} \c and these lookalikes, which are not markers:
// TODO: x
  // exercise: y
// Hint: z
#pragma once
int unchanged(int x[2]) { return x[0] + x[1]; }  // [ ; ]
int last_line_without_newline();