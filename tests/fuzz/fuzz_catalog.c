/* libFuzzer target: the instance/price catalog loader (libxml2 + schemas/catalog.xsd, the
 * merge index) on arbitrary files, loaded twice so that merging over itself is exercised. */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "lib/catalog/catalog.h"

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ns_err err;
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/fuzz_catalog.%d.xml", (int)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 0;
	ssize_t w = write(fd, data, size);
	close(fd);
	if (w == (ssize_t)size) {
		struct catalog c;
		catalog_init(&c);
		if (catalog_load(&c, path, &err) == 0) {
			catalog_load(&c, path, &err);
			catalog_nearest_type(&c, "c5n.18xlarge");
		}
		catalog_free(&c);
	}
	unlink(path);
	return 0;
}
