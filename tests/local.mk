# Tests of the tree itself: the layers (no target includes a layer above it)
# and the man pages (each says what its tool's --help says).
TESTS += tests/layers.sh
if MAN_PAGES
TESTS += tests/man-pages.sh
endif
EXTRA_DIST += tests/layers.sh tests/man-pages.sh scripts/check-layers.sh
