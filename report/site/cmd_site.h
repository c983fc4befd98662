/* cmd_site: `netsweep site`, the static results site (site.h). Reads only the database. */
#ifndef RP_CMD_SITE_H
#define RP_CMD_SITE_H

int cmd_site(int argc, char **argv);

#endif
