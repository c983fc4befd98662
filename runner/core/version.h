#ifndef NS_VERSION_H
#define NS_VERSION_H
#define NETSWEEP_VERSION "0.1.0"
#endif
