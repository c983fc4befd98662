/* lib/names/suggest and lib/xml/xmlhint (its user; two modules, one test): the nearest name to a typo
 * (and none for another word), and misspelt elements, attributes and enumerated values of a
 * document against a small XSD. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include <libxml/parser.h>

#include "lib/names/suggest.h"
#include "lib/xml/xmlhint.h"

static void test_nearest(void **state)
{
	(void)state;
	static const char *const names[] = {"streams", "threads", "rate", "mss", "duration"};
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
	assert_int_equal(suggest_distance("", "abc"), 3);
	/* a swap of neighbours is one edit: rnu for run, tpc for tcp */
	assert_int_equal(suggest_distance("rnu", "run"), 1);
	assert_int_equal(suggest_distance("tpc", "tcp"), 1);
	assert_int_equal(suggest_distance("ab", "ba"), 1);
	static const char *const cmds[] = {"run", "report", "runs"};
	assert_string_equal(suggest_among("rnu", cmds, 3), "run");
	assert_string_equal(suggest_among("strems", names, 5), "streams");
	assert_string_equal(suggest_among("duratoin", names, 5), "duration");
	assert_string_equal(suggest_among("streams", names, 5), "streams");
	assert_null(suggest_among("bandwidth", names, 5)); /* another word, not a typo */
	assert_null(suggest_among("ms", names, 5));        /* too short to guess */
}

static const char XSD[] =
	"<xs:schema xmlns:xs='http://www.w3.org/2001/XMLSchema'>"
	"<xs:simpleType name='axis-name'><xs:restriction base='xs:string'>"
	"<xs:enumeration value='streams'/><xs:enumeration value='rate'/></xs:restriction>"
	"</xs:simpleType>"
	"<xs:element name='matrix'><xs:complexType><xs:sequence>"
	"<xs:element name='axis'><xs:complexType>"
	"<xs:attribute name='name' type='axis-name'/></xs:complexType></xs:element>"
	"</xs:sequence><xs:attribute name='repeats' type='xs:string'/>"
	"<xs:attribute name='order'><xs:simpleType><xs:restriction base='xs:string'>"
	"<xs:enumeration value='as-written'/><xs:enumeration value='shuffled'/></xs:restriction>"
	"</xs:simpleType></xs:attribute>"
	"</xs:complexType></xs:element></xs:schema>";

static int check(const char *doc_text, char *msg)
{
	xmlDocPtr doc = xmlReadMemory(doc_text, (int)strlen(doc_text), "m.xml", NULL, XML_PARSE_NONET);
	assert_non_null(doc);
	struct ns_err err = {0};
	int rc = xmlhint_check(doc, XSD, "m.xml", &err);
	strcpy(msg, err.msg);
	if (rc < 0)
		assert_int_equal(err.code, NS_E_INPUT);
	xmlFreeDoc(doc);
	return rc;
}

static void test_xmlhint(void **state)
{
	(void)state;
	char msg[NS_ERR_MAX];
	assert_int_equal(check("<matrix repeats='2'>\n<axis name='rate'/></matrix>", msg), 0);
	assert_int_equal(check("<matrix>\n<axis name='strems'/></matrix>", msg), -1);
	assert_string_equal(msg, "m.xml:2: <axis name=\"strems\">: 'strems' is not a valid "
			    "axis-name (did you mean 'streams'?)");
	assert_int_equal(check("<matrix repeat='2'/>", msg), -1);
	assert_string_equal(msg, "m.xml:1: <matrix> has no attribute 'repeat' (did you mean "
			    "'repeats'?)");
	assert_int_equal(check("<matrix>\n\n<axs name='rate'/></matrix>", msg), -1);
	assert_string_equal(msg, "m.xml:3: unknown element <axs> (did you mean <axis>?)");
	assert_int_equal(check("<matrix><axis name='bandwidth'/></matrix>", msg), -1);
	assert_non_null(strstr(msg, "one of streams, rate"));
	/* an attribute's own enumeration, as a named type's */
	assert_int_equal(check("<matrix order='shufled'/>", msg), -1);
	assert_string_equal(msg, "m.xml:1: <matrix order=\"shufled\">: 'shufled' is not a valid "
			    "order (did you mean 'shuffled'?)");
	assert_int_equal(check("<matrix order='shuffled'/>", msg), 0);
	/* another vocabulary's attributes are the validator's business */
	assert_int_equal(check("<matrix xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance' "
			       "xsi:noNamespaceSchemaLocation='x.xsd'/>", msg), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nearest),
		cmocka_unit_test(test_xmlhint),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
