# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, its data (catalog, matrices,
# provisioning hooks), the schemas, the man page and the systemd examples. The binary finds
# its data as PREFIX/share/netsweep next to itself (lib/datadir.c), wherever it is copied.
# make deb: a Debian package of the same (dpkg-deb under fakeroot) with the agent service;
# its Depends come from the binary's libraries (mk/debdeps.sh: dpkg-shlibdeps).
PREFIX  ?= /usr/local
DESTDIR ?=
NS_SHARE = $(DESTDIR)$(PREFIX)/share/netsweep
DEB_DIR  = $(BUILD)/deb
NS_VERSION = $(shell sed -n 's/.*NETSWEEP_VERSION "\(.*\)".*/\1/p' runner/core/version.h)

.PHONY: install deb
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(NS_SHARE)/schemas $(NS_SHARE)/examples
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/netsweep
	cp -R data/catalog data/matrices data/provision data/grafana $(NS_SHARE)/
	install -m 0644 schemas/*.xsd schemas/*.sql schemas/*.md $(NS_SHARE)/schemas/
	install -m 0644 packaging/systemd/netsweep-nightly.service \
		packaging/systemd/netsweep-nightly.timer packaging/systemd/netsweep-agent.service \
		$(NS_SHARE)/examples/
	install -m 0755 packaging/netsweep-nightly.sh $(NS_SHARE)/
	gzip -9n <packaging/netsweep.1 >$(DESTDIR)$(PREFIX)/share/man/man1/netsweep.1.gz

deb:
	@sh mk/deps.sh deb
	rm -rf $(DEB_DIR)
	$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(DEB_DIR)/root PREFIX=/usr
	install -d $(DEB_DIR)/root/DEBIAN $(DEB_DIR)/root/lib/systemd/system $(DEB_DIR)/root/etc/default
	install -m 0644 packaging/systemd/netsweep-agent.service $(DEB_DIR)/root/lib/systemd/system/
	install -m 0644 packaging/deb/netsweep-agent.default $(DEB_DIR)/root/etc/default/netsweep-agent
	install -m 0755 packaging/deb/postinst packaging/deb/prerm packaging/deb/postrm $(DEB_DIR)/root/DEBIAN/
	echo /etc/default/netsweep-agent >$(DEB_DIR)/root/DEBIAN/conffiles
	deps=$$(sh mk/debdeps.sh $(DEB_DIR)/root/usr/bin/netsweep) && \
	sed -e 's/@VERSION@/$(NS_VERSION)/' -e "s/@ARCH@/$$(dpkg --print-architecture)/" \
		-e "s/@SIZE@/$$(du -sk --exclude=DEBIAN $(DEB_DIR)/root | cut -f1)/" \
		-e "s|@DEPENDS@|$$deps|" packaging/deb/control.in >$(DEB_DIR)/root/DEBIAN/control
	fakeroot dpkg-deb --root-owner-group --build $(DEB_DIR)/root \
		$(BUILD)/netsweep_$(NS_VERSION)_$$(dpkg --print-architecture).deb
ITESTS += tests/integration/install_deb.sh
ITESTS += tests/integration/nightly.sh
