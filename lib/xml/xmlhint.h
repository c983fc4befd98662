/* xmlhint: the first misspelt name of an XML file, said the way a person wants it — "axis
 * 'strems' is not one of axis-name (did you mean 'streams'?)" — instead of the validator's
 * dump of the enumeration. It reads the names an XSD allows (elements, each element's
 * attributes, the values of enumerated attribute types) and checks a parsed document against
 * them before validation; anything else is left to the validator. Linear in the document. */
#ifndef NS_XMLHINT_H
#define NS_XMLHINT_H

#include <libxml/tree.h>

#include "lib/err.h"

/* 0 when no element, attribute or enumerated value of doc is unknown to the XSD xsd_text;
 * -1 with err "PATH:LINE: ..." (code NS_E_INPUT) naming the first one and the nearest name. */
int xmlhint_check(xmlDocPtr doc, const char *xsd_text, const char *path, struct ns_err *err);

#endif
