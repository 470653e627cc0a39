# Debian packages (debian/): make deb writes them to build/deb
deb:
	sh $(srcdir)/scripts/build-deb.sh $(abs_srcdir) $(abs_builddir)/build
PHONY += deb
