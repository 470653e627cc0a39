# Tests of the tree itself: the layers (no target includes a layer above it),
# the man pages (each says what its tool's --help says) and mgdump@.service's
# exposure (systemd-analyze security).
TESTS += tests/layers.sh tests/unit-security.sh
if MAN_PAGES
TESTS += tests/man-pages.sh
endif
EXTRA_DIST += tests/layers.sh tests/man-pages.sh tests/unit-security.sh scripts/check-layers.sh
