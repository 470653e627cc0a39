# the test NIC: built beside mgcap.ko by kmod/local.mk's rules, for the
# tests only (make check, make testnic)
TESTNIC_FILES = tests/mgtestnic/Kbuild tests/mgtestnic/mgtestnic_main.c \
	tests/mgtestnic/mgtestnic.h tests/mgtestnic/mgt_sysfs.c \
	tests/mgtestnic/mgt_phc.c tests/mgtestnic/mgt_phc.h tests/mgtestnic/compat.h \
	tests/mgtestnic/mgtestnic_frame.h
EXTRA_DIST += $(TESTNIC_FILES)
check_DATA = testnic
