// CTestWidth: sets how many tests Swift Testing runs at once in this package's test process.
// It has no API: a constructor runs before main (see CTestWidth.c).
#ifndef C_TEST_WIDTH_H
#define C_TEST_WIDTH_H
#endif
