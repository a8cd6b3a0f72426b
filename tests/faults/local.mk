# tests/faults/local.mk -- issue 21's tests: bad input that once crashed, concurrent use, broken plugins, bounds checking.
EXTRA_DIST += tests/faults/local.mk
if KK_HAVE_CHECK
check_PROGRAMS += tests/faults/check_faults
TESTS += tests/faults/check_faults
tests_faults_check_faults_SOURCES = tests/faults/check_faults.c tests/testutil.h
tests_faults_check_faults_CPPFLAGS = $(TEST_CPPFLAGS)
tests_faults_check_faults_CFLAGS = $(TEST_CFLAGS)
tests_faults_check_faults_LDADD = libkk.la $(CHECK_LIBS) $(PTHREAD_CFLAGS)
endif
